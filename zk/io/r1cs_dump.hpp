// fil-oracle's R1CS dump (docs/formats.md "The R1CS dump", version 1): the constraint system that
// bellperson synthesizes, in synthesis order, with the witness. It lets a bellperson .params file
// be used with the very circuit it was made for before cuzk synthesizes Filecoin's circuits itself.
//
// Layout (little-endian): "CUZKR1CS", u32 version 1, u32 flags (bit 0: witness present),
// u64 num_inputs (ONE included), u64 num_aux, u64 num_constraints, then per constraint A, B, C as
// {u32 n, n x (u64 variable, 32-byte canonical coefficient)}, then the witness (32 bytes each,
// inputs then aux). Variable i < 2^63 is input i, 2^63 | j is aux j. Mapped to circom's wire order:
// input i -> wire i, aux j -> wire num_inputs + j (all inputs but ONE are public inputs).
#pragma once

#include <optional>
#include <span>
#include <string>

#include "zk/io/r1cs.hpp"
#include "zk/io/wtns.hpp"

namespace cuzk::zk::io {

struct r1cs_dump {
  r1cs cs;
  std::optional<witness> wit;  // when the dump holds one

  // Throws input_error with one line naming the file, the constraint and the field.
  static r1cs_dump load(const std::string& path);
  static r1cs_dump parse(std::span<const std::uint8_t> bytes, std::string name);
};

}  // namespace cuzk::zk::io
