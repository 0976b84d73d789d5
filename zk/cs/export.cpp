#include "zk/cs/export.hpp"

#include <stdexcept>

#include "zk/util/parallel.hpp"

namespace cuzk::zk::cs {

namespace {

io::r1cs::linear_combination convert(const linear_combination& lc, std::uint64_t n_inputs) {
  io::r1cs::linear_combination out;
  out.reserve(lc.terms().size());
  for (const auto& [v, c] : lc.terms())
    out.push_back({static_cast<std::uint32_t>(v.is_aux() ? n_inputs + v.index() : v.index()), c});
  return out;
}

}  // namespace

io::r1cs to_r1cs(const constraint_system& cs, std::string name) {
  if (cs.current_mode() != mode::record) throw std::logic_error("to_r1cs: the constraint system was not recorded");
  const std::uint64_t n_inputs = cs.inputs().size(), n_wires = n_inputs + cs.aux().size();
  if (n_wires > 0xffffffffu) throw std::length_error(name + ": more than 2^32 variables");
  io::r1cs r;
  r.path = std::move(name);
  r.n_wires = static_cast<std::uint32_t>(n_wires);
  r.n_pub_in = static_cast<std::uint32_t>(n_inputs - 1);
  r.n_constraints = static_cast<std::uint32_t>(cs.constraints().size());
  r.n_labels = n_wires;
  const auto& src = cs.constraints();
  r.constraints.resize(src.size());
  zk::parallel_for(src.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k)
      r.constraints[k] = {convert(src[k].a, n_inputs), convert(src[k].b, n_inputs), convert(src[k].c, n_inputs)};
  }, 1024);
  return r;
}

void to_witness_values(const constraint_system& cs, std::vector<bigint<4>>& out, thread_pool& pool) {
  const auto &in = cs.inputs(), &aux = cs.aux();
  out.resize(in.size() + aux.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[i].to_canonical();
  zk::parallel_for(pool, aux.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t j = begin; j < end; ++j) out[in.size() + j] = aux[j].to_canonical();
  }, 4096);
}

io::witness to_witness(const constraint_system& cs, std::string name) {
  io::witness w;
  w.path = std::move(name);
  to_witness_values(cs, w.values, zk::default_pool());
  return w;
}

}  // namespace cuzk::zk::cs
