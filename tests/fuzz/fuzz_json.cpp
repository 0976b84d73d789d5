// libFuzzer: the snarkjs JSON readers. The first byte picks proof (0), public (1) or verification key
// (2); the rest is the text. Only input_error may escape; what parses must survive write + reparse.
#include <cstdlib>
#include <string_view>

#include "zk/error.hpp"
#include "zk/io/snarkjs_json.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::io;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 3) {
      case 0: {
        auto p = snarkjs::parse_proof(text, "proof.json");
        if (!(snarkjs::parse_proof(snarkjs::dump(snarkjs::proof_to_json(p)), "re.json") == p)) std::abort();
        break;
      }
      case 1: {
        auto s = snarkjs::parse_public(text, "public.json");
        if (snarkjs::parse_public(snarkjs::dump(snarkjs::public_to_json(s)), "re.json") != s) std::abort();
        break;
      }
      default: {
        auto vk = snarkjs::parse_vk(text, "verification_key.json");
        auto re = snarkjs::parse_vk(snarkjs::dump(snarkjs::vk_to_json(vk, snarkjs::json::array())), "re.json");
        if (re.ic != vk.ic || !(re.alpha1 == vk.alpha1) || !(re.delta2 == vk.delta2)) std::abort();
        break;
      }
    }
  } catch (const input_error&) {
  }
  return 0;
}
