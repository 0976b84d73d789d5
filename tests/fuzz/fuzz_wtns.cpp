// libFuzzer: witness::parse on arbitrary bytes; only input_error may escape.
#include <cstdlib>

#include "zk/error.hpp"
#include "zk/io/wtns.hpp"

using namespace cuzk::zk;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    auto w = io::witness::parse({data, size}, "fuzz.wtns");
    for (auto& v : w.values)
      if (v >= bls12_381::fr::P) std::abort();
    if (w.values.empty()) std::abort();
  } catch (const input_error&) {
  }
  return 0;
}
