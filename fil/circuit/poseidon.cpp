#include "fil/circuit/poseidon.hpp"

#include <mutex>
#include <stdexcept>
#include <string>

#include "fil/crypto/poseidon.hpp"

namespace cuzk::fil::circuit {

namespace {

using matrix = std::vector<std::vector<fr>>;
using cs::linear_combination;
using cs::one_var;
using cs::gadgets::allocated_num;
using cs::gadgets::num;

matrix identity(std::size_t n) {
  matrix m(n, std::vector<fr>(n, fr::zero()));
  for (std::size_t i = 0; i < n; ++i) m[i][i] = fr::one();
  return m;
}

matrix mat_mul(const matrix& a, const matrix& b) {
  const std::size_t n = a.size(), k = b.size(), p = b[0].size();
  matrix r(n, std::vector<fr>(p, fr::zero()));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < p; ++j)
      for (std::size_t l = 0; l < k; ++l) r[i][j] += a[i][l] * b[l][j];
  return r;
}

// The inverse by Gauss-Jordan elimination (an inverse is unique, so the method does not matter).
matrix invert(matrix m) {
  const std::size_t n = m.size();
  matrix inv = identity(n);
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t p = c;
    while (p < n && m[p][c] == fr::zero()) ++p;
    if (p == n) throw std::logic_error("poseidon: singular matrix");
    std::swap(m[p], m[c]);
    std::swap(inv[p], inv[c]);
    const fr s = m[c][c].inverse();
    for (std::size_t j = 0; j < n; ++j) m[c][j] *= s, inv[c][j] *= s;
    for (std::size_t r = 0; r < n; ++r) {
      if (r == c || m[r][c] == fr::zero()) continue;
      const fr f = m[r][c];
      for (std::size_t j = 0; j < n; ++j) m[r][j] -= f * m[c][j], inv[r][j] -= f * inv[c][j];
    }
  }
  return inv;
}

// m . v (row i of m times v).
std::vector<fr> left_apply(const matrix& m, std::span<const fr> v) {
  std::vector<fr> r(m.size(), fr::zero());
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < v.size(); ++j) r[i] += m[i][j] * v[j];
  return r;
}

matrix minor00(const matrix& m) {
  matrix r;
  for (std::size_t i = 1; i < m.size(); ++i) r.emplace_back(m[i].begin() + 1, m[i].end());
  return r;
}

// M' (first row e0, the rest of M without its first column) and M'' (sparse: M[0][0], M's first row,
// then w_hat = M_hat^-1 w down the first column, identity elsewhere) with M = M' M''.
void derive_prime(const matrix& m, matrix& prime, matrix& double_prime) {
  const std::size_t t = m.size();
  prime = matrix(t, std::vector<fr>(t, fr::zero()));
  prime[0][0] = fr::one();
  for (std::size_t i = 1; i < t; ++i)
    for (std::size_t j = 1; j < t; ++j) prime[i][j] = m[i][j];
  std::vector<fr> w;
  for (std::size_t i = 1; i < t; ++i) w.push_back(m[i][0]);
  const std::vector<fr> w_hat = left_apply(invert(minor00(m)), w);
  double_prime = matrix(t, std::vector<fr>(t, fr::zero()));
  double_prime[0] = m[0];
  for (std::size_t i = 1; i < t; ++i) double_prime[i][0] = w_hat[i - 1], double_prime[i][i] = fr::one();
}

fr quintic(fr x, const fr* pre, const fr* post) {
  if (pre) x += *pre;
  const fr x2 = x * x;
  x = x * (x2 * x2);
  if (post) x += *post;
  return x;
}

