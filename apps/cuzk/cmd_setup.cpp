// `cuzk setup <r1cs> <out> [--seed N] [--format snarkjs|bellperson]`: a TEST-ONLY proving key (see
// zk/groth16/setup.hpp). bellperson: OUT is the .params file, its .vk goes next to it (OUT with
// ".params" replaced by ".vk", or ".vk" appended).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "zk/groth16/random.hpp"
#include "zk/groth16/setup.hpp"
#include "zk/error.hpp"
#include "zk/io/bellperson.hpp"
#include "zk/io/r1cs.hpp"
#include "zk/io/zkey_writer.hpp"

namespace cuzk::cli {

namespace {
struct setup_options {
  std::string r1cs, zkey, format = "snarkjs";
  std::uint64_t seed = 0;
  bool seed_given = false;
};
}  // namespace

void register_setup(CLI::App& app) {
  auto opt = std::make_shared<setup_options>();
  auto* sub = app.add_subcommand("setup", "Make a TEST-ONLY Groth16 key from an .r1cs (toxic waste from a seed)");
  sub->add_option("r1cs", opt->r1cs, "circuit (.r1cs, BLS12-381)")->required();
  sub->add_option("out", opt->zkey, "output proving key (.zkey; bellperson: .params, and its .vk beside it)")->required();
  sub->add_option("--format", opt->format, "snarkjs (default) | bellperson (Filecoin's .params/.vk layout)");
  sub->add_option("--seed", opt->seed, "seed of the toxic waste (default: random, printed)");
  sub->callback([opt, sub] {
    run_command([&] {
      auto t0 = now_ns();
      auto cs = zk::io::r1cs::load(opt->r1cs);
      double t_load = seconds_since(t0);
      std::uint64_t seed = opt->seed;
      if (sub->count("--seed") == 0) zk::groth16::detail::os_random_bytes(&seed, sizeof(seed));
      std::cerr << "WARNING: TEST-ONLY KEY: toxic waste derived from seed " << seed
                << "; never use in production\n";
      const bool bp = opt->format == "bellperson";
      if (!bp && opt->format != "snarkjs") throw zk::input_error("--format: " + opt->format + " (snarkjs | bellperson)");
      t0 = now_ns();
      auto key = zk::groth16::setup(cs, zk::groth16::toxic_waste_from_seed(seed),
                                    bp ? zk::io::key_convention::bellperson : zk::io::key_convention::snarkjs);
      double t_setup = seconds_since(t0);
      t0 = now_ns();
      if (bp) {
        std::string vk_path = opt->zkey;
        if (vk_path.size() > 7 && vk_path.compare(vk_path.size() - 7, 7, ".params") == 0) vk_path.resize(vk_path.size() - 7);
        vk_path += ".vk";
        zk::io::write_bellperson_params(opt->zkey, key);
        zk::io::write_bellperson_vk(vk_path, key.vk);
      } else {
        zk::io::write_zkey(opt->zkey, zk::io::parts_of(key));
      }
      double t_write = seconds_since(t0);
      std::fprintf(stderr, "setup: %u constraints, %u wires, %u public, domain 2^%u; load %.3f s, setup %.3f s, write %.3f s\n",
                   cs.n_constraints, cs.n_wires, cs.n_public(), key.log_domain, t_load, t_setup, t_write);
      return int(exit_ok);
    });
  });
}

}  // namespace cuzk::cli
