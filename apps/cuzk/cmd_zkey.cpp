// `cuzk zkey export-vk <zkey> <vk.json>`: snarkjs's zkey export verificationkey, byte for byte.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "zk/io/snarkjs_json.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::cli {

namespace {
struct export_vk_options {
  std::string zkey, out;
};
}  // namespace

void register_zkey(CLI::App& app) {
  auto* zkey = app.add_subcommand("zkey", "Proving key tools");
  zkey->require_subcommand(1);
  auto opt = std::make_shared<export_vk_options>();
  auto* exp = zkey->add_subcommand("export-vk", "Write the verification key as snarkjs's verification_key.json");
  exp->add_option("zkey", opt->zkey, "proving key (.zkey)")->required();
  exp->add_option("vk", opt->out, "output verification_key.json")->required();
  exp->callback([opt] {
    run_command([&] {
      auto key = zk::io::zkey::load(opt->zkey);
      write_file_atomically(opt->out, zk::io::snarkjs::dump(zk::io::snarkjs::vk_to_json(key.vk)));
      return int(exit_ok);
    });
  });
}

}  // namespace cuzk::cli
