// The prover's blinding factors r, s from the operating system's CSPRNG (getrandom(2)).
//
// Each value is drawn uniformly from [1, r): 32 random bytes masked to 255 bits, rejected when
// >= r or zero (about half of the draws are kept). Zero is excluded because r = 0 or s = 0 drops
// the blinding of A or B, which would leak information about the witness.
#pragma once

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "zk/groth16/types.hpp"

namespace cuzk::zk::groth16 {

namespace detail {
inline void os_random_bytes(void* out, std::size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  while (n > 0) {
    ssize_t got = ::getrandom(p, n, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("getrandom failed: errno " + std::to_string(errno));
    }
    p += got;
    n -= std::size_t(got);
  }
}
}  // namespace detail

// A uniformly random nonzero element of Fr.
inline fr random_nonzero_fr() {
  for (;;) {
    bigint<4> v;
    detail::os_random_bytes(v.limb.data(), sizeof(v.limb));
    v.limb[3] &= (std::uint64_t{1} << 63) - 1;  // r has 255 bits
    if (v >= fr::P || v.is_zero()) continue;
    return fr::from_canonical(v);
  }
}

inline randomness random_randomness() { return {random_nonzero_fr(), random_nonzero_fr()}; }

}  // namespace cuzk::zk::groth16
