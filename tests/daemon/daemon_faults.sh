#!/usr/bin/env bash
# cuzk-daemon under faults and a hostile local user: every check here failed before its
# fix. Threads and mappings stay flat over hundreds of jobs; one request id submitted at once by
# many clients is one job; a key added at runtime is the keys directory's, never a file of the cwd;
# journal write errors (injected, and a full tmpfs when root may mount one) refuse new jobs with a
# clear status while the daemon serves on and restarts; corrupt journal rows are quarantined and a
# damaged journal goes aside; the state directory must be private, and the journal names no path.
source "$(dirname "$0")/lib.sh"
W="$SAMPLE/sample.wtns"

threads_of() { awk '/^Threads:/ {print $2}' "/proc/$1/status"; }
maps_of() { wc -l <"/proc/$1/maps"; }
expect_rc() {  # expect_rc RC "message fragment" client-args...
  local want_rc=$1 want=$2 out rc=0
  shift 2
  out=$("$CUZK" "$@" 2>&1) || rc=$?
  [[ $rc == "$want_rc" && $out == *"$want"* ]] || { echo "rc=$rc output: $out"; return 1; }
}

write_config "$T/d.toml" "$ADDR" "" "[chaos]" "enabled = true"
start_daemon "$T/d.toml"

# ---- a short soak: no thread or mapping per job ----
load() {  # load CLIENT JOBS
  local i
  for ((i = 0; i < $2; i++)); do
    "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --out "$T/soak-$1-$i" >/dev/null || return 1
  done
}
run_clients() {  # run_clients JOBS_EACH: 8 clients at once
  local pids=() c rc=0
  for c in $(seq 8); do load "$c" "$1" & pids+=($!); done
  for c in "${pids[@]}"; do wait "$c" || rc=1; done
  return $rc
}
check "warm-up: 40 proofs from 8 clients" run_clients 5
t0=$(threads_of "$DAEMON_PID") m0=$(maps_of "$DAEMON_PID")
check "soak: 320 proofs from 8 clients" run_clients 40
t1=$(threads_of "$DAEMON_PID") m1=$(maps_of "$DAEMON_PID")
echo "     threads $t0 -> $t1, mappings $m0 -> $m1 over 320 jobs"
check "threads flat over 320 jobs ($t0 -> $t1)" test "$t1" -le $((t0 + 4))
check "mappings flat over 320 jobs ($m0 -> $m1)" test "$m1" -le $((m0 + 16))
vk_ok=0
for d in "$T"/soak-*; do verify_dir_cuzk "$d" 1 || vk_ok=1; done
check "every soak proof verifies" test $vk_ok = 0
rm -rf "$T"/soak-*

# ---- a key truncated while mapped fails its job, not the daemon (item 4) ----
cp "$SAMPLE/sample.zkey" "$T/keys/shrinks.zkey"
check "prove with a key (now mapped)" "$CUZK" prove --addr "$ADDR" --circuit shrinks --witness "$W" --out "$T/s1"
truncate -s 2048 "$T/keys/shrinks.zkey"
out=$("$CUZK" prove --addr "$ADDR" --circuit shrinks --witness "$W" --out "$T/s2" 2>&1) && rc=0 || rc=$?
names_key() { [[ $rc != 0 && $out == *shrinks.zkey* ]] || { echo "rc=$rc output: $out"; return 1; }; }
check "a job on the truncated key fails, naming the key" names_key
check "the daemon survived the truncation" kill -0 "$DAEMON_PID"
check "and proves with other keys" "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --out "$T/s3"
cp "$SAMPLE/sample.zkey" "$T/keys/shrinks.zkey.new"
mv "$T/keys/shrinks.zkey.new" "$T/keys/shrinks.zkey"
check "the key restored, its jobs prove again" "$CUZK" prove --addr "$ADDR" --circuit shrinks --witness "$W" --out "$T/s4"
check "that proof verifies" verify_dir "$T/s4" 1

