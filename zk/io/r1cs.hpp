// A constraint system in circom's .r1cs format (BLS12-381 only), validated on load.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zk/bls12_381/fields.hpp"
#include "zk/io/binfile.hpp"

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

// A mapped .r1cs whose terms are left in the file, for readers that decode them where they use them:
// the bellperson prove path takes the A and B terms straight into its key's entries (a 2^24-row
// circuit held as r1cs is ~50 M small vectors: seconds to build, and seconds again to free at exit).
// Opening reads the header and walks the term counts once, checking each constraint's extent against
// the section (the walk is serial: where constraint i starts depends on every count before it); the
// terms themselves are checked by whoever decodes them (term(), then check_term()).
struct r1cs_layout {
  r1cs header;  // the counts and the path; no constraints
  std::shared_ptr<const file_bytes> bytes;
  std::span<const std::uint8_t> section;  // the constraints section
  std::vector<std::uint64_t> at;          // where constraint i starts in `section`; at[n] is its end

  // Matrix m (0 A, 1 B, 2 C) of constraint i: its term count and a pointer to its first term (36
  // bytes each: u32 wire, 32-byte little-endian coefficient).
  std::pair<std::uint32_t, const std::uint8_t*> terms(std::size_t i, int m) const;
  // A term's wire and coefficient (normal form), and whether both are in range (wire < nWires,
  // coefficient < r); when not, term_error says which, as r1cs::load does ("constraint 3 B term 0:
  // wire 9 is not below nWires 8").
  bool term(const std::uint8_t* p, std::uint32_t& wire, bigint<4>& coeff) const;
  std::string term_error(std::size_t i, int m, std::uint32_t t) const;
  // Throws input_error naming the file and the constraints section, as r1cs::load does.
  [[noreturn]] void fail(const std::string& what) const;

  static r1cs_layout open(const std::string& path);  // the file mapped, pages read as they are used
  static r1cs_layout parse(std::shared_ptr<const file_bytes> bytes, std::string name);
};

}  // namespace cuzk::zk::io
