// `cuzk fil setup --proof-type NAME --params-dir DIR [--seed N] [--force]`: TEST-ONLY Groth16
// parameters of a Filecoin circuit (fil/test_setup.hpp, streamed: any size, the 32 GiB PoRep in
// ~13 GB of memory) as DIR/<parameters.json name>.params and .vk, which filecoin-proofs (FIL_PROOFS_PARAMETER_CACHE=DIR) and cuzk load as the real files. Beside
// them: the marker DIR/CUZK-TEST-ONLY listing what cuzk made, and DIR/parameters.json with their
// digests, so that `cuzk params check DIR DIR/parameters.json` and the daemon's [filecoin]
// verify_params accept them. A directory holding any parameter file the marker does not list (real
// parameters) is refused; an existing file is replaced only with --force. Exit 0 written, 2 unusable
// input (one line naming the problem; nothing written).
#include <CLI/CLI.hpp>
#include <unistd.h>
#include <fcntl.h>

#include <cerrno>
#include <ctime>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "zk/io/binfile.hpp"
#include "zk/io/json_bounded.hpp"
#include "commands.hpp"
#include "fil/partition.hpp"
#include "fil/test_setup.hpp"
#include "zk/error.hpp"
#include "zk/groth16/random.hpp"
#include "zk/groth16/streaming_setup.hpp"
#include "zk/io/bellperson.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::cli {

