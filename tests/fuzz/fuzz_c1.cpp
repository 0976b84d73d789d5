// libFuzzer: the stream-parsed C1 output reader (wrapper with base64 Phase1Out, or bare JSON). Only
// input_error may escape; what parses must write back to JSON that parses to the same proofs.
#include <cstdlib>
#include <string>

#include "fil/io/c1_json.hpp"
#include "zk/error.hpp"

using namespace cuzk;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    fil::io::memory_source src(std::span<const std::uint8_t>(data, size));
    const auto c1 = fil::io::read_c1(src, "c1.json");
    const std::string again = fil::io::to_json(c1.phase1_out);
    fil::io::memory_source src2(again);
    const auto back = fil::io::read_c1(src2, "re.json");
    if (!(back.phase1_out.vanilla_proofs == c1.phase1_out.vanilla_proofs) ||
        back.phase1_out.replica_id != c1.phase1_out.replica_id)
      std::abort();
  } catch (const zk::input_error&) {
  }
  return 0;
}