poseidon_optimized make(unsigned arity) {
  const auto& plain = crypto::poseidon_constants_for(arity);
  poseidon_optimized o;
  o.t = plain.t, o.r_f = crypto::poseidon_full_rounds, o.r_p = plain.r_p;
  o.domain_tag = fr::from_u64((std::uint64_t{1} << arity) - 1);
  const std::size_t t = o.t, h = o.r_f / 2;
  o.mds.assign(t, std::vector<fr>(t));
  for (std::size_t i = 0; i < t; ++i)
    for (std::size_t j = 0; j < t; ++j) o.mds[i][j] = plain.mds[i * t + j];
  const matrix m_inv = invert(o.mds);
  auto keys = [&](std::size_t r) { return std::span<const fr>(plain.round).subspan(r * t, t); };
  auto& res = o.compressed_round_constants;
  // Initial full rounds: round 0's keys as they are, rounds 1..h-1 through M^-1.
  for (const fr& k : keys(0)) res.push_back(k);
  for (std::size_t i = 0; i + 1 < h; ++i)
    for (const fr& k : left_apply(m_inv, keys(i + 1))) res.push_back(k);
  // Partial rounds, folded from the last backwards: each leaves its element-0 share as its own key.
  const std::size_t final_round = h + o.r_p;
  std::vector<fr> acc(keys(final_round).begin(), keys(final_round).end());
  std::vector<fr> partial_keys;
  for (std::size_t i = 0; i < o.r_p; ++i) {
    std::vector<fr> inv = left_apply(m_inv, acc);
    partial_keys.push_back(inv[0]);
    inv[0] = fr::zero();
    const auto prev = keys(final_round - i - 1);
    for (std::size_t j = 0; j < t; ++j) acc[j] = prev[j] + inv[j];
  }
  for (const fr& k : left_apply(m_inv, acc)) res.push_back(k);
  for (auto it = partial_keys.rbegin(); it != partial_keys.rend(); ++it) res.push_back(*it);
  // Final full rounds but the last (which adds no key after its S-boxes).
  for (std::size_t i = 1; i < h; ++i)
    for (const fr& k : left_apply(m_inv, keys(i + final_round))) res.push_back(k);
  if (res.size() != o.r_f * t + o.r_p) throw std::logic_error("poseidon: compressed constants miscounted");
  // factor_to_sparse_matrices(M^T = M, R_P).
  matrix curr = o.mds;
  std::vector<matrix> doubles;
  for (std::size_t i = 0; i < o.r_p; ++i) {
    matrix prime, dprime;
    derive_prime(curr, prime, dprime);
    doubles.push_back(std::move(dprime));
    curr = mat_mul(o.mds, prime);
  }
  o.pre_sparse = std::move(curr);
  for (auto it = doubles.rbegin(); it != doubles.rend(); ++it) {
    poseidon_optimized::sparse s;
    for (std::size_t i = 0; i < t; ++i) s.w_hat.push_back((*it)[i][0]);
    s.v_rest.assign((*it)[0].begin() + 1, (*it)[0].end());
    o.sparse_matrices.push_back(std::move(s));
  }
  return o;
}

// neptune's Elt: a variable, or a Num (linear combination) not yet allocated.
struct elt {
  bool allocated = false;
  allocated_num a{};
  num n;
  fr value() const { return allocated ? a.value : n.value; }
  num as_num() const { return allocated ? num::from(a) : n; }
};

allocated_num ensure_allocated(cs::constraint_system& cs, const elt& e) {
  if (e.allocated) return e.a;
  const allocated_num v = allocated_num::alloc(cs, e.n.value);
  cs.enforce(e.n.lc, linear_combination(one_var), linear_combination(v.var));
  return v;
}

// mul_sum(a, b, pre, post): res = (b + pre) a + post; (b + pre) * a = res - post.
allocated_num mul_sum(cs::constraint_system& cs, const allocated_num& a, const allocated_num& b, const fr* pre,
                      const fr* post) {
  fr v = b.value;
  if (pre) v += *pre;
  v *= a.value;
  if (post) v += *post;
  const allocated_num r = allocated_num::alloc(cs, v);
  linear_combination l(b.var);
  if (pre) l.add(one_var, *pre);
  linear_combination c(r.var);
  if (post) c.add(one_var, -*post);
  cs.enforce(std::move(l), linear_combination(a.var), std::move(c));
  return r;
}

// x^5 (+ post) of an element: x^2, x^4, then x * x^4 (+ post).
elt quintic_s_box(cs::constraint_system& cs, const elt& e, const fr* post) {
  const allocated_num l = [&] {
    cs::constraint_system::scope s(cs, "S-box input");
    return ensure_allocated(cs, e);
  }();
  allocated_num l2, l4;
  {
    cs::constraint_system::scope s(cs, "l^2");
    l2 = l.square(cs);
  }
  {
    cs::constraint_system::scope s(cs, "l^4");
    l4 = l2.square(cs);
  }
  cs::constraint_system::scope s(cs, "(l4 * l) + rk)");
  return {true, mul_sum(cs, l4, l, nullptr, post), {}};
}

// The first round's S-box with a key before and after: (l + pre)^2, ^4, then (l + pre) x^4 + post.
elt quintic_s_box_pre_add(cs::constraint_system& cs, const elt& e, const fr& pre, const fr& post) {
  const allocated_num l = [&] {
    cs::constraint_system::scope s(cs, "S-box input");
    return ensure_allocated(cs, e);
  }();
  allocated_num l2;
  {
    cs::constraint_system::scope s(cs, "(l+rk)^2");
    const fr x = l.value + pre;
    l2 = allocated_num::alloc(cs, x * x);
    linear_combination a(l.var);
    a.add(one_var, pre);
    cs.enforce(a, a, linear_combination(l2.var));
  }
  allocated_num l4;
  {
    cs::constraint_system::scope s(cs, "l^4");
    l4 = l2.square(cs);
  }
  cs::constraint_system::scope s(cs, "l4 * (l + rk)");
  return {true, mul_sum(cs, l4, l, &pre, &post), {}};
}

