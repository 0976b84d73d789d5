#include "device_key.cuh"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>

#include "file_points.cuh"
#include "msm.cuh"
#include "msm_entry.hpp"
#include "synthetic_srs.cuh"
#include "zk/groth16/b2_plan.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/error.hpp"
#include "zk/groth16/synthetic_srs_rng.hpp"

namespace cuzk::gpu {

namespace {

constexpr std::size_t align256(std::size_t x) { return (x + 255) & ~std::size_t(255); }

// The sections' order in sets_plan: A, B1, B2, C, H (key order); sets go to H first.
constexpr int plan_order[sets_plan::sections] = {4, 0, 1, 2, 3};

// The five sections, in key order (A, B1, B2, C, H).
struct section_ref {
  device_points* dst;
  const void* src;
  std::size_t n, point_bytes;
  bool g2;
  std::uint32_t sec;  // a synthetic key's section (synthetic_srs_rng.hpp)
};

// The fewest sets that give as few bucket arrays as `most` sets do, and their best window.
std::pair<unsigned, unsigned> fewest_sets(std::size_t pts, unsigned most) {
  unsigned S = most, c = shifted_window_bits(pts, S);
  const unsigned arrays = (msm_windows(c) + S - 1) / S;
  S = (msm_windows(c) + arrays - 1) / arrays;
  return {S, shifted_window_bits(pts, S)};
}

}  // namespace

const char* section_name(int k) {
  static constexpr const char* names[sets_plan::sections] = {"A", "B1", "B2", "L", "H"};
  return k >= 0 && k < sets_plan::sections ? names[k] : "?";
}

sets_plan plan_shifted_sets(const std::size_t (&n)[sets_plan::sections],
                            const std::size_t (&point_bytes)[sets_plan::sections], const shift_policy& p) {
  sets_plan plan;
  // The lanes' plain scratch (lane 0: G1, the sections other than B2; lane 1: B2's G2).
  std::size_t plain_lane[2] = {0, 0};
  if (p.lane_scratch)
    for (int k = 0; k < sets_plan::sections; ++k)
      if (n[k]) plain_lane[k == 2] = std::max(plain_lane[k == 2], p.lane_scratch(k, 1, 0));
  plan.lane[0] = plain_lane[0];
  plan.lane[1] = plain_lane[1];
  if (!p.budget || p.window_forced) return plan;
  for (int k : plan_order) {
    const std::size_t pts = n[k], set_bytes = pts * point_bytes[k];
    if (pts < 2 || !set_bytes) continue;
    std::size_t most = std::min<std::size_t>(msm_windows(shifted_window_bits(pts)), max_shifted_sets);
    most = std::min(most, ((std::size_t(1) << 31) - 1) / pts);  // 31-bit point indices
    if (most < 2) continue;
    auto [S, c] = fewest_sets(pts, unsigned(most));
    plan.most[k] = S;
    const int lane = k == 2;
    // extra + scratch_extra <= room and extra <= budget throughout
    const std::size_t budget_left = p.budget - plan.extra;
    const std::size_t room_left = p.room == SIZE_MAX ? SIZE_MAX : p.room - plan.extra - plan.scratch_extra;
    for (;;) {
      const std::size_t cost = std::size_t(S - 1) * set_bytes;
      const std::size_t scratch = p.lane_scratch ? p.lane_scratch(k, S, c) : 0;
      const std::size_t grow = scratch > plan.lane[lane] ? scratch - plan.lane[lane] : 0;
      if (cost <= budget_left && cost + grow <= room_left) {
        plan.sets[k] = S;
        plan.c[k] = c;
        plan.extra += cost;
        plan.lane[lane] = std::max(plan.lane[lane], scratch);
        plan.scratch_extra = plan.lane[0] + plan.lane[1] - plain_lane[0] - plain_lane[1];
        break;
      }
      plan.fewer[k] = cost > budget_left ? "budget" : "room";
      if (S <= 2) break;
      std::tie(S, c) = fewest_sets(pts, S - 1);
    }
  }
  return plan;
}

device_key::device_key(device_context& ctx, const zk::groth16::key_points& key, const shift_policy& policy_in,
                       const zk::groth16::constraint_evaluator* evaluator, const placement_plan* where)
    : device_(ctx.device), source_(key) {
  if (where && !where->fits) throw std::runtime_error("cuda load_key: the key's placement does not fit the device");
  // Shifted sets only for a key wholly on the device: its room is better spent on points.
  const bool whole = !where || (where->kind == key_placement::resident && where->chunk == 0);
  const shift_policy policy = whole ? policy_in : shift_policy{};
  if (!whole) plan = *where;
  CUZK_CUDA(cudaSetDevice(ctx.device));
  namespace syn = zk::groth16::synthetic;
  section_ref secs[5] = {{&a, key.a.data(), key.a.size(), 96, false, syn::sec_a},
                         {&b1, key.b1.data(), key.b1.size(), 96, false, syn::sec_b1},
                         {&b2, key.b2.data(), key.b2.size(), 192, true, syn::sec_b2},
                         {&c, key.c.data(), key.c.size(), 96, false, syn::sec_l},
                         {&h, key.h.data(), key.h.size(), 96, false, syn::sec_h}};
  // A compact evaluator and its a, b, c first: the shifted sets below take only what is left.
  if (evaluator && evaluator->compact()) {
    compact = upload_compact(ctx, *evaluator->compact());
    abc = ctx.alloc(3 * evaluator->compact()->domain_size() * sizeof(fr_d), "cuda load_key: a, b, c of the device evaluator");
  }
  // A key in the file's form (key_points::file): the lowest bad index of each section, ~0 for none.
  using zk::groth16::file_points;
  dbuf<unsigned char> bad;
  auto* first_bad = [&]() -> unsigned long long* {
    if (!key.file) return nullptr;
    bad = ctx.alloc(5 * sizeof(unsigned long long), "cuda load_key: the file points' check results");
    CUZK_CUDA(cudaMemsetAsync(bad.get(), 0xff, 5 * sizeof(unsigned long long), ctx.compute));
    return reinterpret_cast<unsigned long long*>(bad.get());
  }();
  // Every section's plain points first, in key order; then the sets, in the plan's order (H
  // first), so that the section the plan favours is not refused the room that sections made
  // before it took.
  if (!whole && plan.chunk && plan.point_bytes_streamed)
    for (auto& b : stream_buf)
      b = ctx.alloc(plan.chunk * plan.point_bytes_streamed, "cuda load_key: a chunk buffer of a streamed key");
  // The lowest bad index a section's streamed chunks found (the file's form), ~0 for none.
  unsigned long long streamed_bad[5] = {~0ull, ~0ull, ~0ull, ~0ull, ~0ull};
  for (int k = 0; k < 5; ++k) {
    auto& s = secs[k];
    device_points& d = *s.dst;
    d.n = s.n;
    d.point_bytes = s.point_bytes;
    d.on_device = whole ? s.n : std::min(s.n, plan.on_device[k]);
    if (whole) plan.n[k] = plan.on_device[k] = s.n;
    const std::size_t bytes = d.on_device * s.point_bytes;
    if (bytes) {
      d.dev = ctx.alloc(bytes, "cuda load_key: a section of the key's points");
      if (key.synthetic)  // made here, on the compute stream (nothing to copy: NOT A SETUP)
        synthetic_points(d.dev.get(), s.n, s.g2, key.synthetic_seed, s.sec, 0, ctx.compute, 0, d.on_device);
      else if (key.file) {  // the file's bytes, made ours on the compute stream as each section lands
        const auto src = key.file->bytes[k];
        if (src.size() != s.n * s.point_bytes)
          throw std::invalid_argument("cuda load_key: a section's file points do not match its size");
        ctx.upload_async(d.dev.get(), src.data(), bytes);
        convert_file_points(d.dev.get(), d.on_device, s.g2, first_bad + k, ctx.compute);
      } else {
        ctx.upload_async(d.dev.get(), s.src, bytes);
      }
    }
    if (!d.streamed()) continue;
    // The streamed rest into pinned host memory in the device's form, a chunk at a time through
    // the chunk buffers (made or converted there, then copied back); host points are ours already.
    d.host = pinned_buf((s.n - d.on_device) * s.point_bytes);
    for (std::size_t off = d.on_device; off < s.n; off += plan.chunk) {
      const std::size_t len = std::min(plan.chunk, s.n - off), cb = len * s.point_bytes;
      unsigned char* dst = d.host.get() + (off - d.on_device) * s.point_bytes;
      if (!key.synthetic && !key.file) {
        std::memcpy(dst, static_cast<const unsigned char*>(s.src) + off * s.point_bytes, cb);
        continue;
      }
      unsigned char* buf = stream_buf[0].get();
      if (key.synthetic) {
        synthetic_points(buf, s.n, s.g2, key.synthetic_seed, s.sec, 0, ctx.compute, off, len);
      } else {
        const auto src = key.file->bytes[k];
        if (src.size() != s.n * s.point_bytes)
          throw std::invalid_argument("cuda load_key: a section's file points do not match its size");
        CUZK_CUDA(cudaMemsetAsync(first_bad + k, 0xff, sizeof(unsigned long long), ctx.compute));
        ctx.upload_async(buf, src.data() + off * s.point_bytes, cb);
        convert_file_points(buf, len, s.g2, first_bad + k, ctx.compute);
      }
      CUZK_CUDA(cudaMemcpyAsync(dst, buf, cb, cudaMemcpyDeviceToHost, ctx.compute));
      if (key.file) {
        unsigned long long chunk_bad = ~0ull;
        CUZK_CUDA(cudaMemcpyAsync(&chunk_bad, first_bad + k, sizeof chunk_bad, cudaMemcpyDeviceToHost, ctx.compute));
        CUZK_CUDA(cudaStreamSynchronize(ctx.compute));
        if (chunk_bad != ~0ull) streamed_bad[k] = std::min(streamed_bad[k], off + chunk_bad);
        CUZK_CUDA(cudaMemsetAsync(first_bad + k, 0xff, sizeof(unsigned long long), ctx.compute));
      } else {
        CUZK_CUDA(cudaStreamSynchronize(ctx.compute));  // before the buffer is made again
      }
    }
  }
  const std::size_t ns[5] = {key.a.size(), key.b1.size(), key.b2.size(), key.c.size(), key.h.size()};
  constexpr std::size_t pbs[5] = {96, 96, 192, 96, 96};
  const sets_plan plan = plan_shifted_sets(ns, pbs, policy);
  // The plan's sets, unless the device's free memory says otherwise: after a section's shift (its
  // plain copy freed) what is free must still hold the later sections' planned sets, both MSM lanes'
  // scratch with these sets (the same lane_scratch as the plan's), the rest of a proof's scratch,
  // the staged partitions and keep_free: the numbers of the plan's room, here against the device.
  // Where they do not fit, the most fewer sets that do (the grant, device_key_bytes, covers the
  // plan's: an upper bound), and the report says so.
  unsigned made_s[5] = {1, 1, 1, 1, 1}, made_c[5] = {};
  bool done[5] = {};
  std::string why[5];
  auto lanes = [&](int k, unsigned S, unsigned cb) -> std::size_t {
    if (!policy.lane_scratch) return 0;
    std::size_t l[2] = {0, 0};
    for (int j = 0; j < 5; ++j) {
      if (!ns[j]) continue;
      const unsigned sj = j == k ? S : done[j] ? made_s[j] : plan.sets[j];
      const unsigned cj = j == k ? cb : done[j] ? made_c[j] : plan.c[j];
      l[j == 2] = std::max(l[j == 2], policy.lane_scratch(j, sj, sj > 1 ? cj : 0));
    }
    return l[0] + l[1];
  };
  for (int i = 0; i < 5; ++i) {
    const int k = plan_order[i];
    auto& s = secs[k];
    device_points& d = *s.dst;
    const std::size_t bytes = s.n * s.point_bytes;
    done[k] = true;
    if (!bytes || plan.sets[k] < 2) continue;
    std::size_t later = 0;
    for (int j = i + 1; j < 5; ++j) later += std::size_t(plan.sets[plan_order[j]] - 1) * ns[plan_order[j]] * pbs[plan_order[j]];
    std::size_t short_by = 0;
    auto fits = [&](unsigned S, unsigned cb) {
      const std::size_t sb = std::size_t(S) * bytes, free = ctx.free_bytes();
      const std::size_t need = sb + later + lanes(k, S, cb) + policy.fixed_scratch + policy.staged + policy.keep_free;
      if (free >= sb && free + bytes >= need) return true;
      if (!short_by) short_by = free < sb ? sb - free : need - free - bytes;
      return false;
    };
    unsigned sets = plan.sets[k], cbits = plan.c[k];
    while (sets >= 2 && !fits(sets, cbits)) std::tie(sets, cbits) = fewest_sets(s.n, sets - 1);
    if (short_by)
      why[k] = "load: " + std::to_string(sets < 2 ? 1 : sets) + " of the plan's " + std::to_string(plan.sets[k]) +
               ", the device " + std::to_string((short_by + 999999) / 1000000) + " MB short for them";
    if (sets < 2) continue;
    const std::size_t sb = std::size_t(sets) * bytes;
    dbuf<unsigned char> out = ctx.alloc(sb, "cuda load_key: shifted sets");
    if (s.g2) msm_g2_shift(d.dev.get(), s.n, cbits, sets, out.get(), ctx.compute);
    else msm_g1_shift(d.dev.get(), s.n, cbits, sets, out.get(), ctx.compute);
    CUZK_CUDA(cudaStreamSynchronize(ctx.compute));  // before the plain copy is freed
    d.dev = std::move(out);
    d.shift_c = cbits;
    d.sets = sets;
    made_s[k] = sets;
    made_c[k] = cbits;
  }
  {
    // The report: per section the sets made of the plan's (and of the most its shape allows), and
    // why fewer; the lanes' scratch with them; the room they were planned in.
    auto gbs = [](std::size_t b) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f GB", double(b) / 1e9);
      return std::string(buf);
    };
    // "H 4 (c 24; 6 planned; 11 possible, fewer for the room; load: ...)": the parts that differ.
    std::string line = "shifted sets:";
    for (int k : plan_order) {
      if (!ns[k]) continue;
      std::string notes;
      auto note = [&](const std::string& x) { notes += (notes.empty() ? "" : "; ") + x; };
      if (made_s[k] > 1) note("c " + std::to_string(made_c[k]));
      if (made_s[k] != plan.sets[k]) note(std::to_string(plan.sets[k]) + " planned");
      if (plan.sets[k] != plan.most[k])
        note(std::to_string(plan.most[k]) + " possible, fewer for the " + plan.fewer[k]);
      if (!why[k].empty()) note(why[k]);
      line += std::string(" ") + section_name(k) + " " + std::to_string(made_s[k]) + (notes.empty() ? "" : " (" + notes + ")") + ",";
    }
    line.back() = ';';
    line += " made " + gbs(shifted_bytes()) + " of the plan's " + gbs(plan.extra);
    if (policy.lane_scratch) line += "; the plan's MSM lane scratch G1 " + gbs(plan.lane[0]) + ", G2 " + gbs(plan.lane[1]);
    if (policy.room != SIZE_MAX) line += "; room " + gbs(policy.room);
    line += ", staged partitions " + gbs(policy.staged);
    if (policy.budget != SIZE_MAX && policy.budget) line += ", explicit size " + gbs(policy.budget);
    if (!policy.budget) line = "shifted sets: none (off)";
    else if (policy.window_forced) line = "shifted sets: none (a forced MSM window)";
    if (!whole) {
      // "partly resident: A, B1, L, B2 on the device, H 4.7 of 12.9 GB; 8.2 GB streamed a proof in chunks of 4194304"
      line = std::string(placement_name(this->plan.kind)) + ":";
      for (int k : residency_order) {
        if (!ns[k]) continue;
        const device_points& d = *secs[k].dst;
        line += std::string(" ") + section_name(k) + " " +
                (d.on_device == d.n ? "on the device" : d.on_device == 0 ? "streamed"
                                                                         : gbs(d.on_device * d.point_bytes) + " of " +
                                                                               gbs(d.n * d.point_bytes) + " on the device") +
                ",";
      }
      line.back() = ';';
      if (this->plan.host_bytes)
        line += " " + gbs(this->plan.host_bytes) + " streamed a proof from pinned host memory in chunks of " +
                std::to_string(this->plan.chunk) + " points";
      else
        line += " MSMs in runs of " + std::to_string(this->plan.chunk) + " points (their scratch at that length)";
    }
    placement_ = std::move(line);
  }
  if (key.file) {  // the first bad point in the host decoder's order is the one named
    unsigned long long first[5];
    CUZK_CUDA(cudaMemcpyAsync(first, first_bad, sizeof first, cudaMemcpyDeviceToHost, ctx.compute));
    CUZK_CUDA(cudaStreamSynchronize(ctx.compute));
    for (int sec : file_points::check_order) {
      const unsigned long long bad_at = std::min(first[sec], streamed_bad[sec]);
      if (bad_at != ~0ull) throw zk::input_error(key.file->describe(sec, std::size_t(bad_at)));
    }
  }
  if (key.bellperson) {
    b_wires_at_ = align256(key.a_wires.size() * 4) / 4;
    const std::size_t bytes = align256(key.a_wires.size() * 4) + align256(key.b_wires.size() * 4);
    if (bytes) {
      wires = ctx.alloc(bytes, "cuda load_key: the A and B wires");
      if (!key.a_wires.empty()) ctx.upload_async(wires.get(), key.a_wires.data(), key.a_wires.size_bytes());
      if (!key.b_wires.empty())
        ctx.upload_async(wires.get() + b_wires_at_ * 4, key.b_wires.data(), key.b_wires.size_bytes());
    }
  }
  if (evaluator && !evaluator->compact()) pce = upload_matrices(ctx, *evaluator);
}

