#!/usr/bin/env node
// Writes BLS12-381 test vectors computed by @noble/curves (an independent implementation) to the
// JSON file named by argv[2]; tests/noble/noble_vectors_test.cpp reads them. Deterministic: the
// random scalars come from a seeded generator (argv[3] overrides the seed), so a failure reproduces.
'use strict';
const fs = require('fs');
const { bls12_381 } = require('@noble/curves/bls12-381');

const out = process.argv[2];
if (!out) {
  console.error('usage: gen_vectors.js OUT.json [SEED]');
  process.exit(2);
}
let seed = BigInt(process.argv[3] || '0x5eed0f000bad5eed');

// splitmix64: small, seedable, good enough for test inputs.
const M64 = (1n << 64n) - 1n;
function next64() {
  seed = (seed + 0x9e3779b97f4a7c15n) & M64;
  let z = seed;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}
function randBelow(n) {
  let x = 0n;
  for (let i = 0; i < 8; i++) x = (x << 64n) | next64();
  return x % n;
}

const { G1, G2, fields } = bls12_381;
const { Fp, Fr, Fp12 } = fields;
const r = Fr.ORDER, p = Fp.ORDER;
const hex = (x) => '0x' + x.toString(16);
const bytesHex = (b) => Buffer.from(b).toString('hex');
const fp12List = (f) => {
  const l = [];
  for (const c6 of [f.c0, f.c1]) for (const c2 of [c6.c0, c6.c1, c6.c2]) l.push(hex(c2.c0), hex(c2.c1));
  return l;
};
const randFp12 = () => Fp12.fromBigTwelve(Array.from({ length: 12 }, () => randBelow(p)));

const v = { g1: [], g2: [], pairings: [], fp12: [], final_exp: [] };

// Scalar multiples: edge scalars and random ones.
const scalars = [1n, 2n, 3n, r - 1n, r - 2n];
for (let i = 0; i < 12; i++) scalars.push(1n + randBelow(r - 1n));
for (const k of scalars) {
  v.g1.push({ k: hex(k), compressed: bytesHex(G1.Point.BASE.multiply(k).toBytes(true)) });
  v.g2.push({ k: hex(k), compressed: bytesHex(G2.Point.BASE.multiply(k).toBytes(true)) });
}

// Pairings of random multiples of the generators.
for (let i = 0; i < 6; i++) {
  const a = 1n + randBelow(r - 1n), b = 1n + randBelow(r - 1n);
  const P = G1.Point.BASE.multiply(a), Q = G2.Point.BASE.multiply(b);
  v.pairings.push({ a: hex(a), b: hex(b), p: bytesHex(P.toBytes(true)), q: bytesHex(Q.toBytes(true)),
                    e: fp12List(bls12_381.pairing(P, Q)) });
}

// Fp12 arithmetic on random elements.
for (let i = 0; i < 8; i++) {
  const x = randFp12(), y = randFp12();
  v.fp12.push({
    x: fp12List(x), y: fp12List(y), mul: fp12List(Fp12.mul(x, y)), sqr: fp12List(Fp12.sqr(x)),
    inv: fp12List(Fp12.inv(x)), frob1: fp12List(Fp12.frobeniusMap(x, 1)),
    frob2: fp12List(Fp12.frobeniusMap(x, 2)), frob3: fp12List(Fp12.frobeniusMap(x, 3)),
  });
}

// Final exponentiation of arbitrary Fp12 elements (independent of any Miller loop).
for (let i = 0; i < 3; i++) {
  const x = randFp12();
  v.final_exp.push({ x: fp12List(x), y: fp12List(Fp12.finalExponentiate(x)) });
}

fs.writeFileSync(out, JSON.stringify(v, null, 1));
