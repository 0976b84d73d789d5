#include "fil/evaluator.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>

#include "fil/circuit/empty_sector_update.hpp"
#include "fil/circuit/fallback_post.hpp"
#include "fil/circuit/stacked.hpp"
#include "fil/parameter_cache.hpp"
#include "zk/cs/constraint_system.hpp"
#include "zk/error.hpp"

namespace cuzk::fil {

std::string porep_evaluator_key(const seal_proof_info& info) {
  // Named by the first registered proof of its params file: the variants of a sector size share one
  // circuit and one file, which `cuzk fil c2` (naming the C1's proof) and the daemon's key store
  // (naming the params file's) would otherwise record over each other in turn.
  const auto file = parameter_cache_id(info);
  for (const auto& p : seal_proofs())
    if (parameter_cache_id(p) == file) return "cuzk porep " + std::string(p.name) + " partition";
  return "cuzk porep " + std::string(info.name) + " partition";
}

const seal_proof_info* porep_of_evaluator_key(std::string_view key) {
  constexpr std::string_view head = "cuzk porep ", tail = " partition";
  if (!key.starts_with(head) || !key.ends_with(tail) || key.size() < head.size() + tail.size()) return nullptr;
  return find_seal_proof(key.substr(head.size(), key.size() - head.size() - tail.size()));
}

std::string porep_evaluator_path(const std::string& params_path, const std::string& dir) {
  const std::filesystem::path params(params_path);
  const std::filesystem::path d = dir.empty() ? params.parent_path() : std::filesystem::path(dir);
  return (d / (params.stem().string() + ".cuzk-pce")).string();
}

namespace {

// The recorder with a count of the parts appended: the progress of a recording on threads (the
// stacked circuit records (prefix, labelings, suffix) per challenge as parts).
class counting_sink : public zk::cs::parallel_sink {
 public:
  counting_sink(zk::cs::parallel_sink& inner, std::size_t total, const evaluator_progress& progress)
      : inner_(inner), total_(total), progress_(progress) {}
  void constraint(const zk::cs::linear_combination& a, const zk::cs::linear_combination& b,
                  const zk::cs::linear_combination& c) override {
    inner_.constraint(a, b, c);
  }
  std::unique_ptr<zk::cs::constraint_sink> part(std::uint64_t first) override { return inner_.part(first); }
  void append_part(zk::cs::constraint_sink& part) override {
    inner_.append_part(part);
    if (progress_ && ++done_ < total_) progress_("recording the circuit", done_, total_);
  }

 private:
  zk::cs::parallel_sink& inner_;
  std::size_t total_, done_ = 0;
  const evaluator_progress& progress_;
};

// The evaluator's directory must be this user's (or root's) and closed to others' writes, as the
// daemon's state directory is: whoever can write there could swap the evaluator every proof reads.
// (Temporaries are created exclusively in any case: a planted name or link is never followed.)
void check_cache_dir(const std::string& file) { check_evaluator_dir(std::filesystem::path(file).parent_path().string()); }

}  // namespace

void check_evaluator_dir(const std::string& directory) {
  std::filesystem::path dir = directory;
  if (dir.empty()) dir = ".";
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    throw std::runtime_error("evaluator cache " + dir.string() + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) throw std::runtime_error("evaluator cache " + dir.string() + " is not a directory");
  if (st.st_uid != ::geteuid() && st.st_uid != 0)
    throw std::runtime_error("evaluator cache " + dir.string() + " belongs to uid " + std::to_string(st.st_uid) +
                             ", not to this user (uid " + std::to_string(::geteuid()) +
                             ") or root: refused (set [filecoin] evaluator_dir / --evaluator-dir to a directory of yours)");
  if (st.st_mode & 022) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o", unsigned(st.st_mode & 0777));
    throw std::runtime_error("evaluator cache " + dir.string() + " has mode " + mode +
                             ": refused (other users could replace the evaluator); chmod go-w it or set "
                             "[filecoin] evaluator_dir / --evaluator-dir");
  }
}

void record_porep_evaluator(const seal_proof_info& info, const std::string& file, unsigned threads,
                            const evaluator_progress& progress) {
  check_cache_dir(file);
  const auto shape = circuit::porep_shape_of(info);
  zk::groth16::pce_recorder rec(file, porep_evaluator_key(info));
  const std::size_t parts = std::size_t(shape.challenges) * (shape.layers + 2);
  counting_sink counted(rec, parts + 1, progress);  // + 1: the file written
  if (progress) progress("recording the circuit", 0, parts + 1);
  zk::cs::constraint_system cs(counted);
  circuit::stacked_circuit(cs, circuit::blank_porep_partition(shape), threads);
  rec.finish(cs.num_inputs(), cs.num_aux());
  if (progress) progress("recording the circuit", parts + 1, parts + 1);
}