class poseidon_circuit {
 public:
  poseidon_circuit(const poseidon_optimized& c, std::vector<elt> elements) : c_(c), e_(std::move(elements)) {}

  allocated_num hash(cs::constraint_system& cs) {
    const unsigned h = c_.r_f / 2;
    round(cs, "first round", true, false);
    for (unsigned i = 1; i < h; ++i) round(cs, "initial full round " + std::to_string(i), false, false);
    for (unsigned i = 0; i < c_.r_p; ++i) {
      cs::constraint_system::scope s(cs, "partial round " + std::to_string(i));
      const fr key = c_.compressed_round_constants[offset_++];
      cs::constraint_system::scope s2(cs, "solitary quintic s-box");
      e_[0] = quintic_s_box(cs, e_[0], &key);
      product_mds();
    }
    for (unsigned i = 0; i + 1 < h; ++i) round(cs, "final full round " + std::to_string(i), false, false);
    round(cs, "terminal full round", false, true);
    cs::constraint_system::scope s(cs, "hash result");
    return ensure_allocated(cs, e_[1]);
  }

 private:
  void round(cs::constraint_system& cs, const std::string& name, bool first, bool last) {
    cs::constraint_system::scope s(cs, name);
    const std::size_t t = c_.t;
    const fr* pre = first ? &c_.compressed_round_constants[offset_] : nullptr;
    if (first) offset_ += t;
    const fr* post = (first || !last) ? &c_.compressed_round_constants[offset_] : nullptr;
    if (post) offset_ += t;
    for (std::size_t i = 0; i < e_.size(); ++i) {
      if (first && i == 0) {  // the domain tag is a constant: its S-box folds into a constant
        e_[0] = {false, {}, num::constant(quintic(e_[0].value(), &pre[0], &post[0]))};
        continue;
      }
      cs::constraint_system::scope b(cs, "quintic s-box " + std::to_string(i));
      e_[i] = first ? quintic_s_box_pre_add(cs, e_[i], pre[i], post[i]) : quintic_s_box(cs, e_[i], post ? &post[i] : nullptr);
    }
    product_mds();
  }

  static num scalar_product(std::span<const elt> es, std::span<const fr> scalars) {
    num acc = num::zero();
    for (std::size_t i = 0; i < es.size(); ++i) acc = acc.add(es[i].as_num().scale(scalars[i]));
    return acc;
  }

  void product_mds() {
    const std::size_t t = c_.t, h = c_.r_f / 2, sparse_offset = h - 1;
    std::vector<elt> r(t);
    auto dense = [&](const std::vector<std::vector<fr>>& m) {
      std::vector<fr> column(t);
      for (std::size_t j = 0; j < t; ++j) {
        for (std::size_t i = 0; i < t; ++i) column[i] = m[i][j];
        r[j] = {false, {}, scalar_product(e_, column)};
      }
    };
    if (round_ == sparse_offset) {
      dense(c_.pre_sparse);
    } else if (round_ > sparse_offset && round_ < h + c_.r_p) {
      const auto& sm = c_.sparse_matrices[round_ - sparse_offset - 1];
      r[0] = {false, {}, scalar_product(e_, sm.w_hat)};
      for (std::size_t j = 1; j < t; ++j) r[j] = {false, {}, e_[j].as_num().add(e_[0].as_num().scale(sm.v_rest[j - 1]))};
    } else {
      dense(c_.mds);
    }
    e_ = std::move(r);
    ++round_;
  }

  const poseidon_optimized& c_;
  std::vector<elt> e_;
  std::size_t offset_ = 0;
  std::size_t round_ = 0;
};

}  // namespace

const poseidon_optimized& poseidon_optimized_for(unsigned arity) {
  static std::once_flag once[12];
  static poseidon_optimized table[12];
  if (arity >= 12) throw std::invalid_argument("poseidon circuit: unsupported arity " + std::to_string(arity));
  std::call_once(once[arity], [&] { table[arity] = make(arity); });
  return table[arity];
}

allocated_num poseidon_hash(cs::constraint_system& cs, std::span<const allocated_num> preimage) {
  return poseidon_hash(cs, preimage, poseidon_optimized_for(unsigned(preimage.size())).domain_tag);
}

allocated_num poseidon_hash(cs::constraint_system& cs, std::span<const allocated_num> preimage, const fr& domain_tag) {
  const auto& c = poseidon_optimized_for(unsigned(preimage.size()));
  std::vector<elt> elements;
  elements.push_back({false, {}, num::constant(domain_tag)});
  for (const auto& p : preimage) elements.push_back({true, p, {}});
  return poseidon_circuit(c, std::move(elements)).hash(cs);
}

}  // namespace cuzk::fil::circuit
