// libFuzzer: the bincode FallbackPoStSectorProof reader. Only input_error may escape; what parses
// must write back to the same bytes (bincode has one encoding per value).
#include <cstdlib>

#include "fil/io/post_bincode.hpp"
#include "zk/error.hpp"

using namespace cuzk;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const std::span<const std::uint8_t> in(data, size);
    const auto p = fil::io::read_post_vanilla_proof(in, "post.vproof");
    const auto out = fil::io::to_bincode(p);
    if (out.size() != size || !std::equal(out.begin(), out.end(), data)) std::abort();
  } catch (const zk::input_error&) {
  }
  return 0;
}