namespace {

// The evaluator in `file` under `key`, or recorded first by record() when absent, of another
// version or circuit, or damaged.
porep_evaluator open_or_record(const std::string& file, const std::string& key, const std::function<void()>& record) {
  namespace g16 = zk::groth16;
  check_cache_dir(file);
  std::error_code ec;
  if (std::filesystem::is_regular_file(file, ec)) {
    try {
      return {std::make_shared<const g16::pce_compact>(g16::pce_compact::open(file, key)), false};
    } catch (const zk::input_error&) {
      // another version, circuit or a damaged file: recorded again below, replacing it
    }
  }
  record();
  return {std::make_shared<const g16::pce_compact>(g16::pce_compact::open(file, key)), true};
}

}  // namespace

porep_evaluator open_porep_evaluator(const seal_proof_info& info, const std::string& file,
                                     const evaluator_progress& progress, unsigned threads) {
  return open_or_record(file, porep_evaluator_key(info),
                        [&] { record_porep_evaluator(info, file, threads, progress); });
}

namespace {

// "cuzk KIND NAME partition" <-> NAME
std::string kind_key(std::string_view kind, std::string_view name) {
  return "cuzk " + std::string(kind) + " " + std::string(name) + " partition";
}
std::string_view name_of_key(std::string_view kind, std::string_view key) {
  const std::string head = "cuzk " + std::string(kind) + " ";
  constexpr std::string_view tail = " partition";
  if (!key.starts_with(head) || !key.ends_with(tail) || key.size() < head.size() + tail.size()) return {};
  return key.substr(head.size(), key.size() - head.size() - tail.size());
}

// A serial circuit recorded into `file` under `key` (progress: 0 of 1, then 1 of 1).
void record_serial(const std::string& file, const std::string& key, const evaluator_progress& progress,
                   const std::function<void(zk::cs::constraint_system&)>& circuit) {
  check_cache_dir(file);
  zk::groth16::pce_recorder rec(file, key);
  if (progress) progress("recording the circuit", 0, 1);
  zk::cs::constraint_system cs(rec);
  circuit(cs);
  rec.finish(cs.num_inputs(), cs.num_aux());
  if (progress) progress("recording the circuit", 1, 1);
}

}  // namespace

std::string update_evaluator_key(const update::update_proof_info& info) { return kind_key("update", info.name); }

const update::update_proof_info* update_of_evaluator_key(std::string_view key) {
  const auto name = name_of_key("update", key);
  return name.empty() ? nullptr : update::find_update_proof(name);
}

void record_update_evaluator(const update::update_proof_info& info, const std::string& file,
                             const evaluator_progress& progress) {
  record_serial(file, update_evaluator_key(info), progress, [&](zk::cs::constraint_system& cs) {
    circuit::empty_sector_update(cs, circuit::blank_update_partition(update::from_sector_size(info.sector_size)));
  });
}

porep_evaluator open_update_evaluator(const update::update_proof_info& info, const std::string& file,
                                      const evaluator_progress& progress) {
  return open_or_record(file, update_evaluator_key(info), [&] { record_update_evaluator(info, file, progress); });
}

std::string post_evaluator_key(const post_proof_info& info) {
  // The API versions of a PoSt share a params file and a circuit: named by the first of them.
  const auto file = parameter_cache_id(info);
  for (const auto& p : post_proofs())
    if (parameter_cache_id(p) == file) return kind_key("post", p.name);
  return kind_key("post", info.name);
}

porep_evaluator open_post_evaluator(const post_proof_info& info, const std::string& file,
                                    const evaluator_progress& progress) {
  const auto key = post_evaluator_key(info);
  return open_or_record(file, key, [&] {
    record_serial(file, key, progress, [&](zk::cs::constraint_system& cs) {
      const circuit::tree_arities shape{info.tree.base, info.tree.sub, info.tree.top};
      std::vector<circuit::post_sector> sectors(
          info.circuit_sector_count(),
          circuit::blank_post_sector(shape, info.sector_size / node_size, info.circuit_challenge_count()));
      circuit::fallback_post(cs, shape, sectors);
    });
  });
}

}  // namespace cuzk::fil