# ---- one request id, 16 clients at once: one job (item 7) ----
# Thirty partitions each: the daemon writes them before journaling the job, a wide window.
many=()
for _ in $(seq 30); do many+=(--witness "$W"); done
pids=()
for c in $(seq 16); do
  "$CUZK" submit --addr "$ADDR" --circuit sample "${many[@]}" --request-id barrier-1 >"$T/rid-$c" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done
check "16 simultaneous submissions with one request id name one job" \
  test "$(cat "$T"/rid-* | sort -u | wc -l)" = 1
check "the journal holds one row for the request id" bash -c \
  "[[ \$(sqlite3 '$T/state/journal.sqlite' \"select count(*) from jobs where request_id = 'barrier-1'\") == 1 ]]"

# ---- a key added at runtime is read from the keys directory, not the cwd (item 3) ----
# The cwd holds a file named like the new circuit: another key (a further contribution).
snarkjs zkey contribute "$SAMPLE/sample.zkey" "$T/other.zkey" --name=other -e="not the same key" >/dev/null
mkdir -p "$T/cwd"
cp "$T/other.zkey" "$T/cwd/latekey"
stop_daemon
cd "$T/cwd"
start_daemon "$T/d.toml"
cd "$SRC"
cp "$SAMPLE/sample.zkey" "$T/keys/latekey.zkey"
check "prove with a key added at runtime" \
  "$CUZK" prove --addr "$ADDR" --circuit latekey --witness "$W" --out "$T/late"
check "its proof verifies with the keys directory's key" verify_dir "$T/late" 1

# ---- every reader caps what it reads by what the format allows (item 10) ----
mkfifo "$T/fifo"
truncate -s 300M "$T/huge.json"
VK="$SAMPLE/verification_key.json"
check "verify of /dev/zero is refused at once" expect_rc 2 "not a regular file" verify /dev/zero "$VK" "$VK"
check "verify of a FIFO is refused, not blocked on" \
  timeout 20 bash -c "out=\$('$CUZK' verify '$VK' '$T/fifo' '$VK' 2>&1); [[ \$? == 2 && \$out == *'not a regular file'* ]]"
check "verify of a 300 MB JSON file is refused unread" expect_rc 2 "more than a snarkjs JSON file may have" verify "$T/huge.json" "$VK" "$VK"
check "a witness from /dev/zero is refused by the client" expect_rc 2 "not a regular file" \
  submit --addr "$ADDR" --circuit sample --witness /dev/zero
check "a configuration from /dev/zero is refused" bash -c \
  "out=\$(timeout 20 '$DAEMON' --config /dev/zero 2>&1); [[ \$? == 2 && \$out == *'not a regular file'* ]]"
rm -f "$T/fifo" "$T/huge.json"

# ---- journal write errors refuse new work; the daemon serves on (item 1) ----
"$CUZK" chaos journal-fail --addr "$ADDR" 1 >/dev/null
check "a submit the journal cannot record is refused as unavailable, naming the reason" \
  expect_rc 5 "disk is full" submit --addr "$ADDR" --circuit sample --witness "$W"
check "the daemon serves on after a journal write error" \
  "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --out "$T/j1"
# A job whose result the journal cannot record: awaited from memory, the daemon lives.
job=$("$CUZK" submit --addr "$ADDR" --circuit sample "${many[@]}")
"$CUZK" chaos journal-fail --addr "$ADDR" 1 >/dev/null
check "a job finishing while the journal fails is still awaited with its proofs" \
  "$CUZK" await --addr "$ADDR" "$job" --out "$T/j2"
check "its 30 proofs verify" verify_dir_cuzk "$T/j2" 30
check "the log names the failed journal write" grep -q "finish: database or disk is full" "$T/daemon.log"
check "still serving" "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --out "$T/j3"

# ---- corrupt journal rows are quarantined, the rest recover; no path is taken from it (items 9, 2) ----
job=$("$CUZK" submit --addr "$ADDR" --circuit sample "${many[@]}")
kill -9 "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null || true
DAEMON_PID=""
mkdir -p "$T/victim"
touch "$T/victim/precious"
sqlite3 "$T/state/journal.sqlite" <<SQL
INSERT INTO jobs (id, request_id, circuit, priority, partitions, state, submitted_ms, witness_dir)
  VALUES ('1-1', '', 'sample', 2, -5, 'accepted', 1, '');
