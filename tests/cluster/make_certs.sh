#!/usr/bin/env bash
# make_certs.sh DIR CA NAME...: a test CA (DIR/CA.pem, DIR/CA.key; reused when present) and, for
# each NAME, DIR/NAME.pem (signed by that CA) and DIR/NAME.key (unencrypted). EC P-256: cheap.
# TEST ONLY: the keys are throwaway, valid two days.
set -euo pipefail
dir=$1 ca=$2
shift 2
mkdir -p "$dir"
cd "$dir"
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
if [[ ! -f $ca.pem ]]; then
  openssl req -x509 "${ec[@]}" -keyout "$ca.key" -out "$ca.pem" -days 2 -subj "/CN=cuzk test $ca" 2>/dev/null
fi
for name in "$@"; do
  openssl req "${ec[@]}" -keyout "$name.key" -out "$name.csr" -subj "/CN=$name" 2>/dev/null
  openssl x509 -req -in "$name.csr" -CA "$ca.pem" -CAkey "$ca.key" -CAcreateserial -out "$name.pem" -days 2 2>/dev/null
  rm -f "$name.csr"
done
