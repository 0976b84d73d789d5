// `cuzk fil snap` and `cuzk fil verify-update`: SnapDeals (EmptySectorUpdate) proofs.
//   snap           the SNARK of an update from its vanilla PartitionProofs (one bincode file per
//                  partition, in partition order, as Curio sends them), every partition checked
//                  (fil/update/vanilla_verify), proved and the whole proof verified before the file
//                  is written
//   verify-update  a proof (192 B per partition) against comm_r_old, comm_r_new and comm_d_new
//   synth-update   PartitionProofs that verify and satisfy the circuit, for a sector never sealed
//                  (fil/synthetic: zero deal data, so comm_r_new = comm_r_old), and their update.json
// A sector is named by its size; its commitments are 64 hex digits each. Exit 0 valid, 1 invalid,
// 2 unusable input (one line naming the option, file or field), 3 a computed proof that does not
// verify (nothing written).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cmd_fil.hpp"
#include "commands.hpp"
#include "fil/io/update_bincode.hpp"
#include "fil/partition.hpp"
#include "fil/prove/prove.hpp"
#include "fil/synthetic.hpp"
#include "fil/update/vanilla_verify.hpp"
#include "zk/error.hpp"

namespace cuzk::cli {

namespace {

struct snap_options {
  std::string sector_size, comm_r_old, comm_r_new, comm_d_new, proof, out_dir;
  std::uint64_t seed = 1;
  std::vector<std::string> vanilla;
  fil_prove_target target;
  fil_vk_source vk;
};

fil::circuit_ref snap_circuit(const std::string& size) {
  const auto* p = fil::update::find_update_proof("StackedDrg" + size + "V1");
  if (!p) throw zk::input_error("--sector-size " + size + ": not a SnapDeals sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)");
  return fil::resolve_update_circuit(p->name);
}

fil::update::commitments commitments_of(const snap_options& o) {
  fil::update::commitments c;
  c.comm_r_old = fil::domain_from_hex(o.comm_r_old, "--comm-r-old");
  c.comm_r_new = fil::domain_from_hex(o.comm_r_new, "--comm-r-new");
  c.comm_d_new = fil::domain_from_hex(o.comm_d_new, "--comm-d-new");
  fil::domain_to_fr(c.comm_r_old, "--comm-r-old");
  fil::domain_to_fr(c.comm_r_new, "--comm-r-new");
  fil::domain_to_fr(c.comm_d_new, "--comm-d-new");
  return c;
}

int prove_snap(const snap_options& o) {
  const auto c = snap_circuit(o.sector_size);
  const auto comms = commitments_of(o);
  std::vector<fil::prove::named_bytes> vanilla;
  // A 64 GiB partition's proof is under 1 MiB (86 challenges x three Merkle paths).
  constexpr std::uint64_t max_partition_proof_bytes = 8ull << 20;
  for (const auto& f : o.vanilla)
    vanilla.push_back({f, read_input_file(f, max_partition_proof_bytes, "SnapDeals PartitionProof")});
  // Every partition's vanilla proof is checked before anything is proved.
  const auto job = fil::prove::update_partitions(c, comms, std::move(vanilla));
  return fil_prove_and_write(o.target, c, job.partitions.size(),
                             [&](std::size_t k) { return fil::prove::synthesize_update_partition(job, k); },
                             "update of comm_r_old " + o.comm_r_old.substr(0, 16) + "...");
}

int verify_update(const snap_options& o) {
  const auto c = snap_circuit(o.sector_size);
  const auto comms = commitments_of(o);
  const auto pp = fil::update::from_sector_size(c.sector_size());
  const auto proofs = fil_load_proofs(o.proof, pp.partition_count, c.describe());
  const auto vk = fil_load_vk(o.vk, c.vk_file().substr(0, c.vk_file().size() - 3));
  std::vector<std::vector<fil::fr>> inputs;
  for (unsigned k = 0; k < pp.partition_count; ++k) inputs.push_back(fil::update::public_inputs(pp, k, comms));
  return fil_verify_partitions(vk, inputs, proofs, c.describe() + " proof");
}

int synth_update(const snap_options& o) {
  const auto c = snap_circuit(o.sector_size);
  const auto syn = fil::synthetic_update_proofs(c.sector_size(), o.seed);
  std::filesystem::create_directories(o.out_dir);
  nlohmann::json j{{"registered_proof", std::string(c.update->name)},
                   {"sector_size", c.sector_size()},
                   {"seed", o.seed},
                   {"comm_r_old", fil::to_hex(syn.comms.comm_r_old)},
                   {"comm_r_new", fil::to_hex(syn.comms.comm_r_new)},
                   {"comm_d_new", fil::to_hex(syn.comms.comm_d_new)},
                   {"partitions", syn.partitions.size()},
                   {"vanilla", nlohmann::json::array()}};
  for (std::size_t k = 0; k < syn.partitions.size(); ++k) {
    const std::string name = "vanilla-" + std::to_string(k) + ".bin";
    const auto bytes = fil::io::to_bincode(syn.partitions[k]);
    write_file_atomically(o.out_dir + "/" + name, std::span<const std::uint8_t>(bytes));
    j["vanilla"].push_back(name);
  }
  write_file_atomically(o.out_dir + "/update.json", j.dump(2) + "\n");
  std::cout << "wrote " << o.out_dir << "/update.json and " << syn.partitions.size() << " PartitionProof file"
            << (syn.partitions.size() == 1 ? "" : "s") << "\n";
  return exit_ok;
}

void add_sector_options(CLI::App* sub, snap_options& o) {
  sub->add_option("--sector-size", o.sector_size, "2KiB, 8MiB, 512MiB, 32GiB or 64GiB")->required();
  sub->add_option("--comm-r-old", o.comm_r_old, "the sector's CommR before the update, 64 hex digits")->required();
  sub->add_option("--comm-r-new", o.comm_r_new, "CommR after the update, 64 hex digits")->required();
  sub->add_option("--comm-d-new", o.comm_d_new, "CommD of the new data, 64 hex digits")->required();
}

}  // namespace

void register_fil_snap(CLI::App& fil) {
  auto o = std::make_shared<snap_options>();
  auto* snap = fil.add_subcommand("snap", "Prove a SnapDeals update from its vanilla partition proofs (verified before it is written)");
  add_sector_options(snap, *o);
  snap->add_option("--vanilla", o->vanilla, "bincode PartitionProof, one per partition in partition order")
      ->required()
      ->expected(1, -1);
  snap->add_option("--params-dir", o->target.params_dir, "parameter cache (FIL_PROOFS_PARAMETER_CACHE): the .params is found by name")
      ->required();
  snap->add_option("--out", o->target.out, "proof: 192 bytes per partition, concatenated")->required();
  snap->add_option("--evaluator-dir", o->target.evaluator_dir,
                   "where the update circuit's compact evaluator is cached (default: --params-dir; recorded once per size)");
  snap->add_option("--backend", o->target.backend, "auto | cpu | cuda (auto: cuda when built and a device is present)");
  snap->add_flag("--timings", o->target.timings, "the stage split on stderr");
  snap->callback([o] { run_command([&] { return prove_snap(*o); }); });

  auto* vu = fil.add_subcommand("verify-update", "Verify a SnapDeals update proof (exit 0 valid, 1 invalid, 2 bad input)");
  add_sector_options(vu, *o);
  vu->add_option("--proof", o->proof, "proof: 192 bytes per partition, concatenated")->required();
  vu->add_option("--params-dir", o->vk.params_dir, "parameter cache (FIL_PROOFS_PARAMETER_CACHE): the .vk is found by name");
  vu->add_option("--vk", o->vk.vk, "the verifying key file itself (instead of --params-dir)");
  vu->add_option("--vk-format", o->vk.vk_format, "bellperson (.vk, uncompressed points) or compressed")
      ->check(CLI::IsMember({"bellperson", "compressed"}));
  vu->callback([o] { run_command([&] { return verify_update(*o); }); });

  auto* su = fil.add_subcommand("synth-update", "Write SnapDeals PartitionProofs that verify, for a sector never sealed (test data)");
  su->add_option("--sector-size", o->sector_size, "2KiB, 8MiB, 512MiB, 32GiB or 64GiB")->required();
  su->add_option("--seed", o->seed, "seed of the random tree leaves and comm_c");
  su->add_option("--out", o->out_dir, "directory: update.json and vanilla-K.bin")->required();
  su->callback([o] { run_command([&] { return synth_update(*o); }); });
}

}  // namespace cuzk::cli
