// libFuzzer: bellperson's .vk and .params readers (zk/io/bellperson.hpp) on arbitrary bytes. The
// first input byte picks the reader: 0 .vk, 1 polka-storage's compressed vk, 2 .params headers plus
// every section's points. Any exception but input_error, any sanitizer report, or a key that loads
// but does not write back to the same bytes is a bug.
#include <cstdlib>

#include "zk/io/bellperson.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::io;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t which = data[0] % 3;
  std::span<const std::uint8_t> bytes(data + 1, size - 1);
  try {
    if (which == 0) {
      auto vk = parse_bellperson_vk(bytes, "fuzz.vk");
      auto again = bellperson_vk_bytes(vk);
      if (!std::equal(again.begin(), again.end(), bytes.begin(), bytes.end())) std::abort();
    } else if (which == 1) {
      auto vk = parse_compressed_vk(bytes, "fuzz.vk");
      if (vk.ic.empty()) std::abort();
    } else {
      auto p = bellperson_params::parse(file_bytes::copy(bytes), "fuzz.params");
      // The header walk must have covered the file exactly.
      if (p.b_g2.offset + std::uint64_t{p.b_g2.count} * 192 != bytes.size()) std::abort();
      auto vkb = bellperson_vk_bytes(p.vk);
      if (!std::equal(vkb.begin(), vkb.end(), bytes.begin())) std::abort();
      p.g1_section(p.h, "h");
      p.g1_section(p.l, "l");
      p.g1_section(p.a, "a");
      p.g1_section(p.b_g1, "b_g1");
      p.g2_section(p.b_g2, "b_g2");
    }
  } catch (const input_error&) {
  }
  return 0;
}
