#include "zk/io/r1cs.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>

#include "zk/io/binfile.hpp"
#include "zk/util/parallel.hpp"
#include "zk/io/field_checks.hpp"

namespace cuzk::zk::io {

using bls12_381::fr;

namespace {

r1cs parse_r1cs(std::shared_ptr<const file_bytes> bytes, std::string name) {
  binfile f(name, std::move(bytes), "r1cs", 1);
  r1cs cs;
  cs.path = name;
  {
    section_reader r(f, 1, "header", f.bytes(1, "header"));
    expect_scalar_prime(r, "n8");
    cs.n_wires = r.u32("nWires");
    cs.n_pub_out = r.u32("nPubOut");
    cs.n_pub_in = r.u32("nPubIn");
    cs.n_prv_in = r.u32("nPrvIn");
    cs.n_labels = r.u64("nLabels");
    cs.n_constraints = r.u32("nConstraints");
    r.expect_end();
    std::uint64_t io = std::uint64_t(cs.n_pub_out) + cs.n_pub_in + cs.n_prv_in + 1;
    if (io > cs.n_wires)
      r.fail("declares " + std::to_string(io) + " input/output wires and the constant, more than nWires " +
             std::to_string(cs.n_wires));
  }
  auto s = f.bytes(2, "constraints");
  section_reader r(f, 2, "constraints", s);
  // Each constraint is at least 12 bytes (three empty combinations): bounds the reservation.
  if (std::uint64_t(cs.n_constraints) * 12 > s.size())
    r.fail("has " + std::to_string(s.size()) + " bytes, too few for " + std::to_string(cs.n_constraints) +
           " constraints");
  static const char* matrix[] = {"A", "B", "C"};
  // Two passes: the layout first, serially (three term counts per constraint: where each
  // constraint starts, and the section's extent), then the terms decoded and checked in parallel
  // (a 2^24-constraint file is ~3 GB and 50 M linear combinations: one thread took seconds). The
  // first bad term in file order is the one reported, whichever thread finds it.
  std::vector<std::uint64_t> at(std::size_t(cs.n_constraints) + 1);
  for (std::uint32_t i = 0; i < cs.n_constraints; ++i) {
    at[i] = r.position();
    for (int m = 0; m < 3; ++m) {
      std::uint32_t n = r.u32("a term count");
      if (std::uint64_t(n) * 36 > r.remaining())
        r.fail("ends inside constraint " + std::to_string(i) + " " + matrix[m] + " (" + std::to_string(n) +
               " terms of 36 bytes)");
      r.take(std::uint64_t(n) * 36, "terms");
    }
  }
  at[cs.n_constraints] = r.position();
  r.expect_end();
  cs.constraints.resize(cs.n_constraints);
  std::atomic<std::size_t> first_bad{SIZE_MAX};
  std::mutex mu;
  std::string message;
  parallel_for(cs.n_constraints, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi && i < first_bad.load(std::memory_order_relaxed); ++i) {
      const std::uint8_t* p = s.data() + at[i];
      r1cs::linear_combination* lcs[] = {&cs.constraints[i].a, &cs.constraints[i].b, &cs.constraints[i].c};
      for (int m = 0; m < 3; ++m) {
        const std::uint32_t n = load_u32(p);
        p += 4;
        auto& lc = *lcs[m];
        lc.resize(n);
        for (std::uint32_t t = 0; t < n; ++t, p += 36) {
          const std::uint32_t wire = load_u32(p);
          const auto v = bigint<4>::from_le_bytes(p + 4);
          const char* why = wire >= cs.n_wires ? "wire" : v >= fr::P ? "coefficient" : nullptr;
          if (why) {
            std::string what = "constraint " + std::to_string(i) + " " + matrix[m] + " term " + std::to_string(t) +
                               (*why == 'w' ? ": wire " + std::to_string(wire) + " is not below nWires " +
                                                  std::to_string(cs.n_wires)
                                            : std::string(": coefficient is not below r"));
            std::lock_guard lk(mu);
            if (i < first_bad) first_bad = i, message = std::move(what);
            return;
          }
          lc[t] = {wire, fr::from_canonical(v)};
        }
      }
    }
  }, 4096);
  if (first_bad != SIZE_MAX) r.fail(message);
  return cs;
}

}  // namespace

r1cs r1cs::load(const std::string& path) { return parse_r1cs(file_bytes::map(path), path); }

r1cs r1cs::parse(std::span<const std::uint8_t> bytes, std::string name) {
  return parse_r1cs(file_bytes::copy(bytes), std::move(name));
}

}  // namespace cuzk::zk::io
