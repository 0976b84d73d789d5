// CAF inspectors for the zk value types that travel inside messages. CAF finds `inspect` by
// argument-dependent lookup, so these overloads live in the namespaces of the types they describe;
// they only read and write the types' public representation and change nothing else about them.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "caf/error.hpp"
#include "caf/meta/load_callback.hpp"
#include "caf/meta/type_name.hpp"
#include "caf/none.hpp"
#include "caf/sec.hpp"
#include "zk/bls12_381/fields.hpp"
#include "zk/groth16/types.hpp"

namespace cuzk::msg::detail {

// A trivially copyable value (or array of them) as 64-bit words: the portable shape for CAF's
// serializers and its string inspector alike.
template <class T>
std::vector<std::uint64_t> to_words(const T* data, std::size_t count) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 8 == 0);
  std::vector<std::uint64_t> w(count * sizeof(T) / 8);
  if (count) std::memcpy(w.data(), data, count * sizeof(T));
  return w;
}

template <class T>
bool from_words(const std::vector<std::uint64_t>& w, T* data, std::size_t count) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 8 == 0);
  if (w.size() * 8 != count * sizeof(T)) return false;
  if (count) std::memcpy(static_cast<void*>(data), w.data(), count * sizeof(T));
  return true;
}

}  // namespace cuzk::msg::detail

namespace cuzk::zk {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, bigint<4>& x) {
  return f(caf::meta::type_name("bigint256"), x.limb[0], x.limb[1], x.limb[2], x.limb[3]);
}

// Fr travels as its raw Montgomery representation (both ends use the same field code).
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, bls12_381::fr& x) {
  return f(caf::meta::type_name("fr"), x.m.limb[0], x.m.limb[1], x.m.limb[2], x.m.limb[3]);
}

}  // namespace cuzk::zk

namespace cuzk::zk::groth16 {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, randomness& x) {
  return f(caf::meta::type_name("randomness"), x.r, x.s);
}

// A proof as the words of its three affine points (Montgomery coordinates, zeros for infinity).
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, proof& x) {
  std::vector<std::uint64_t> words;
  if constexpr (Inspector::reads_state) words = cuzk::msg::detail::to_words(&x, 1);
  auto load = caf::meta::load_callback([&]() -> caf::error {
    if (!cuzk::msg::detail::from_words(words, &x, 1)) return caf::make_error(caf::sec::invalid_argument);
    return caf::none;
  });
  return f(caf::meta::type_name("proof"), words, load);
}

}  // namespace cuzk::zk::groth16
