// The pre-compiled constraint evaluator ("PCE"): the zkey's A and B matrices (section 4) held as CSR,
// so that synthesis is two sparse matrix-vector products and one pointwise product.
//
// Rows are constraints, including the nPublic + 1 rows that snarkjs appends to A (row
// nConstraints + s holds signal s with coefficient 1: they make the public inputs' A polynomials
// linearly independent). Entries keep the stored coefficient as snarkjs writes it (coef * R^2), so
// fr::from_mont(coef) * fr::from_mont(w) is the Montgomery form of coef * w: no conversion of the
// witness is needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "zk/groth16/backend.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::zk::groth16 {

using namespace cuzk::zk::bls12_381;

// One sparse matrix in compressed-row form.
struct csr_matrix {
  std::vector<std::uint64_t> row_start;  // rows + 1 offsets into signal / coeff
  std::vector<std::uint32_t> signal;
  std::vector<fr> coeff;                 // stored coefficient (coef * R in the Montgomery sense)

  std::size_t rows() const { return row_start.empty() ? 0 : row_start.size() - 1; }
  std::size_t entries() const { return signal.size(); }
  std::size_t memory_bytes() const {
    return row_start.capacity() * sizeof(std::uint64_t) + signal.capacity() * sizeof(std::uint32_t) +
           coeff.capacity() * sizeof(fr);
  }
};

class pce_compact;  // zk/groth16/pce_compact.hpp

class constraint_evaluator {
 public:
  constraint_evaluator() = default;

  // Backed by a compact recorded evaluator (pce_compact.hpp) instead of CSR matrices: evaluate()
  // delegates to it and a() / b() are empty, so a backend that multiplies the matrices itself (CUDA)
  // synthesizes on the host instead when compact() is set.
  static constraint_evaluator from_compact(std::shared_ptr<const pce_compact> compact);
  const pce_compact* compact() const { return compact_.get(); }

  // Throws input_error when an entry names a matrix other than A/B, a row outside the domain or a
  // signal outside the witness.
  static constraint_evaluator build(const io::zkey& key);

  // a = A·w, b = B·w, c = a∘b; parallel over rows. Throws input_error when the witness length
  // differs from the key's nVars.
  synthesis evaluate(const io::witness& w) const { return evaluate(std::span<const bigint<4>>(w.values)); }
  synthesis evaluate(std::span<const bigint<4>> w) const;

  // Bytes held by the matrices.
  std::size_t memory_bytes() const { return a_.memory_bytes() + b_.memory_bytes(); }

  // What build() will hold plus what one evaluate() allocates (a, b, c), without building: the
  // engine reserves this from the host memory budget first.
  static std::size_t estimate_bytes(const io::zkey& key);

  std::uint32_t n_vars() const { return n_vars_; }
  std::uint32_t domain_size() const { return domain_size_; }
  const csr_matrix& a() const { return a_; }
  const csr_matrix& b() const { return b_; }

 private:
  csr_matrix a_, b_;
  std::uint32_t n_vars_ = 0, domain_size_ = 0;
  std::shared_ptr<const pce_compact> compact_;
};

}  // namespace cuzk::zk::groth16
