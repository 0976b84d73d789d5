#!/usr/bin/env node
// Small helpers for the interop tests, independent of cuzk: JSON comparison, tampering with proofs
// and public inputs (keeping every point on the curve, so a verifier must reject them by the pairing
// check, not by parsing), and decoding the 192-byte compressed proof with @noble/curves.
//   node tools.js json-equal A B               exit 0 if the parsed JSON values are equal
//   node tools.js negate-a IN OUT              proof with pi_a replaced by -pi_a (still on the curve)
//   node tools.js swap-ac IN OUT               proof with pi_a and pi_c exchanged
//   node tools.js bump-public IN OUT [i]       public.json with signal i (default 0) replaced by (v + 1) mod r
//   node tools.js npublic PUBLIC               prints the number of public signals
//   node tools.js check-compressed PROOF BIN   BIN (A 48 || B 96 || C 48, zcash encoding) decodes to PROOF's points
//   node tools.js proofs-differ A B            exit 0 if the two proofs' points differ (fresh randomness)
'use strict';
const fs = require('fs');
const path = require('path');

const Q = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn;
const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;

function readJson(file) { return JSON.parse(fs.readFileSync(file, 'utf8')); }
function writeJson(file, value) { fs.writeFileSync(file, JSON.stringify(value, null, 1)); }
function fail(msg) { process.stderr.write(msg + '\n'); process.exit(1); }

function deepEqual(a, b, where) {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null))
    return `${where}: type differs`;
  if (Array.isArray(a)) {
    if (a.length !== b.length) return `${where}: length ${a.length} vs ${b.length}`;
    for (let i = 0; i < a.length; i++) { const d = deepEqual(a[i], b[i], `${where}[${i}]`); if (d) return d; }
    return null;
  }
  if (a && typeof a === 'object') {
    const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
    if (ka.join(',') !== kb.join(',')) return `${where}: keys [${ka}] vs [${kb}]`;
    for (const k of ka) { const d = deepEqual(a[k], b[k], `${where}.${k}`); if (d) return d; }
    return null;
  }
  return a === b ? null : `${where}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
}

// Affine coordinates of a snarkjs JSON point; a third coordinate other than 1 means Jacobian.
function g1Affine(p) {
  const [x, y, z] = p.map(BigInt);
  if (z === 0n) return null;
  if (z === 1n) return { x, y };
  const { Fp } = require('@noble/curves/bls12-381').bls12_381.fields;
  const zi = Fp.inv(z), zi2 = Fp.sqr(zi);
  return { x: Fp.mul(x, zi2), y: Fp.mul(y, Fp.mul(zi2, zi)) };
}
function g2Affine(p) {
  const { Fp2 } = require('@noble/curves/bls12-381').bls12_381.fields;
  const c = p.map(([c0, c1]) => Fp2.create({ c0: BigInt(c0), c1: BigInt(c1) }));
  if (Fp2.is0(c[2])) return null;
  const zi = Fp2.inv(c[2]), zi2 = Fp2.sqr(zi);
  return { x: Fp2.mul(c[0], zi2), y: Fp2.mul(c[1], Fp2.mul(zi2, zi)) };
}

const [cmd, ...args] = process.argv.slice(2);
switch (cmd) {
  case 'json-equal': {
    const d = deepEqual(readJson(args[0]), readJson(args[1]), '$');
    if (d) fail(`JSON differs: ${d}`);
    break;
  }
  case 'negate-a': {
    const p = readJson(args[0]);
    p.pi_a[1] = ((Q - BigInt(p.pi_a[1])) % Q).toString();
    writeJson(args[1], p);
    break;
  }
  case 'swap-ac': {
    const p = readJson(args[0]);
    [p.pi_a, p.pi_c] = [p.pi_c, p.pi_a];
    writeJson(args[1], p);
    break;
  }
  case 'bump-public': {
    const pub = readJson(args[0]);
    const i = Number(args[2] || 0);
    if (i >= pub.length) fail(`public.json has ${pub.length} signals, no index ${i}`);
    pub[i] = ((BigInt(pub[i]) + 1n) % R).toString();
    writeJson(args[1], pub);
    break;
  }
  case 'npublic':
    console.log(readJson(args[0]).length);
    break;
  case 'check-compressed': {
    const { bls12_381 } = require('@noble/curves/bls12-381');
    const proof = readJson(args[0]);
    if (!fs.existsSync(args[1])) fail(`no compressed proof written at ${args[1]}`);
    const bin = fs.readFileSync(args[1]);
    if (bin.length !== 192) fail(`compressed proof is ${bin.length} bytes, expected 192`);
    const a = bls12_381.G1.ProjectivePoint.fromHex(bin.subarray(0, 48)).toAffine();
    const b = bls12_381.G2.ProjectivePoint.fromHex(bin.subarray(48, 144)).toAffine();
    const c = bls12_381.G1.ProjectivePoint.fromHex(bin.subarray(144, 192)).toAffine();
    const ea = g1Affine(proof.pi_a), ec = g1Affine(proof.pi_c), eb = g2Affine(proof.pi_b);
    if (a.x !== ea.x || a.y !== ea.y) fail('compressed A differs from proof.json pi_a');
    if (c.x !== ec.x || c.y !== ec.y) fail('compressed C differs from proof.json pi_c');
    if (b.x.c0 !== eb.x.c0 || b.x.c1 !== eb.x.c1 || b.y.c0 !== eb.y.c0 || b.y.c1 !== eb.y.c1)
      fail('compressed B differs from proof.json pi_b');
    break;
  }
  case 'proofs-differ': {
    const p = readJson(args[0]), q = readJson(args[1]);
    const ka = JSON.stringify(g1Affine(p.pi_a), (k, v) => typeof v === 'bigint' ? v.toString() : v);
    const kb = JSON.stringify(g1Affine(q.pi_a), (k, v) => typeof v === 'bigint' ? v.toString() : v);
    if (ka === kb) fail('two proofs have the same pi_a: the prover did not draw fresh r, s');
    break;
  }
  default:
    fail(`usage: ${path.basename(process.argv[1])} json-equal|negate-a|swap-ac|bump-public|npublic|check-compressed|proofs-differ ...`);
}
