// The five point sections of a proving key (a, b1, b2, c, h) set in one step, for the loaders that
// hold the points themselves (decoded from a .params file, generated for a synthetic SRS) or hold
// none at all (a device makes or converts them: the spans only carry the sections' sizes).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>

#include "zk/io/zkey.hpp"
#include "zk/util/zero_mapping.hpp"

namespace cuzk::zk::groth16 {

// `holder`'s members a, b1, b2, c, h become the key's spans, and the key keeps the holder alive.
template <class Holder>
void adopt_points(io::zkey& key, std::shared_ptr<Holder> holder) {
  key.a = holder->a;
  key.b1 = holder->b1;
  key.b2 = holder->b2;
  key.c = holder->c;
  key.h = holder->h;
  key.storage = std::move(holder);
}

// Section sizes in points (b1 and b2 have the same count).
struct point_counts {
  std::uint64_t a = 0, b = 0, c = 0, h = 0;
};

// The key's shape without its points: spans of these sizes over one unbacked zero mapping, which
// the caller keeps (in key.storage, with whatever else it must keep).
inline std::shared_ptr<const zero_mapping> zero_points(io::zkey& key, const point_counts& n) {
  const std::uint64_t most = std::max({n.a * 96, n.b * 192, n.c * 96, n.h * 96, std::uint64_t{192}});
  auto z = std::make_shared<const zero_mapping>(most);
  const auto* g1 = static_cast<const g1_affine*>(z->p);
  const auto* g2 = static_cast<const g2_affine*>(z->p);
  key.a = {g1, n.a};
  key.b1 = {g1, n.b};
  key.b2 = {g2, n.b};
  key.c = {g1, n.c};
  key.h = {g1, n.h};
  return z;
}

}  // namespace cuzk::zk::groth16
