// libFuzzer: zkey::parse and zkey_header::parse on arbitrary bytes. Any exception but input_error,
// any sanitizer report, a header that disagrees with the full key, or a key that loads but does not
// survive write + reload is a bug.
#include <cstdlib>
#include <optional>

#include "zk/io/zkey.hpp"
#include "zk/io/zkey_writer.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::io;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::optional<zkey_header> header;
  try {
    header = zkey_header::parse(file_bytes::copy({data, size}), "fuzz.zkey");
  } catch (const input_error&) {
  }
  zkey k;
  try {
    k = zkey::parse(file_bytes::copy({data, size}), "fuzz.zkey");
  } catch (const input_error&) {
    return 0;
  }
  // Touch every point the spans claim (ASan catches a span past its storage).
  std::uint64_t acc = 0;
  for (auto& p : k.a) acc += p.x.m.limb[0];
  for (auto& p : k.b1) acc += p.y.m.limb[5];
  for (auto& p : k.b2) acc += p.y.c1.m.limb[5];
  for (auto& p : k.c) acc += p.x.m.limb[3];
  for (auto& p : k.h) acc += p.y.m.limb[2];
  if (k.domain_size != (1u << k.log_domain) || k.n_rows > k.domain_size) std::abort();
  // A key that loads has a header that reads, with the same sizes and verifying key.
  if (!header || header->n_vars != k.n_vars || header->domain_size != k.domain_size || header->vk.ic != k.vk.ic ||
      header->fingerprint.size() != 64)
    std::abort();
  // Write + reload is the identity on what was loaded.
  auto bytes = serialize_zkey(parts_of(k));
  zkey r = zkey::parse(file_bytes::copy(bytes), "rewritten.zkey");  // must not throw
  if (r.n_vars != k.n_vars || r.n_public != k.n_public || r.domain_size != k.domain_size || r.vk.ic != k.vk.ic ||
      !(r.vk.delta2 == k.vk.delta2) || r.coefficients.size() != k.coefficients.size() ||
      !std::equal(r.h.begin(), r.h.end(), k.h.begin(), k.h.end()))
    std::abort();
  return acc == 42 ? 0 : 0;
}