INSERT INTO jobs (id, request_id, circuit, priority, partitions, state, submitted_ms, witness_dir)
  VALUES ('1-2', '', 'sample', 99, 1, 'accepted', 1, '');
INSERT INTO jobs (id, request_id, circuit, priority, partitions, state, submitted_ms, witness_dir)
  VALUES ('../../victim', '', '../x', 2, 1, 'accepted', 1, '$T/victim');
INSERT INTO jobs (id, request_id, circuit, priority, partitions, state, submitted_ms, finished_ms, witness_dir)
  VALUES ('1-3', '', 'sample', 2, 1, 'completed', 1, 1, '$T/victim');
SQL
check "a daemon with corrupt journal rows starts" start_daemon "$T/d.toml"
check "the accepted job recovers and completes" "$CUZK" await --addr "$ADDR" "$job" --out "$T/q1"
check "its proofs verify" verify_dir_cuzk "$T/q1" 30
check "the three bad rows are quarantined" bash -c \
  "[[ \$(sqlite3 '$T/state/journal.sqlite' \"select count(*) from jobs where state = 'quarantined'\") == 3 ]]"
check "the log names the bad field" grep -q "quarantined: partitions -5 is out of range" "$T/daemon.log"
check "a directory named by a journal row is not deleted" test -e "$T/victim/precious"

# ---- a damaged journal goes aside, the restart comes up (item 1) ----
stop_daemon
size=$(stat -c %s "$T/state/journal.sqlite")
dd if=/dev/urandom of="$T/state/journal.sqlite" bs=1024 seek=$((size / 2048)) count=2 conv=notrunc status=none
check "a daemon with a damaged journal starts" start_daemon "$T/d.toml"
check "the damaged journal was moved aside" bash -c "ls '$T/state' | grep -q 'journal.sqlite.damaged-'"
check "and it proves" "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --out "$T/q2"
stop_daemon

# ---- the state directory is the daemon's alone (item 2) ----
check "the state directory is 0700" test "$(stat -c %a "$T/state")" = 700
check "the witness directory is 0700" test "$(stat -c %a "$T/state/jobs")" = 700
start_refused() {  # start_refused CONFIG "message fragment": exit 2 with that message
  local out rc=0
  out=$("$DAEMON" --config "$1" 2>&1) || rc=$?
  [[ $rc == 2 && $out == *"$2"* ]] || { echo "rc=$rc output: $out"; return 1; }
}
chmod 755 "$T/state"
check "a state directory open to others is refused" start_refused "$T/d.toml" "has mode 755"
chmod 700 "$T/state"
mv "$T/state" "$T/real-state"
ln -s "$T/real-state" "$T/state"
check "a state directory that is a symlink is refused" start_refused "$T/d.toml" "is a symlink"
rm "$T/state"
mv "$T/real-state" "$T/state"
if [[ $(id -u) == 0 ]]; then
  chown nobody "$T/state"
  check "a state directory of another user is refused" start_refused "$T/d.toml" "belongs to uid"
  chown root "$T/state"
else
  echo "skip - another user's state directory (needs root to chown)"
fi
write_config "$T/open-sock.toml" "unix://$T/open/cuzk.sock" ""
mkdir -p "$T/open"
chmod 777 "$T/open"
check "a socket directory others can write is refused" start_refused "$T/open-sock.toml" "swap the socket"

# ---- two daemons never share a port (item 8); the status port beyond loopback needs the token ----
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
hp=$(free_port)
write_config "$T/h1.toml" "unix://$T/h1.sock" ""
sed -i "s|^status_listen = .*|status_listen = \"127.0.0.1:$hp\"|; s|^state_dir = .*|state_dir = \"$T/h1-state\"|" "$T/h1.toml"
write_config "$T/h2.toml" "unix://$T/h2.sock" ""
sed -i "s|^status_listen = .*|status_listen = \"127.0.0.1:$hp\"|; s|^state_dir = .*|state_dir = \"$T/h2-state\"|" "$T/h2.toml"
start_daemon "$T/h1.toml"
out=$(timeout 60 "$DAEMON" --config "$T/h2.toml" 2>&1) && rc=0 || rc=$?
port_refused() { [[ $rc != 0 && $rc != 124 && $out == *status_listen* ]] || { echo "rc=$rc output: $out"; return 1; }; }
check "a second daemon on the same HTTP status port is refused" port_refused
stop_daemon
gp=$(free_port)
for k in 1 2; do
  write_config "$T/g$k.toml" "127.0.0.1:$gp" ""
  sed -i "s|^state_dir = .*|state_dir = \"$T/g$k-state\"|" "$T/g$k.toml"
