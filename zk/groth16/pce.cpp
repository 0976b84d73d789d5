#include "zk/groth16/pce.hpp"

#include <algorithm>
#include <string>

#include "zk/error.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::groth16 {

namespace {

void fill_csr(const io::zkey& key, std::uint32_t matrix, const std::vector<std::uint64_t>& counts,
              csr_matrix& m) {
  std::size_t rows = counts.size();
  m.row_start.assign(rows + 1, 0);
  for (std::size_t r = 0; r < rows; ++r) m.row_start[r + 1] = m.row_start[r] + counts[r];
  std::size_t total = m.row_start[rows];
  m.signal.resize(total);
  m.coeff.resize(total);
  std::vector<std::uint64_t> next(m.row_start.begin(), m.row_start.end() - 1);
  // File order within a row is kept, so that the sum is evaluated in the same order every time.
  for (const auto& e : key.coefficients) {
    if (e.matrix != matrix) continue;
    std::uint64_t at = next[e.constraint]++;
    m.signal[at] = e.signal;
    m.coeff[at] = e.value;
  }
}

// sum over the row of coeff * w, Montgomery form (see the header: no witness conversion).
inline fr row_dot(const csr_matrix& m, std::size_t row, const bigint<4>* w) {
  fr acc = fr::zero();
  for (std::uint64_t k = m.row_start[row], end = m.row_start[row + 1]; k < end; ++k)
    acc += m.coeff[k] * fr::from_mont(w[m.signal[k]]);
  return acc;
}

}  // namespace

constraint_evaluator constraint_evaluator::build(const io::zkey& key) {
  const std::string where = key.path.empty() ? std::string("zkey") : key.path;
  if (key.domain_size == 0 || (key.domain_size & (key.domain_size - 1)) != 0)
    throw input_error(where + ": domain size " + std::to_string(key.domain_size) + " is not a power of two");
  std::vector<std::uint64_t> count_a(key.domain_size, 0), count_b(key.domain_size, 0);
  for (std::size_t i = 0; i < key.coefficients.size(); ++i) {
    const auto& e = key.coefficients[i];
    if (e.matrix > 1)
      throw input_error(where + ": section 4 entry " + std::to_string(i) + ": matrix " + std::to_string(e.matrix) +
                        ", expected 0 (A) or 1 (B)");
    if (e.constraint >= key.domain_size)
      throw input_error(where + ": section 4 entry " + std::to_string(i) + ": constraint " +
                        std::to_string(e.constraint) + " outside the domain of " + std::to_string(key.domain_size));
    if (e.signal >= key.n_vars)
      throw input_error(where + ": section 4 entry " + std::to_string(i) + ": signal " + std::to_string(e.signal) +
                        " >= nVars " + std::to_string(key.n_vars));
    (e.matrix == 0 ? count_a : count_b)[e.constraint]++;
  }
  constraint_evaluator pce;
  pce.n_vars_ = key.n_vars;
  pce.domain_size_ = key.domain_size;
  fill_csr(key, 0, count_a, pce.a_);
  fill_csr(key, 1, count_b, pce.b_);
  return pce;
}

constraint_evaluator constraint_evaluator::from_compact(std::shared_ptr<const pce_compact> compact) {
  const std::uint64_t vars = compact->n_inputs() + compact->n_aux(), domain = compact->domain_size();
  if (vars > 0xffffffffu || domain > (std::uint64_t{1} << 31))
    throw input_error("compact evaluator: " + std::to_string(vars) + " variables, domain " + std::to_string(domain) +
                      ": too big for a key");
  constraint_evaluator pce;
  pce.n_vars_ = std::uint32_t(vars);
  pce.domain_size_ = std::uint32_t(domain);
  pce.compact_ = std::move(compact);
  return pce;
}

synthesis constraint_evaluator::evaluate(std::span<const bigint<4>> w) const {
  if (w.size() != n_vars_)
    throw input_error("witness has " + std::to_string(w.size()) + " values, the key expects nVars = " +
                      std::to_string(n_vars_));
  if (compact_) return compact_->evaluate(w);
  synthesis s;
  s.a.resize(domain_size_);
  s.b.resize(domain_size_);
  s.c.resize(domain_size_);
  const bigint<4>* wv = w.data();
  auto rows = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t row = lo; row < hi; ++row) {
      fr a = row_dot(a_, row, wv), b = row_dot(b_, row, wv);
      s.a[row] = a;
      s.b[row] = b;
      s.c[row] = a * b;
    }
  };
  parallel_for(domain_size_, rows, 1024);
  return s;
}

std::size_t constraint_evaluator::estimate_bytes(const io::zkey& key) {
  std::size_t entries = key.coefficients.size();
  std::size_t rows = std::size_t{key.domain_size} + 1;
  std::size_t matrices = 2 * rows * sizeof(std::uint64_t) + entries * (sizeof(std::uint32_t) + sizeof(fr));
  std::size_t build_scratch = 2 * std::size_t{key.domain_size} * sizeof(std::uint64_t);  // row counts
  std::size_t evaluation = 3 * std::size_t{key.domain_size} * sizeof(fr);
  return matrices + std::max(build_scratch, evaluation);
}

}  // namespace cuzk::zk::groth16
