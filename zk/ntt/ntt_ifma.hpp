// The butterfly stages of domain::transform on AVX-512 IFMA lanes (zk/ff/fr_ifma.hpp).
#pragma once

#include <span>

#include "zk/bls12_381/fields.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::ntt {

// The log2(n) decimation-in-time stages on bit-reversed input a (n = a.size() >= 64, a power of
// two), with powers[j] = w^j for j < n/2. Only where cpu_has_avx512_ifma().
void dit_stages_ifma(std::span<bls12_381::fr> a, std::span<const bls12_381::fr> powers, thread_pool& pool);

}  // namespace cuzk::zk::ntt