done
"$DAEMON" --config "$T/g1.toml" >"$T/g1.out" 2>&1 &
g1=$!
"$DAEMON" --config "$T/g2.toml" >"$T/g2.out" 2>&1 &
g2=$!
sleep 8
ready=$(cat "$T/g1.out" "$T/g2.out" | grep -c "cuzk-daemon ready" || true)
check "two daemons started at once on one gRPC port: one serves" test "$ready" = 1
kill -TERM "$g1" "$g2" 2>/dev/null || true
wait "$g1" "$g2" 2>/dev/null || true
write_config "$T/open-http.toml" "$ADDR" ""
sed -i "s|^status_listen = .*|status_listen = \"0.0.0.0:0\"|" "$T/open-http.toml"
check "a status port beyond loopback without a token is refused" start_refused "$T/open-http.toml" "daemon.token"
write_config "$T/tok-http.toml" "$ADDR" 'token = "s3cret"'
sed -i "s|^status_listen = .*|status_listen = \"0.0.0.0:0\"|" "$T/tok-http.toml"
start_daemon "$T/tok-http.toml"
sp=$(sed -n 's/.*status http:\/\/0.0.0.0:\([0-9]*\).*/\1/p' "$T/daemon.out" | head -n 1)
check "beyond loopback a scrape without the token gets 401" \
  test "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$sp/metrics")" = 401
check "with the token it is served" bash -c "curl -sf -H 'Authorization: Bearer s3cret' http://127.0.0.1:$sp/metrics | grep -q '^cuzk_up'"
stop_daemon

# ---- an unsatisfiable witness fails once, as bad input; a 128 MiB request costs 2x, not 4x ----
write_config "$T/m.toml" "$ADDR" ""
start_daemon "$T/m.toml"
# The last wire of sample.wtns (t = (sq + a)*(d + 1)) plus one: its constraint no longer holds.
python3 - "$W" "$T/unsat.wtns" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
v = int.from_bytes(b[-32:], "little") + 1
b[-32:] = v.to_bytes(32, "little")
open(sys.argv[2], "wb").write(b)
PY
out=$("$CUZK" prove --addr "$ADDR" --circuit sample --witness "$T/unsat.wtns" --out "$T/u1" 2>&1) && rc=0 || rc=$?
unsat_refused() { [[ $rc == 2 && $out == *"invalid input"* && $out == *"does not satisfy the circuit"* ]] || { echo "rc=$rc output: $out"; return 1; }; }
check "an unsatisfiable witness fails as invalid input (exit 2), named as such" unsat_refused
attempts_of_unsat() { [[ $(grep -o "attempt [0-9]*" <<<"$out" | sort -u | wc -l) == 2 ]] || { echo "output: $out"; return 1; }; }
check "after one confirming attempt, not max_attempts" attempts_of_unsat
check "the daemon proves on" "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --out "$T/u2"

# A key whose header names 2^22 wires (its points are the sample's, so its jobs fail at key load,
# after the request has been taken): the daemon's peak memory for a 128 MiB request.
python3 - "$SAMPLE/sample.zkey" "$T/keys/wide.zkey" "$T/wide.wtns" <<'PY'
import struct, sys
z = bytearray(open(sys.argv[1], "rb").read())
pos, n = 12, 1 << 22
while pos < len(z):
    sid, size = struct.unpack_from("<IQ", z, pos)
    if sid == 2:
        struct.pack_into("<I", z, pos + 12 + 4 + 48 + 4 + 32, n)  # n8q, q, n8r, r, then nVars
    pos += 12 + size
