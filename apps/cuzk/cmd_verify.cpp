// `cuzk verify <vk.json> <public.json> <proof.json>`: snarkjs's groth16 verify.
// `cuzk verify --vk FILE.vk --public inputs.json --proof proof.bin`: bellperson's form: N proofs of
// 192 bytes concatenated (partitions), one public-input vector each, checked in one batched pairing
// equation (zk/groth16/verifier.hpp verify_batch); the answer names the partitions that fail.
// inputs.json: an array of values (one partition), an array of arrays, or fil-oracle's
// {"public_inputs": [{"inputs": [...]}, ...]}; a value is a decimal string, "0x" hex, or 64 hex
// digits (big-endian, fil-oracle's "hex-be32"). ONE is not listed.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "zk/error.hpp"
#include "zk/groth16/compressed_proof.hpp"
#include "zk/io/bellperson.hpp"
#include "zk/io/json_bounded.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/snarkjs_json.hpp"

namespace cuzk::cli {

namespace {
struct verify_options {
  std::string vk, pub, proof;
  std::string bp_vk, bp_public, bp_proof;
};

using zk::bigint;

// Public inputs as JSON: ~80 bytes a value; a Filecoin partition has at most a few thousand.
constexpr std::uint64_t kMaxInputsJsonBytes = std::uint64_t{64} << 20;

bigint<4> parse_value(const nlohmann::json& v, const std::string& where) {
  if (!v.is_string()) throw zk::input_error(where + ": not a string");
  std::string s = v.get<std::string>();
  bool plain_hex = s.size() == 64 && s.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
  auto r = bigint<4>::parse(plain_hex ? "0x" + s : s);
  if (!r) throw zk::input_error(where + ": \"" + s + "\" is not a number (decimal, 0x hex or 64 hex digits)");
  if (!zk::bls12_381::fr::is_canonical(*r)) throw zk::input_error(where + ": not below the scalar field's modulus");
  return *r;
}

std::vector<std::vector<bigint<4>>> read_inputs(const std::string& path) {
  const nlohmann::json j = zk::io::read_json_file(path, kMaxInputsJsonBytes, "public-inputs JSON file");
  std::vector<nlohmann::json> parts;
  if (j.is_object() && j.contains("public_inputs") && j["public_inputs"].is_array()) {
    for (std::size_t k = 0; k < j["public_inputs"].size(); ++k) {
      const auto& e = j["public_inputs"][k];
      if (!e.is_object() || !e.contains("inputs") || !e["inputs"].is_array())
        throw zk::input_error(path + ": public_inputs[" + std::to_string(k) + "]: no \"inputs\" array");
      parts.push_back(e["inputs"]);
    }
  } else if (j.is_array() && !j.empty() && j[0].is_array()) {
    for (const auto& e : j) parts.push_back(e);
  } else if (j.is_array()) {
    parts.push_back(j);
  } else {
    throw zk::input_error(path + ": not an array of inputs, an array of arrays, or {\"public_inputs\": [...]}");
  }
  std::vector<std::vector<bigint<4>>> out;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (!parts[k].is_array()) throw zk::input_error(path + ": partition " + std::to_string(k) + ": not an array");
    std::vector<bigint<4>> v;
    for (std::size_t i = 0; i < parts[k].size(); ++i)
      v.push_back(parse_value(parts[k][i], path + ": partition " + std::to_string(k) + " input " + std::to_string(i)));
    out.push_back(std::move(v));
  }
  return out;
}

int verify_bellperson(const verify_options& o) {
  auto t0 = now_ns();
  auto inputs = read_inputs(o.bp_public);
  // 192 bytes a partition, one partition per input vector: nothing larger is read.
  auto proofs = zk::groth16::proofs_from_compressed(
      read_input_file(o.bp_proof, 192 * std::uint64_t(inputs.size()),
                      "proof of " + std::to_string(inputs.size()) + " partitions"),
      o.bp_proof);
  auto vk = zk::io::read_bellperson_vk(o.bp_vk);
  if (inputs.size() != proofs.size())
    throw zk::input_error(o.bp_public + ": " + std::to_string(inputs.size()) + " input vectors for " +
                          std::to_string(proofs.size()) + " proofs in " + o.bp_proof);
  for (std::size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k].size() != vk.n_public())
      throw zk::input_error(o.bp_public + ": partition " + std::to_string(k) + " has " + std::to_string(inputs[k].size()) +
                            " inputs, " + o.bp_vk + " expects " + std::to_string(vk.n_public()));
  auto pvk = zk::groth16::prepare(vk);
  auto verdict = zk::groth16::verify_batch(pvk, inputs, proofs);
  const double t = seconds_since(t0);
  if (!verdict.all_valid) {
    std::string list;
    for (auto k : verdict.invalid) list += (list.empty() ? "" : ", ") + std::to_string(k);
    std::cout << "INVALID: partition" << (verdict.invalid.size() > 1 ? "s " : " ") << list << " of " << proofs.size()
              << " do" << (verdict.invalid.size() > 1 ? "" : "es") << " not verify\n";
    return int(exit_invalid);
  }
  std::cout << "OK: " << proofs.size() << " proof" << (proofs.size() > 1 ? "s" : "") << " valid\n";
  std::fprintf(stderr, "verify: %zu proofs, %.3f ms\n", proofs.size(), t * 1e3);
  return int(exit_ok);
}

}  // namespace

void register_verify(CLI::App& app) {
  auto opt = std::make_shared<verify_options>();
  auto* sub = app.add_subcommand("verify", "Verify a Groth16 proof (exit 0 valid, 1 invalid, 2 bad input)");
  sub->add_option("vk", opt->vk, "verification_key.json (snarkjs zkey export verificationkey)");
  sub->add_option("public", opt->pub, "public.json");
  sub->add_option("proof", opt->proof, "proof.json");
  sub->add_option("--vk", opt->bp_vk, "bellperson form: the .vk file");
  sub->add_option("--public", opt->bp_public, "bellperson form: public inputs JSON (one vector per partition)");
  sub->add_option("--proof", opt->bp_proof, "bellperson form: proof.bin (192 bytes per partition)");
  sub->callback([opt] {
    run_command([&] {
      if (!opt->bp_vk.empty() || !opt->bp_public.empty() || !opt->bp_proof.empty()) {
        if (opt->bp_vk.empty() || opt->bp_public.empty() || opt->bp_proof.empty())
          throw zk::input_error("verify: the bellperson form needs --vk, --public and --proof");
        return verify_bellperson(*opt);
      }
      if (opt->vk.empty() || opt->pub.empty() || opt->proof.empty())
        throw zk::input_error("verify: needs VK PUBLIC PROOF (snarkjs JSON) or --vk --public --proof (bellperson)");
      namespace js = zk::io::snarkjs;
      auto vk = js::read_vk(opt->vk);
      auto pub = js::read_public(opt->pub);
      auto pi = js::read_proof(opt->proof);
      if (pub.size() != vk.n_public()) {
        std::cout << "INVALID: " << opt->pub << " has " << pub.size() << " public inputs, " << opt->vk
                  << " expects " << vk.n_public() << "\n";
        return int(exit_invalid);
      }
      if (!zk::groth16::verify(vk, pub, pi)) {
        std::cout << "INVALID: the proof does not satisfy the verification equation for these public inputs\n";
        return int(exit_invalid);
      }
      std::cout << "OK: proof is valid\n";
      return int(exit_ok);
    });
  });
}

}  // namespace cuzk::cli