bool device_key::synthesizes(const zk::groth16::constraint_evaluator& e) const {
  return e.compact() && compact.source == e.compact() && abc.get();
}

std::uint64_t device_key::bytes() const {
  std::uint64_t t = wires.bytes() + pce.dev.bytes() + compact.dev.bytes() + abc.bytes() + stream_buf[0].bytes() +
                    stream_buf[1].bytes();
  for (const device_points* d : {&a, &b1, &b2, &c, &h}) t += d->dev.bytes();
  return t;
}

std::size_t device_key::shifted_bytes() const {
  std::size_t t = 0;
  for (const device_points* d : {&a, &b1, &b2, &c, &h}) t += d->shifted_extra();
  return t;
}

bool device_key::made_from(const zk::groth16::key_points& k) const {
  auto same = [](auto x, auto y) { return x.data() == y.data() && x.size() == y.size(); };
  return k.synthetic == source_.synthetic && k.file == source_.file && k.synthetic_seed == source_.synthetic_seed && same(k.a, source_.a) && same(k.b1, source_.b1) && same(k.b2, source_.b2) && same(k.c, source_.c) &&
         same(k.h, source_.h) && k.bellperson == source_.bellperson && same(k.a_wires, source_.a_wires) &&
         same(k.b_wires, source_.b_wires);
}

