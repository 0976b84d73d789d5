// bellperson's LinearCombination as bellpepper-core 0.4 stores it: input terms, then aux terms, each
// by increasing index, a variable at most once (adding it again adds to its coefficient), and a
// coefficient that cancels to zero stays (the prover's density counts a present term whatever its
// coefficient, so removing it would change the key's queries).
// A variable's id is the one of fil-oracle's R1CS dump: input i is i, aux j is 2^63 | j, so sorting by
// id gives bellpepper's order (inputs before aux) with no second key.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "zk/bls12_381/fields.hpp"

namespace cuzk::zk::cs {

using fr = bls12_381::fr;

struct variable {
  static constexpr std::uint64_t aux_bit = std::uint64_t{1} << 63;
  std::uint64_t id = 0;
  static constexpr variable input(std::uint64_t i) { return {i}; }
  static constexpr variable aux(std::uint64_t j) { return {aux_bit | j}; }
  constexpr bool is_aux() const { return (id & aux_bit) != 0; }
  constexpr std::uint64_t index() const { return id & ~aux_bit; }
  constexpr bool operator==(const variable&) const = default;
};
// ONE: input 0, allocated before anything else.
inline constexpr variable one_var = variable::input(0);

class linear_combination {
 public:
  using term = std::pair<variable, fr>;
  linear_combination() = default;
  explicit linear_combination(variable v, const fr& c = fr::one()) { terms_.push_back({v, c}); }

  // lc + (c, v): merges into v's term when present.
  linear_combination& add(variable v, const fr& c) {
    auto it = std::lower_bound(terms_.begin(), terms_.end(), v.id,
                               [](const term& t, std::uint64_t id) { return t.first.id < id; });
    if (it != terms_.end() && it->first.id == v.id)
      it->second += c;
    else
      terms_.insert(it, {v, c});
    return *this;
  }
  linear_combination& add(variable v) { return add(v, fr::one()); }
  linear_combination& sub(variable v) { return add(v, -fr::one()); }
  // lc + other * scale, term by term in other's order (bellpepper's `lc + &(scale, &other)`).
  linear_combination& add(const linear_combination& other, const fr& scale = fr::one()) {
    for (const auto& [v, c] : other.terms_) add(v, c * scale);
    return *this;
  }
  // Every coefficient times `s` (Num::scale); terms with a zero product stay.
  linear_combination scaled(const fr& s) const {
    linear_combination r = *this;
    for (auto& t : r.terms_) t.second *= s;
    return r;
  }
  fr evaluate(std::span<const fr> inputs, std::span<const fr> aux) const {
    fr acc = fr::zero();
    for (const auto& [v, c] : terms_) acc += c * (v.is_aux() ? aux[v.index()] : inputs[v.index()]);
    return acc;
  }
  const std::vector<term>& terms() const { return terms_; }
  bool empty() const { return terms_.empty(); }

 private:
  std::vector<term> terms_;
};

}  // namespace cuzk::zk::cs
