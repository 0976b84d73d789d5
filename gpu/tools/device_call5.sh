#!/usr/bin/env bash
# One device-tool call (third session of 2026-12-02, third call), kept as the record of what ran:
# the device tests, then whole proofs with the G2 MSM on a second lane (its own stream and scratch,
# overlapping the G1 MSMs) at 2^22 and 2^24, and the engine stream at 2^22.
#   run(command="tar -C .device -xJf .device/payload.tar.xz && gpu/tools/device_call5.sh", carry=[".device"])
. "$(dirname "$0")/device_lib.sh"
dev_header
dev_tests
dev_proofs /tmp/call5 5 22 24
dev_finish
