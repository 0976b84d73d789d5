#include "fil/prove/circuit_key.hpp"

#include <filesystem>
#include <stdexcept>

#include "zk/error.hpp"
#include "zk/groth16/bellperson_key.hpp"
#include "zk/io/bellperson.hpp"

namespace cuzk::fil::prove {

zk::io::r1cs to_r1cs(const zk::cs::constraint_system& rec, std::string name) {
  if (rec.current_mode() != zk::cs::mode::record)
    throw std::logic_error("fil::prove::to_r1cs: the constraint system was synthesized in witness mode");
  const std::uint64_t n_in = rec.inputs().size(), n_aux = rec.aux().size();
  if (n_in + n_aux > 0xffffffffull || rec.num_constraints() > 0xffffffffull)
    throw zk::input_error(name + ": " + std::to_string(n_in + n_aux) + " variables, " +
                          std::to_string(rec.num_constraints()) + " constraints: more than 2^32");
  zk::io::r1cs out;
  out.path = std::move(name);
  out.n_wires = std::uint32_t(n_in + n_aux);
  out.n_pub_in = std::uint32_t(n_in - 1);
  out.n_constraints = std::uint32_t(rec.num_constraints());
  out.constraints.resize(rec.constraints().size());
  auto convert = [&](const zk::cs::linear_combination& lc, zk::io::r1cs::linear_combination& to) {
    to.reserve(lc.terms().size());
    for (const auto& [v, c] : lc.terms())
      to.push_back({std::uint32_t(v.is_aux() ? n_in + v.index() : v.index()), c});
  };
  for (std::size_t k = 0; k < rec.constraints().size(); ++k) {
    const auto& c = rec.constraints()[k];
    convert(c.a, out.constraints[k].a);
    convert(c.b, out.constraints[k].b);
    convert(c.c, out.constraints[k].c);
  }
  return out;
}

zk::io::witness witness_of(const zk::cs::constraint_system& cs, std::string name) {
  zk::io::witness w;
  w.path = std::move(name);
  w.values.reserve(cs.inputs().size() + cs.aux().size());
  for (const auto& x : cs.inputs()) w.values.push_back(x.to_canonical());
  for (const auto& x : cs.aux()) w.values.push_back(x.to_canonical());
  return w;
}

std::string params_file(const std::string& dir, const std::string& cache_id, std::string_view proof_name) {
  const std::string path = (dir.empty() ? std::string(".") : dir) + "/" + cache_id + ".params";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw zk::input_error(path + ": no such file (the " + std::string(proof_name) + " parameters)");
  return path;
}

circuit_key load_key(const std::string& params_path, const zk::io::r1cs& cs) {
  const auto params = zk::io::bellperson_params::open(params_path);
  circuit_key k;
  k.key = zk::groth16::bellperson_proving_key(params, cs);
  k.pce = zk::groth16::constraint_evaluator::build(k.key);
  return k;
}

}  // namespace cuzk::fil::prove
