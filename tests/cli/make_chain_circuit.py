#!/usr/bin/env python3
"""Writes a BLS12-381 .r1cs and a satisfying .wtns of any size, without circom (for `cuzk setup`
benchmarks and CLI tests).

Wires: 0 = 1, 1 = out (public output), 2 = x0 (public input), 3 = x1 (private input), 4.. internal.
Constraint k: (p1 + a_k) * (b_k * p2 + 1) = next, where p1, p2 are the two previous values of the
chain (x1, x0 at the start) and a_k, b_k pseudo-random constants; the last constraint's result is out.

usage: make_chain_circuit.py N_CONSTRAINTS OUT.r1cs OUT.wtns [SEED]
"""
import random
import struct
import sys

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001


def fe(v):
    return (v % R).to_bytes(32, "little")


def section(sid, payload):
    return struct.pack("<IQ", sid, len(payload)) + payload


def main():
    n = int(sys.argv[1])
    r1cs_path, wtns_path = sys.argv[2], sys.argv[3]
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    if n < 1:
        sys.exit("need at least one constraint")
    n_wires = 4 + (n - 1)
    values = [0] * n_wires
    values[0] = 1
    values[2] = rng.randrange(R)
    values[3] = rng.randrange(R)
    cons = bytearray()
    p2, p1 = 2, 3  # wire indices of the two previous chain values
    for k in range(n):
        a, b = rng.randrange(R), rng.randrange(R)
        nxt = 1 if k == n - 1 else 4 + k
        values[nxt] = (values[p1] + a) * (b * values[p2] + 1) % R
        cons += struct.pack("<I", 2) + struct.pack("<I", p1) + fe(1) + struct.pack("<I", 0) + fe(a)
        cons += struct.pack("<I", 2) + struct.pack("<I", p2) + fe(b) + struct.pack("<I", 0) + fe(1)
        cons += struct.pack("<I", 1) + struct.pack("<I", nxt) + fe(1)
        p2, p1 = p1, nxt
    header = struct.pack("<I", 32) + R.to_bytes(32, "little")
    header += struct.pack("<IIIIQI", n_wires, 1, 1, 1, n_wires, n)
    labels = b"".join(struct.pack("<Q", i) for i in range(n_wires))
    with open(r1cs_path, "wb") as f:
        f.write(b"r1cs" + struct.pack("<II", 1, 3))
        f.write(section(1, header) + section(2, bytes(cons)) + section(3, labels))
    wh = struct.pack("<I", 32) + R.to_bytes(32, "little") + struct.pack("<I", n_wires)
    with open(wtns_path, "wb") as f:
        f.write(b"wtns" + struct.pack("<II", 2, 2))
        f.write(section(1, wh) + section(2, b"".join(fe(v) for v in values)))


if __name__ == "__main__":
    main()
