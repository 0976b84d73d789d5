#!/usr/bin/env bash
# One device-tool call (third session of 2026-12-02, fourth call), kept as the record of what ran:
# the device tests with the registry's device ordinals, then issue 7's multi-device path on the one
# GPU lent: two device actors (each with its stager and VRAM budget) on cuda:0, a stream of
# 10-partition jobs on a 2^22 key, once as is and once killing device actor 1 mid-stream.
#   run(command="tar -C .device -xJf .device/payload.tar.xz && gpu/tools/device_call6.sh", carry=[".device"])
. "$(dirname "$0")/device_lib.sh"
dev_header
dev_tests
W=/tmp/call6
chain_key "$W" 22
c=$W/c22
b stream_one $R engine_stream "$c.zkey" "$c.wtns" 3 10 cuda:0 0
b stream_two $R engine_stream "$c.zkey" "$c.wtns" 3 10 cuda:0,cuda:0 0
b stream_two_kill1 $R engine_stream "$c.zkey" "$c.wtns" 3 10 cuda:0,cuda:0 0 1
dev_finish
