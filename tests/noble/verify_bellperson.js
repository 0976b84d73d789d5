#!/usr/bin/env node
// Groth16 verification of bellperson-format files by @noble/curves (an independent BLS12-381):
//   verify_bellperson.js KEY.vk PUBLIC.json PROOF.bin
// KEY.vk: bellperson's uncompressed layout (docs/formats.md); PUBLIC.json: one partition's inputs
// (an array of decimal or 0x-hex strings, ONE excluded) or an array of such arrays; PROOF.bin: 192
// bytes per partition (A || B || C compressed). Checks e(A, B) == e(alpha, beta) e(vk_x, gamma)
// e(C, delta) for every partition. Exit 0 all valid, 1 one invalid, 2 unusable input.
'use strict';
const fs = require('fs');
const { bls12_381 } = require('@noble/curves/bls12-381');
const { G1, G2, fields } = bls12_381;
const { Fp12, Fr } = fields;

function fail(code, msg) {
  console.error(msg);
  process.exit(code);
}
const [vkPath, pubPath, proofPath] = process.argv.slice(2);
if (!proofPath) fail(2, 'usage: verify_bellperson.js KEY.vk PUBLIC.json PROOF.bin');

const vk = fs.readFileSync(vkPath);
const hex = (b) => Buffer.from(b).toString('hex');
let at = 0;
const g1u = () => { const p = G1.ProjectivePoint.fromHex(hex(vk.subarray(at, at + 96))); at += 96; return p; };
const g2u = () => { const p = G2.ProjectivePoint.fromHex(hex(vk.subarray(at, at + 192))); at += 192; return p; };
const alpha = g1u(), beta1 = g1u(), beta2 = g2u(), gamma = g2u(), delta1 = g1u(), delta2 = g2u();
const nIc = vk.readUInt32BE(at);
at += 4;
const ic = [];
for (let i = 0; i < nIc; i++) ic.push(g1u());
if (at !== vk.length) fail(2, `${vkPath}: ${vk.length - at} trailing bytes`);
void beta1, void delta1;

let pub = JSON.parse(fs.readFileSync(pubPath, 'utf8'));
if (pub.length === 0 || !Array.isArray(pub[0])) pub = [pub];
const proofs = fs.readFileSync(proofPath);
if (proofs.length === 0 || proofs.length % 192 !== 0) fail(2, `${proofPath}: ${proofs.length} bytes`);
if (proofs.length / 192 !== pub.length) fail(2, `${pubPath}: ${pub.length} vectors for ${proofs.length / 192} proofs`);

const ab = bls12_381.pairing(alpha, beta2);
let bad = [];
for (let k = 0; k < pub.length; k++) {
  const pr = proofs.subarray(192 * k, 192 * (k + 1));
  const A = G1.ProjectivePoint.fromHex(hex(pr.subarray(0, 48)));
  const B = G2.ProjectivePoint.fromHex(hex(pr.subarray(48, 144)));
  const C = G1.ProjectivePoint.fromHex(hex(pr.subarray(144, 192)));
  if (pub[k].length !== nIc - 1) fail(2, `partition ${k}: ${pub[k].length} inputs, the vk has ${nIc - 1}`);
  let x = ic[0];
  pub[k].forEach((s, i) => {
    const v = BigInt(s);
    if (v >= Fr.ORDER) fail(2, `partition ${k} input ${i} >= r`);
    if (v !== 0n) x = x.add(ic[i + 1].multiply(v));
  });
  const lhs = bls12_381.pairing(A, B);
  const rhs = Fp12.mul(Fp12.mul(ab, bls12_381.pairing(x, gamma)), bls12_381.pairing(C, delta2));
  if (!Fp12.eql(lhs, rhs)) bad.push(k);
}
if (bad.length) fail(1, `INVALID: partitions ${bad.join(', ')}`);
console.log(`OK: ${pub.length} proof(s) valid (@noble/curves)`);