namespace {

namespace fs = std::filesystem;

// The circuits `fil setup` makes parameters for: a bare NAME is tried against each kind in this
// order, "LABEL:NAME" asks one kind. A new circuit is one line here once fil::record_circuit knows it.
constexpr std::pair<std::string_view, fil::proof_kind> setup_kinds[] = {
    {"porep", fil::proof_kind::porep_seal_commit},
    {"window-post", fil::proof_kind::window_post_partition},
    {"winning-post", fil::proof_kind::winning_post},
    {"update", fil::proof_kind::snap_deals_update},  // RegisteredUpdateProof names: "update:StackedDrg2KiBV1"
};

std::string registered_name(const fil::circuit_ref& c) {
  return std::string(c.update ? c.update->name : c.seal ? c.seal->name : c.post->name);
}

struct fil_setup_options {
  std::string proof_type, dir, backend = "cpu";
  std::uint64_t seed = 0;
  bool seed_given = false, force = false;
};

fil::circuit_ref resolve(const std::string& name) {
  std::string_view label, bare = name;
  if (const auto colon = name.find(':'); colon != std::string::npos) {
    label = bare.substr(0, colon);
    bare = bare.substr(colon + 1);
  }
  for (const auto& [l, kind] : setup_kinds) {
    if (!label.empty() && label != l) continue;
    try {
      return kind == fil::proof_kind::snap_deals_update ? fil::resolve_update_circuit(bare) : fil::resolve_circuit(kind, bare);
    } catch (const zk::input_error&) {
    } catch (const fil::not_implemented& e) {
      throw zk::input_error("--proof-type " + name + ": " + e.what());
    }
  }
  throw zk::input_error("--proof-type " + name +
                        ": not a registered proof cuzk can set up (e.g. StackedDrg2KiBV1_1, StackedDrgWindow2KiBV1_2, "
                        "StackedDrgWinning2KiBV1, update:StackedDrg2KiBV1)");
}

// DIR made if absent, and a file can be created in it (a probe, since root passes access(2)).
void require_writable_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw zk::input_error("--params-dir " + dir + ": cannot create: " + ec.message());
  if (!fs::is_directory(dir, ec)) throw zk::input_error("--params-dir " + dir + ": not a directory");
  const std::string probe = (fs::path(dir) / (".cuzk-write-probe." + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) throw zk::input_error("--params-dir " + dir + ": not writable: " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

// Entries of parameters.json for the files written, merged into DIR's (ours: the marker lists it).
void write_parameters_json(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& digests,
                           std::uint64_t sector_size) {
  const fs::path path = fs::path(dir) / "parameters.json";
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  std::error_code ec;
  if (fs::exists(path, ec)) {
    try {  // a regular file of at most 16 MiB, nested at most 64 deep (zk/io/json_bounded)
      j = zk::io::parse_ordered_json_bounded(zk::io::read_file_capped(path.string(), std::uint64_t{16} << 20, "parameters.json"),
                                             path.string());
    } catch (const zk::input_error&) {
      j = nlohmann::ordered_json::object();  // ours and damaged: rewritten
    }
    if (!j.is_object()) j = nlohmann::ordered_json::object();
  }
  for (const auto& [file, digest] : digests)
    j[file] = {{"cid", ""}, {"digest", digest}, {"sector_size", sector_size}, {"cuzk_test_only", true}};
  write_file_atomically(path.string(), j.dump(2) + "\n");
}

int fil_setup(const fil_setup_options& o) {
  const auto c = resolve(o.proof_type);
  require_writable_dir(o.dir);
  if (const auto real = fil::first_real_param_file(o.dir); !real.empty())
    throw zk::input_error("--params-dir " + o.dir + " holds real parameters (" + real + " is not listed in its " +
                          std::string(fil::test_only_marker) + "): give an empty directory or one of cuzk's test files");
  const std::string params = (fs::path(o.dir) / c.params_file()).string(), vk = (fs::path(o.dir) / c.vk_file()).string();
  std::error_code ec;
  for (const auto& f : {params, vk})
    if (!o.force && fs::exists(f, ec)) throw zk::input_error(f + ": exists (give --force to replace it)");

  // The device, if one was asked for, before anything is written.
  std::unique_ptr<zk::groth16::point_multiplier> device;
  if (o.backend != "cpu") device = zk::groth16::make_point_multiplier(o.backend);

  std::uint64_t seed = o.seed;
  if (!o.seed_given) zk::groth16::detail::os_random_bytes(&seed, sizeof(seed));
  std::cerr << "WARNING: TEST-ONLY parameters for " << c.describe() << ": toxic waste from seed " << seed
            << "; whoever knows it can forge proofs. Never use them in production.\n";

  // The marker lists the files before they exist: a run stopped half-way leaves no file that a
  // later run would take for real parameters.
  auto marked = fil::read_test_only_marker(o.dir);
  for (const std::string& name : {c.params_file(), c.vk_file(), std::string("parameters.json")}) {
    std::erase_if(marked, [&](const auto& e) { return e.file == name; });
    if (name == "parameters.json") marked.push_back({name, "-", "-"});
    else marked.push_back({name, std::to_string(seed), registered_name(c)});
  }
  fil::write_test_only_marker(o.dir, marked);

  // Written under temporary names, renamed over the files once both are whole: a run stopped
  // half-way leaves the earlier files (or none).
  const std::string suffix = ".tmp." + std::to_string(::getpid());
  struct temporaries {
    std::vector<std::string> paths;
    ~temporaries() {
      for (const auto& p : paths) ::unlink(p.c_str());
    }
  } tmp{{params + suffix, vk + suffix}};
  // Each stage's wall and CPU seconds (the process's, all threads), printed at the end.
  struct stage_time {
    std::string name;
    double wall = 0, cpu = 0;
  };
  std::vector<stage_time> stages;
  const auto cpu_now = [] { return double(std::clock()) / CLOCKS_PER_SEC; };
  auto t_stage = now_ns();
  double cpu_stage = cpu_now();
  auto close_stage = [&] {
    if (stages.empty()) return;
    stages.back().wall = seconds_since(t_stage);
    stages.back().cpu = cpu_now() - cpu_stage;
    t_stage = now_ns();
    cpu_stage = cpu_now();
  };
  std::unique_ptr<progress_bar> bar;
  std::string stage;
  const auto made = fil::stream_test_setup(
      c, seed, tmp.paths[0], tmp.paths[1],
      [&](std::string_view s, std::size_t done, std::size_t total) {
        if (s != stage) {
          close_stage();
          stages.push_back({std::string(s)});
          stage = s;
          bar = std::make_unique<progress_bar>("setup " + registered_name(c) + ": " + stage, false);
        }
        bar->update(done, total);
      },
      0, device.get());
  bar.reset();
  close_stage();
  for (std::size_t i = 0; i < 2; ++i)
    if (std::rename(tmp.paths[i].c_str(), (i == 0 ? params : vk).c_str()) != 0)
      throw zk::input_error((i == 0 ? params : vk) + ": cannot write: " + std::strerror(errno));
  tmp.paths.clear();
  write_parameters_json(o.dir, {{c.params_file(), made.files.params_digest}, {c.vk_file(), made.files.vk_digest}},
                        c.sector_size());
  std::printf("wrote %s (%llu bytes) and %s: TEST-ONLY parameters of %s, seed %llu (%llu constraints, domain 2^%u); "
              "stages (wall / CPU s):",
              params.c_str(), (unsigned long long)made.files.params_bytes, c.vk_file().c_str(), c.describe().c_str(),
              (unsigned long long)seed, (unsigned long long)made.counts.constraints, made.log_domain);
  for (const auto& st : stages) std::printf(" %s %.1f / %.1f;", st.name.c_str(), st.wall, st.cpu);
  std::printf("\n");
  return exit_ok;
}

}  // namespace

void register_fil_setup(CLI::App* fil) {
  auto o = std::make_shared<fil_setup_options>();
  auto* sub = fil->add_subcommand(
      "setup", "Make TEST-ONLY Groth16 parameters (.params, .vk) of a Filecoin circuit under Filecoin's file names");
  sub->add_option("--proof-type", o->proof_type,
                  "registered proof, e.g. StackedDrg2KiBV1_1, StackedDrgWindow2KiBV1_2, StackedDrgWinning2KiBV1 "
                  "(LABEL:NAME picks the kind: porep, window-post, winning-post, update: update:StackedDrg2KiBV1)")
      ->required();
  sub->add_option("--params-dir", o->dir, "where to write them (made if absent; never a directory of real parameters)")
      ->required();
  sub->add_option("--seed", o->seed, "seed of the toxic waste (default: random, printed)");
  sub->add_option("--backend", o->backend,
                  "where the points are made: cpu (all cores) or cuda (the first GPU; the circuit is still "
                  "evaluated on the host)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  sub->add_flag("--force", o->force, "replace the circuit's files when they exist (cuzk's test files only)");
  sub->callback([o, sub] {
    o->seed_given = sub->count("--seed") > 0;
    run_command([&] { return fil_setup(*o); });
  });
}

}  // namespace cuzk::cli
