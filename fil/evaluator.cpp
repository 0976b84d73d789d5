#include "fil/evaluator.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

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

porep_evaluator open_porep_evaluator(const seal_proof_info& info, const std::string& file,
                                     const evaluator_progress& progress, unsigned threads) {
  namespace g16 = zk::groth16;
  const std::string key = porep_evaluator_key(info);
  check_cache_dir(file);
  std::error_code ec;
  if (std::filesystem::is_regular_file(file, ec)) {
    try {
      return {std::make_shared<const g16::pce_compact>(g16::pce_compact::open(file, key)), false};
    } catch (const zk::input_error&) {
      // another version, circuit or a damaged file: recorded again below, replacing it
    }
  }
  record_porep_evaluator(info, file, threads, progress);
  return {std::make_shared<const g16::pce_compact>(g16::pce_compact::open(file, key)), true};
}

}  // namespace cuzk::fil
