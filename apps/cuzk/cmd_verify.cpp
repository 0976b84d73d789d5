// `cuzk verify <vk.json> <public.json> <proof.json>`: snarkjs's groth16 verify.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/snarkjs_json.hpp"

namespace cuzk::cli {

namespace {
struct verify_options {
  std::string vk, pub, proof;
};
}  // namespace

void register_verify(CLI::App& app) {
  auto opt = std::make_shared<verify_options>();
  auto* sub = app.add_subcommand("verify", "Verify a Groth16 proof (exit 0 valid, 1 invalid, 2 bad input)");
  sub->add_option("vk", opt->vk, "verification_key.json (snarkjs zkey export verificationkey)")->required();
  sub->add_option("public", opt->pub, "public.json")->required();
  sub->add_option("proof", opt->proof, "proof.json")->required();
  sub->callback([opt] {
    run_command([&] {
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
