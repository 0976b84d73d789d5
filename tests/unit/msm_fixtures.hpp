// Random inputs shared by the MSM tests: scalars below r and distinct random-looking points.
#pragma once

#include <random>
#include <vector>

#include "zk/bls12_381/curves.hpp"
#include "zk/curve/short_weierstrass.hpp"

namespace msm_fixtures {

using scalar = cuzk::zk::bigint<4>;

inline scalar random_scalar(std::mt19937_64& rng) {
  scalar s;
  for (auto& l : s.limb) l = rng();
  s.limb[3] &= (std::uint64_t{1} << 63) - 1;  // < 2^255 < 2r
  if (s >= cuzk::zk::bls12_381::fr::P) s.sub_in_place(cuzk::zk::bls12_381::fr::P);
  return s;
}

// A walk G0, G0 + D, G0 + 2D, ... with random G0 and D.
template <class Curve>
std::vector<cuzk::zk::affine_t<Curve>> random_points(std::size_t n, std::mt19937_64& rng) {
  using J = cuzk::zk::jacobian_t<Curve>;
  J g = J(Curve::generator());
  J p = g.mul(random_scalar(rng)), d = g.mul(random_scalar(rng));
  std::vector<J> pts(n);
  for (auto& q : pts) q = p, p += d;
  return cuzk::zk::batch_normalize(pts);
}

}  // namespace msm_fixtures