std::span<const zk::bls12_381::g2_affine> device_key::host_b2(device_context& ctx) const {
  if (source_.points_on_host()) return source_.b2;
  if (!source_.b2_host || b2.streamed()) return {};
  return source_.b2_host->get(b2.n, [&](std::span<zk::bls12_381::g2_affine> out) {
    static_assert(sizeof(zk::bls12_381::g2_affine) == 192, "device G2 points are the host's bytes");
    CUZK_CUDA(cudaSetDevice(device_));
    if (b2.n) ctx.download(out.data(), b2.dev.get(), b2.n * sizeof(zk::bls12_381::g2_affine));  // set 0: the plain copy
  });
}

device_key::matrices device_key::upload_matrices(device_context& ctx, const zk::groth16::constraint_evaluator& pce) {
  const auto& A = pce.a();
  const auto& B = pce.b();
  auto part_bytes = [&](const zk::groth16::csr_matrix& m) {
    return align256(m.row_start.size() * 8) + align256(m.signal.size() * 4) + align256(m.coeff.size() * 32);
  };
  matrices r;
  r.source = &pce;
  r.dev = ctx.alloc(part_bytes(A) + part_bytes(B), "cuda synthesize: the constraint matrices");
  unsigned char* p = r.dev.get();
  auto put = [&](const zk::groth16::csr_matrix& m, csr_view& v) {
    v.rows = m.rows();
    v.row_start = reinterpret_cast<const uint64_t*>(p);
    ctx.upload_async(p, m.row_start.data(), m.row_start.size() * 8);
    p += align256(m.row_start.size() * 8);
    v.signal = reinterpret_cast<const uint32_t*>(p);
    if (!m.signal.empty()) ctx.upload_async(p, m.signal.data(), m.signal.size() * 4);
    p += align256(m.signal.size() * 4);
    v.coeff = reinterpret_cast<const fr_d*>(p);
    if (!m.coeff.empty()) ctx.upload_async(p, m.coeff.data(), m.coeff.size() * 32);
    p += align256(m.coeff.size() * 32);
  };
  put(A, r.a);
  put(B, r.b);
  return r;
}

std::uint64_t device_key_bytes(const zk::groth16::key_points& key, const shift_policy& policy,
                               const zk::groth16::constraint_evaluator* pce) {
  const std::size_t ns[5] = {key.a.size(), key.b1.size(), key.b2.size(), key.c.size(), key.h.size()};
  const std::size_t pbs[5] = {96, 96, 192, 96, 96};
  std::uint64_t total = plan_shifted_sets(ns, pbs, policy).extra;
  for (int k = 0; k < 5; ++k) total += ns[k] * pbs[k];
  if (key.bellperson) total += align256(key.a_wires.size() * 4) + align256(key.b_wires.size() * 4);
  if (pce && pce->compact())
    total += compact_device_bytes(*pce->compact()) + 3 * pce->compact()->domain_size() * sizeof(fr_d);
  return total;
}

}  // namespace cuzk::gpu
