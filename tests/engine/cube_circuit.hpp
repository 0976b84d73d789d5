// A tiny circuit recorded as a compact evaluator, for synthetic keys in the engine tests
// (zk/groth16/synthetic_srs.hpp): y = x^3 + x + 5, its witness, and its recording in a temporary file.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <unistd.h>

#include "zk/cs/constraint_system.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/io/wtns.hpp"

namespace cuzk::test {

// y = x^3 + x + 5 with one input and three aux (a, b, c as values).
template <class Sys>
void cube_circuit(Sys& cs, std::uint64_t x_value) {
  using zk::bls12_381::fr;
  const fr x = fr::from_u64(x_value), x2 = x * x, x3 = x2 * x;
  auto out = cs.alloc_input(x3 + x + fr::from_u64(5));
  auto vx = cs.alloc(x), vx2 = cs.alloc(x2), vx3 = cs.alloc(x3);
  using lc = zk::cs::linear_combination;
  cs.enforce(lc(vx), lc(vx), lc(vx2));
  cs.enforce(lc(vx2), lc(vx), lc(vx3));
  lc sum(vx3);
  sum.add(vx);
  sum.add(zk::cs::variable::input(0), fr::from_u64(5));
  cs.enforce(sum, lc(zk::cs::variable::input(0)), lc(out));
}

inline std::shared_ptr<const zk::io::witness> cube_witness(std::uint64_t x_value) {
  zk::cs::constraint_system cs(zk::cs::mode::witness);
  cube_circuit(cs, x_value);
  auto w = std::make_shared<zk::io::witness>();
  for (auto& v : cs.inputs()) w->values.push_back(v.to_canonical());
  for (auto& v : cs.aux()) w->values.push_back(v.to_canonical());
  return w;
}

struct recorded {
  std::string path = (std::filesystem::temp_directory_path() / ("cuzk-synthetic-engine-" + std::to_string(::getpid()) + ".pce")).string();
  recorded() {
    zk::groth16::pce_recorder rec(path, "cube test");
    zk::cs::constraint_system cs(rec);
    cube_circuit(cs, 0);
    rec.finish(cs.num_inputs(), cs.num_aux());
  }
  ~recorded() { std::filesystem::remove(path); }
};

}  // namespace cuzk::test
