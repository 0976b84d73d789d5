// cuzk: a Groth16 prover for BLS12-381, compatible with snarkjs/circom files.
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>

#include "client/client.hpp"
#include "commands.hpp"
#include "zk/util/cpu_features.hpp"

int main(int argc, char** argv) {
  CLI::App app{"cuzk: Groth16 prover for BLS12-381, compatible with snarkjs and circom files"};
  app.set_version_flag("--version", std::string("cuzk ") + CUZK_VERSION);
  app.require_subcommand(1);
  // The library reads no environment: CUZK_NO_IFMA (and --no-ifma) are read here.
  cuzk::zk::set_ifma_allowed(!cuzk::zk::ifma_off_requested(std::getenv("CUZK_NO_IFMA")));
  app.add_flag_callback("--no-ifma", [] { cuzk::zk::set_ifma_allowed(false); },
                        "scalar CPU arithmetic only (no AVX-512 IFMA paths; also CUZK_NO_IFMA=1)");
  cuzk::cli::register_prove(app);
  cuzk::cli::register_verify(app);
  cuzk::cli::register_zkey(app);
  cuzk::cli::register_setup(app);
  cuzk::cli::register_bench(app);
  cuzk::cli::register_fil(app);
  cuzk::cli::register_params(app);
  cuzk::cli::register_doctor(app);
  cuzk::cli::register_client(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return cuzk::cli::exit_bad_input;
  }
  return cuzk::cli::exit_status();
}
