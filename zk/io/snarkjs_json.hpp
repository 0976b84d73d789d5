// snarkjs's JSON files for Groth16 on BLS12-381: proof.json, public.json, verification_key.json.
//
// Writers reproduce snarkjs byte for byte: decimal strings in normal form, snarkjs's key order, and
// its formatting (JSON.stringify(x, null, 1): one-space indent, no trailing newline). Readers accept
// what snarkjs accepts (affine [x, y, "1"], a third coordinate other than 1 read as Jacobian,
// [x, y] without z) and validate everything: input_error names the file and the JSON path, e.g.
// "proof.json: pi_b[1][0] is not a decimal field element".
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "zk/groth16/types.hpp"

namespace cuzk::zk::io::snarkjs {

using json = nlohmann::ordered_json;

// ---- writing -----------------------------------------------------------------------------------

// Decimal string of a field element's normal form.
template <class F>
std::string decimal(const F& x) {
  return x.to_canonical().to_decimal();
}

json g1_to_json(const bls12_381::g1_affine& p);  // [x, y, "1"]; infinity ["0", "1", "0"]
json g2_to_json(const bls12_381::g2_affine& p);  // [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]

// Fp12 as snarkjs's Gt.toObject: [c0, c1] of Fp6, each [c0, c1, c2] of Fp2, each [c0, c1] decimal.
template <class Fp12>
json fp12_to_json(const Fp12& f) {
  auto fp2 = [](const auto& e) { return json::array({decimal(e.c0), decimal(e.c1)}); };
  auto fp6 = [&](const auto& s) { return json::array({fp2(s.c0), fp2(s.c1), fp2(s.c2)}); };
  return json::array({fp6(f.c0), fp6(f.c1)});
}

json proof_to_json(const groth16::proof& p);
json public_to_json(std::span<const bigint<4>> signals);  // normal-form values
// `alphabeta_12` is e(alpha1, beta2) as fp12_to_json gives it.
json vk_to_json(const groth16::verifying_key& vk, const json& alphabeta_12);
// Computes e(alpha1, beta2) with zk/bls12_381/pairing.hpp.
json vk_to_json(const groth16::verifying_key& vk);

// snarkjs's text for a value: JSON.stringify(x, null, 1).
std::string dump(const json& j);
// Writes dump(j) to `path`; throws std::runtime_error on I/O errors.
void write_file(const std::string& path, const json& j);

// ---- reading -----------------------------------------------------------------------------------
// `name` is what messages call the input (the path when read from a file).

groth16::proof parse_proof(std::string_view text, const std::string& name);
std::vector<bigint<4>> parse_public(std::string_view text, const std::string& name);
// Fills alpha1, beta2, gamma2, delta2 and ic (beta1 and delta1 are not in the JSON: left identity).
groth16::verifying_key parse_vk(std::string_view text, const std::string& name);

groth16::proof read_proof(const std::string& path);
std::vector<bigint<4>> read_public(const std::string& path);
groth16::verifying_key read_vk(const std::string& path);

}  // namespace cuzk::zk::io::snarkjs