open(sys.argv[2], "wb").write(z)
r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
with open(sys.argv[3], "wb") as f:
    f.write(b"wtns" + struct.pack("<II", 2, 2))
    f.write(struct.pack("<IQI", 1, 40, 32) + r.to_bytes(32, "little") + struct.pack("<I", n))
    f.write(struct.pack("<IQ", 2, 32 * n) + (1).to_bytes(32, "little"))
    f.truncate(f.tell() + 32 * (n - 1))
PY
hwm() { awk '/^VmHWM:/ {print $2}' "/proc/$DAEMON_PID/status"; }
h0=$(hwm)
check "a 128 MiB request is accepted" "$CUZK" submit --addr "$ADDR" --circuit wide --witness "$T/wide.wtns"
h1=$(hwm)
echo "     daemon VmHWM $h0 -> $h1 KiB for a $(( $(stat -c %s "$T/wide.wtns") / 1024 )) KiB request"
# Before the raw parse: +4.0x (gRPC's slices, protobuf's doubling string, the parse's copy and
# the parsed witness); with it 2.0x (gRPC's bytes and the parsed string); with the witness
# streamed to its file as it is parsed, gRPC's receive buffer alone (docs/benchmarks.md).
check "the daemon's peak grew by less than 1.4x the request ($h0 -> $h1 KiB)" test $((h1 - h0)) -lt $((14 * 131072 / 10))
check "a witness that does not fit the key is refused (exit 2)" \
  expect_rc 2 "expects 4194304" submit --addr "$ADDR" --circuit wide --witness "$W"
left=$(find "$T/state/incoming" -type f 2>/dev/null | wc -l)
check "no spooled witness left behind in incoming/ ($left)" test "$left" = 0
check "and it serves on" "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --out "$T/u3"
stop_daemon
rm -f "$T/wide.wtns" "$T/keys/wide.zkey"

# ---- results expire while the daemon runs (result_ttl was applied only at start) ----
write_config "$T/ttl.toml" "$ADDR" "result_ttl = \"2s\""
start_daemon "$T/ttl.toml"
job=$("$CUZK" submit --addr "$ADDR" --circuit sample --witness "$W")
check "a job completes and is awaited" "$CUZK" await --addr "$ADDR" "$job" --out "$T/ttl1"
sleep 4
check "past result_ttl it is gone, the daemon still running" expect_rc 2 "unknown or expired" await --addr "$ADDR" "$job" --out "$T/ttl3"
stop_daemon

# ---- a full disk (a 1 MiB tmpfs; root only) refuses jobs, and a restart on it comes up (item 1) ----
if [[ $(id -u) == 0 ]] && mkdir -p "$T/small" && mount -t tmpfs -o size=1m,mode=700 tmpfs "$T/small" 2>/dev/null; then
  write_config "$T/full.toml" "$ADDR" "" "[chaos]" "enabled = true"
  sed -i "s|^state_dir = .*|state_dir = \"$T/small/state\"|" "$T/full.toml"
  start_daemon "$T/full.toml"
  "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --out "$T/f1" >/dev/null
  dd if=/dev/zero of="$T/small/fill" bs=4k status=none 2>/dev/null || true
  check "on a full disk a submit is refused as unavailable" \
    expect_rc 5 "cannot accept jobs now" submit --addr "$ADDR" --circuit sample "${many[@]}"
  check "status still answers on a full disk" "$CUZK" status --addr "$ADDR"
  kill -9 "$DAEMON_PID"
  wait "$DAEMON_PID" 2>/dev/null || true
  DAEMON_PID=""
  check "a restart on the full disk comes up" start_daemon "$T/full.toml"
  rm -f "$T/small/fill"
  check "with space again it proves" "$CUZK" prove --addr "$ADDR" --circuit sample --witness "$W" --out "$T/f2"
  check "that proof verifies" verify_dir "$T/f2" 1
  stop_daemon
  umount "$T/small"
else
  echo "skip - a full disk (mounting a 1 MiB tmpfs needs root)"
fi

finish
