// A Groth16 proving key in snarkjs's .zkey format (BLS12-381 only), validated on load.
//
// Point sections are used in place when the file is mapped with 8-byte-aligned sections (the file
// layout is already our affine layout: little-endian Montgomery x || y, zeros for infinity);
// otherwise they are copied once into aligned storage.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "zk/groth16/types.hpp"
#include "zk/io/binfile.hpp"
#include "zk/io/r1cs.hpp"
#include "zk/io/wtns.hpp"

namespace cuzk::zk::io {

using namespace cuzk::zk::bls12_381;

// One section-4 entry: coefficient `value` of `signal` in row `constraint` of matrix A (0) or B (1).
// `value` holds the stored bytes as a Montgomery representation, i.e. the field element coef * R:
// multiplying it by a normal-form witness read as Montgomery (w / R) gives coef * w exactly.
struct zkey_coefficient {
  std::uint32_t matrix;
  std::uint32_t constraint;
  std::uint32_t signal;
  fr value;
};

// What a key says about itself without its points: sizes, the verifying key and a fingerprint
// (hex SHA-256 of sections 1-3, 10 and the section table). Cheap to read from a key of any size:
// what a cluster coordinator compares with a node's key before sending it that circuit's work.
struct zkey_header {
  std::string path;
  std::uint32_t n_vars = 0, n_public = 0, domain_size = 0;
  unsigned log_domain = 0;
  groth16::verifying_key vk;
  std::string fingerprint;
  std::uint64_t size_bytes = 0;  // of the whole file

  static zkey_header read(const std::string& path);  // throws input_error, like zkey::load
  static zkey_header parse(std::shared_ptr<const file_bytes> bytes, std::string name);
};

// How a key's h query is defined, and whether its A/B queries hold every wire.
//   snarkjs     H_i = L^{(2n)}_{2i+1}(tau)/delta (odd 2n-th roots), n points; h = evaluations of
//               A B - C on the odd coset; roots of unity from 5; a, b1, b2 hold every wire.
//   bellperson  H_i = tau^i Z(tau)/delta, n - 1 points; h = coefficients of (A B - C)/Z computed
//               on the coset of 7 (Fr's multiplicative generator); roots of unity from 7; a holds
//               the wires in a_wires, b1/b2 those in b_wires (density-filtered queries).
enum class key_convention : std::uint8_t { snarkjs, bellperson };

struct zkey {
  std::string path;
  key_convention convention = key_convention::snarkjs;
  std::uint32_t n_vars = 0;       // wires including the constant 1
  std::uint32_t n_public = 0;     // public outputs + public inputs (not the constant)
  std::uint32_t domain_size = 0;  // power of two
  unsigned log_domain = 0;
  groth16::verifying_key vk;

  std::span<const g1_affine> a;   // n_vars (bellperson: a_wires.size())
  std::span<const g1_affine> b1;  // n_vars (bellperson: b_wires.size())
  std::span<const g2_affine> b2;  // n_vars (bellperson: b_wires.size())
  std::span<const g1_affine> c;   // n_vars - n_public - 1, for wires n_public+1 .. (bellperson's l)
  std::span<const g1_affine> h;   // domain_size (bellperson: domain_size - 1)
  // bellperson convention: the wires whose A (B) points a (b1, b2) hold, ascending. Empty for snarkjs.
  std::vector<std::uint32_t> a_wires, b_wires;
  std::vector<zkey_coefficient> coefficients;  // section 4, in file order

  // Keeps the mapping (or the aligned copies) alive for the spans above.
  std::shared_ptr<const void> storage;

  // A synthetic SRS (zk/groth16/synthetic_srs.hpp): random points of this shape, NOT A SETUP (its
  // proofs never verify). Without synthetic_on_host the spans above cover an unbacked zero mapping
  // and a device generates the points itself from synthetic_seed.
  bool synthetic = false, synthetic_on_host = false;
  std::uint64_t synthetic_seed = 0;
  // A bellperson key for a device that converts its points itself (groth16::bellperson_proving_key
  // with points_on_host false): the point spans above cover an unbacked zero mapping (their sizes
  // are the key's shape) and the points are these, in the .params file's own form. Only a backend
  // that takes file points (the CUDA one) can prove with such a key.
  std::shared_ptr<const groth16::file_points> file_points;

  // Reads and validates everything (see docs/formats.md); throws input_error naming the file and field.
  static zkey load(const std::string& path);
  // The same from bytes already in memory (fuzzing, tests); `name` is what messages call the file.
  static zkey parse(std::shared_ptr<const file_bytes> bytes, std::string name);

  // Number of rows of the A/B matrices in section 4 (r1cs constraints + nPublic + 1); <= domain_size.
  std::uint32_t n_rows = 0;
  // True when the point spans point into the file mapping (sections 8-byte aligned), false when copied.
  bool points_in_place = false;
  // False once the file shrank under the mapping and reads got zeros (file_bytes::damaged): the
  // points are not the key's any more; drop it and load the file again.
  bool intact() const;
};

// Cross-file checks; throw input_error naming both files, e.g.
// "input.wtns: witness has 12 values, circuit.zkey expects 13".
void check_witness_matches(const zkey& key, const witness& w);
// Wire counts, public counts, and that section 4 holds exactly the r1cs's A and B coefficients
// (plus snarkjs's nPublic + 1 extra A rows), i.e. the key was made for this circuit.
void check_r1cs_matches(const zkey& key, const r1cs& cs);

}  // namespace cuzk::zk::io
