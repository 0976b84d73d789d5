#include "zk/groth16/verifier.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "zk/bls12_381/subgroup.hpp"
#include "zk/msm/pippenger.hpp"
#include "zk/util/parallel.hpp"
#include "zk/groth16/random.hpp"

namespace cuzk::zk::groth16 {

namespace {

// The public-input combination sum_j s_j IC_j as one MSM (Pippenger). Its windows are split among
// the default pool's threads from a few hundred points up (a 32 GiB PoRep partition has 328
// inputs: ~5 ms of one proof's ~8 on one thread, ~11 ms of a batch's combined ~160-bit scalars);
// below that the pool's hand-off costs more than it saves.
g1_jacobian combine_ic(std::span<const g1_affine> ic, std::span<const bigint<4>> scalars) {
  msm_options opt;
  if (ic.size() < 128) opt.threads = 1;
  return msm<g1_curve>(ic, scalars, opt);
}

// Everything but the pairing equation: sizes, canonical inputs, points on their curves and in the
// prime-order subgroups.
bool prechecks(const verifying_key& vk, std::span<const bigint<4>> public_inputs, const proof& pi) {
  if (vk.ic.empty() || public_inputs.size() != vk.n_public()) return false;
  for (const auto& s : public_inputs)
    if (!fr::is_canonical(s)) return false;
  if (!pi.a.is_on_curve() || !pi.b.is_on_curve() || !pi.c.is_on_curve()) return false;
  return g1_in_subgroup(pi.a) && g2_in_subgroup(pi.b) && g1_in_subgroup(pi.c);
}

// vk_x = IC[0] + sum_i s_i IC[i+1] when the prechecks pass.
std::optional<g1_affine> check_and_combine(const verifying_key& vk, std::span<const bigint<4>> public_inputs,
                                           const proof& pi) {
  if (!prechecks(vk, public_inputs, pi)) return std::nullopt;
  g1_jacobian acc(vk.ic[0]);
  acc += combine_ic(std::span(vk.ic).subspan(1), public_inputs);
  return acc.to_affine();
}

}  // namespace

bool verify(const verifying_key& vk, std::span<const bigint<4>> public_inputs, const proof& pi) {
  auto vk_x = check_and_combine(vk, public_inputs, pi);
  if (!vk_x) return false;
  const std::array<std::pair<g1_affine, g2_affine>, 4> pairs{{
      {-pi.a, pi.b},
      {*vk_x, vk.gamma2},
      {pi.c, vk.delta2},
      {vk.alpha1, vk.beta2},
  }};
  return pairing_product_is_one(pairs);
}

prepared_verifying_key prepare(const verifying_key& vk) {
  return {vk, alpha_beta(vk).inverse(), prepare_g2(vk.gamma2), prepare_g2(vk.delta2), prepare_g2(vk.beta2)};
}

bool verify(const prepared_verifying_key& pvk, std::span<const bigint<4>> public_inputs, const proof& pi) {
  auto vk_x = check_and_combine(pvk.vk, public_inputs, pi);
  if (!vk_x) return false;
  const g2_prepared b = prepare_g2(pi.b);
  const std::array<std::pair<g1_affine, const g2_prepared*>, 3> pairs{{
      {-pi.a, &b},
      {*vk_x, &pvk.gamma2},
      {pi.c, &pvk.delta2},
  }};
  // e(-A, B) e(vk_x, gamma) e(C, delta) = e(alpha, beta)^-1
  return final_exponentiation(multi_miller_loop(pairs)) == pvk.alpha_beta_inverse;
}

// With z_i random, Z = sum z_i and S_j = sum_i z_i s_ij (in Fr, so the N public-input combinations
// become ONE MSM over the IC points):
//   prod_i e(-z_i A_i, B_i) * e(Z IC_0 + sum_j S_j IC_j, gamma) * e(sum_i z_i C_i, delta) * e(Z alpha, beta) == 1
// one (N + 3)-pair Miller loop over prepared lines (gamma, delta, beta from the key; B_i's once
// each) and one final exponentiation; e(alpha, beta)^Z becomes a pair, not an Fp12 power. The
// per-proof work (pre-checks, B's lines, the Miller loop's pairs) is shared among the default
// pool's threads.
batch_verdict verify_batch(const prepared_verifying_key& pvk, std::span<const std::vector<bigint<4>>> public_inputs,
                           std::span<const proof> proofs) {
  batch_verdict out;
  if (public_inputs.size() != proofs.size() || proofs.empty()) {
    for (std::size_t i = 0; i < proofs.size(); ++i) out.invalid.push_back(i);
    return out;
  }
  // Per proof, in parallel on the default pool: the pre-checks (the G2 subgroup check is the
  // costly one), a random z, -z A and B's Miller-loop lines.
  const std::size_t n = proofs.size(), n_pub = pvk.vk.n_public();
  std::vector<char> ok(n, 0);
  std::vector<bigint<4>> zs(n);
  std::vector<g2_prepared> bs(n);
  std::vector<g1_affine> za(n);
  for (auto& z : zs) {
    detail::os_random_bytes(z.limb.data(), 16);  // 128 bits
    if (z.is_zero()) z.limb[0] = 1;
  }
  parallel_for(n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      if (!prechecks(pvk.vk, public_inputs[i], proofs[i])) continue;
      ok[i] = 1;
      bs[i] = prepare_g2(proofs[i].b);
      za[i] = (-g1_jacobian(proofs[i].a).mul(zs[i])).to_affine();
    }
  });
  std::vector<std::size_t> batch;
  for (std::size_t i = 0; i < n; ++i) {
    if (ok[i]) batch.push_back(i);
    else out.invalid.push_back(i);
  }
  if (!batch.empty()) {
    std::vector<std::pair<g1_affine, const g2_prepared*>> pairs;
    pairs.reserve(batch.size() + 3);
    std::vector<fr> s(n_pub, fr::zero());
    std::vector<bigint<4>> bz(batch.size());
    std::vector<g1_affine> cs(batch.size());
    fr sum_z = fr::zero();
    for (std::size_t j = 0; j < batch.size(); ++j) {
      const std::size_t i = batch[j];
      const fr zf = fr::from_canonical(zs[i]);
      sum_z += zf;
      const auto& in = public_inputs[i];
      for (std::size_t k = 0; k < n_pub; ++k) s[k] += zf * fr::from_canonical(in[k]);
      bz[j] = zs[i];
      cs[j] = proofs[i].c;
      pairs.push_back({za[i], &bs[i]});
    }
    std::vector<bigint<4>> s_canon(n_pub + 1);  // Z, then S_1 .. S_n
    const bigint<4> z_sum = sum_z.to_canonical();
    s_canon[0] = z_sum;
    for (std::size_t k = 0; k < n_pub; ++k) s_canon[k + 1] = s[k].to_canonical();
    const g1_jacobian sum_x = combine_ic(pvk.vk.ic, s_canon);
    msm_options one_thread;
    one_thread.threads = 1;
    const g1_jacobian sum_c = msm<g1_curve>(std::span<const g1_affine>(cs), std::span<const bigint<4>>(bz), one_thread);
    pairs.push_back({sum_x.to_affine(), &pvk.gamma2});
    pairs.push_back({sum_c.to_affine(), &pvk.delta2});
    pairs.push_back({g1_jacobian(pvk.vk.alpha1).mul(z_sum).to_affine(), &pvk.beta2});
    // The Miller loop in one chunk of pairs per thread (each chunk pays its own 63 squarings,
    // about one pair's worth: chunks of at least two pairs), multiplied together.
    thread_pool& pool = default_pool();
    const std::size_t chunks = std::min<std::size_t>(pool.size(), pairs.size() / 2);
    fp12 f = fp12::one();
    if (chunks <= 1) {
      f = multi_miller_loop(pairs);
    } else {
      std::vector<fp12> parts(chunks);
      pool.run(chunks, [&](std::size_t c) {
        const std::size_t begin = pairs.size() * c / chunks, end = pairs.size() * (c + 1) / chunks;
        parts[c] = multi_miller_loop(std::span(pairs).subspan(begin, end - begin));
      });
      for (const auto& x : parts) f = f * x;
    }
    const bool batch_ok = final_exponentiation(f) == fp12::one();
    if (!batch_ok)
      for (std::size_t j = 0; j < batch.size(); ++j)
        if (!verify(pvk, public_inputs[batch[j]], proofs[batch[j]])) out.invalid.push_back(batch[j]);
  }
  std::sort(out.invalid.begin(), out.invalid.end());
  out.all_valid = out.invalid.empty();
  return out;
}

fp12 alpha_beta(const verifying_key& vk) { return pairing(vk.alpha1, vk.beta2); }

}  // namespace cuzk::zk::groth16
