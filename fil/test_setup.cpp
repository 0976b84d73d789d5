#include "fil/test_setup.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "zk/cs/constraint_system.hpp"
#include "zk/error.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::fil {

namespace fs = std::filesystem;

namespace {

bool is_param_file(const std::string& name) {
  for (const char* ext : {".params", ".vk", ".meta"})
    if (name.ends_with(ext)) return true;
  return name == "parameters.json";
}

}  // namespace

std::vector<test_only_entry> read_test_only_marker(const std::string& dir) {
  const fs::path path = fs::path(dir) / test_only_marker;
  std::error_code ec;
  if (!fs::exists(path, ec)) return {};
  std::ifstream in(path);
  if (!in) throw zk::input_error(path.string() + ": cannot read");
  std::vector<test_only_entry> out;
  std::string line;
  for (unsigned n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    test_only_entry e;
    std::string extra;
    if (!(words >> e.file >> e.seed >> e.registered_proof) || (words >> extra))
      throw zk::input_error(path.string() + ": line " + std::to_string(n) + ": expected NAME SEED REGISTERED_PROOF");
    out.push_back(std::move(e));
  }
  return out;
}

void write_test_only_marker(const std::string& dir, const std::vector<test_only_entry>& entries) {
  const fs::path path = fs::path(dir) / test_only_marker;
  std::ostringstream text;
  text << "# TEST-ONLY Groth16 parameters made by `cuzk fil setup`: their toxic waste comes from a seed, so\n"
          "# whoever knows it can forge proofs that every Filecoin verifier with these keys accepts.\n"
          "# Never use them in production. One line per file: NAME SEED REGISTERED_PROOF\n";
  for (const auto& e : entries) text << e.file << " " << e.seed << " " << e.registered_proof << "\n";
  const std::string tmp = path.string() + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text.str();
    out.flush();
    if (!out) {
      const int err = errno;
      std::remove(tmp.c_str());
      throw zk::input_error(path.string() + ": cannot write: " + std::strerror(err));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw zk::input_error(path.string() + ": cannot write: " + std::strerror(err));
  }
}

std::string first_real_param_file(const std::string& dir) {
  const auto marked = read_test_only_marker(dir);
  std::vector<std::string> real;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!is_param_file(name)) continue;
    if (std::none_of(marked.begin(), marked.end(), [&](const auto& e) { return e.file == name; })) real.push_back(name);
  }
  if (ec) throw zk::input_error(dir + ": cannot list: " + ec.message());
  std::sort(real.begin(), real.end());
  return real.empty() ? std::string() : real.front();
}

zk::io::zkey test_setup(const circuit_ref& c, std::uint64_t seed, const zk::groth16::setup_progress& progress) {
  if (progress) progress("record the circuit", 0, 1);
  const auto cs = record_circuit(c);
  if (progress) progress("record the circuit", 1, 1);
  return zk::groth16::setup(cs, zk::groth16::toxic_waste_from_seed(seed), zk::io::key_convention::bellperson, progress);
}

zk::groth16::streamed_setup stream_test_setup(const circuit_ref& c, std::uint64_t seed, const std::string& params_path,
                                              const std::string& vk_path, const zk::groth16::setup_progress& progress,
                                              unsigned threads, zk::groth16::point_multiplier* device) {
  std::unique_ptr<zk::thread_pool> own;
  if (threads != 0) own = std::make_unique<zk::thread_pool>(threads);
  zk::thread_pool& pool = own ? *own : zk::default_pool();
  // Counted, then recorded into the accumulator: PoRep's challenges on the pool both times.
  return zk::groth16::stream_setup([&](zk::cs::constraint_system& cs) { synthesize_blank(cs, c, pool); },
                                   zk::groth16::toxic_waste_from_seed(seed), params_path, vk_path, progress, device);
}

}  // namespace cuzk::fil
