// A constraint system in circom's .r1cs format (BLS12-381 only), validated on load.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zk/bls12_381/fields.hpp"

namespace cuzk::zk::io {

struct r1cs {
  struct term {
    std::uint32_t wire;
    bls12_381::fr coeff;  // Montgomery form (converted from the file's normal form)
  };
  using linear_combination = std::vector<term>;
  struct constraint {
    linear_combination a, b, c;
  };

  std::uint32_t n_wires = 0, n_pub_out = 0, n_pub_in = 0, n_prv_in = 0, n_constraints = 0;
  std::uint64_t n_labels = 0;
  std::vector<constraint> constraints;
  std::string path;  // as given to load (or the name given to parse): used in messages

  std::uint32_t n_public() const { return n_pub_out + n_pub_in; }

  static r1cs load(const std::string& path);  // throws input_error naming the file and field
  static r1cs parse(std::span<const std::uint8_t> bytes, std::string name);
};

}  // namespace cuzk::zk::io
