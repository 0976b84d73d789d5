// libFuzzer: r1cs::parse on arbitrary bytes; only input_error may escape, and what loads is in range.
#include <cstdlib>

#include "zk/error.hpp"
#include "zk/io/r1cs.hpp"

using namespace cuzk::zk;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    auto cs = io::r1cs::parse({data, size}, "fuzz.r1cs");
    if (cs.constraints.size() != cs.n_constraints) std::abort();
    for (auto& c : cs.constraints)
      for (auto* lc : {&c.a, &c.b, &c.c})
        for (auto& t : *lc)
          if (t.wire >= cs.n_wires || t.coeff.m >= bls12_381::fr::P) std::abort();
  } catch (const input_error&) {
  }
  return 0;
}
