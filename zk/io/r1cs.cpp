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

constexpr const char* matrix_name[] = {"A", "B", "C"};

// Every page of a lazily mapped file brought in on all threads (one read per 4 KiB page), so that
// the serial walk over the term counts takes no page faults of its own: a 2^24-row .r1cs is 3.2 GB.
void fault_in(std::span<const std::uint8_t> b) {
  constexpr std::size_t page = 4096;
  parallel_for((b.size() + page - 1) / page, [&](std::size_t lo, std::size_t hi) {
    std::uint8_t acc = 0;
    for (std::size_t i = lo; i < hi; ++i) acc ^= *static_cast<const volatile std::uint8_t*>(b.data() + i * page);
    static_cast<void>(acc);
  }, 1024);
}

}  // namespace

r1cs_layout r1cs_layout::parse(std::shared_ptr<const file_bytes> bytes, std::string name) {
  binfile f(name, std::move(bytes), "r1cs", 1);
  r1cs_layout l;
  l.bytes = f.data();
  r1cs& cs = l.header;
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
  l.section = f.bytes(2, "constraints");
  section_reader r(f, 2, "constraints", l.section);
  // Each constraint is at least 12 bytes (three empty combinations): bounds the reservation.
  if (std::uint64_t(cs.n_constraints) * 12 > l.section.size())
    r.fail("has " + std::to_string(l.section.size()) + " bytes, too few for " + std::to_string(cs.n_constraints) +
           " constraints");
  // Three term counts per constraint: where each constraint starts, and the section's extent.
  l.at.resize(std::size_t(cs.n_constraints) + 1);
  for (std::uint32_t i = 0; i < cs.n_constraints; ++i) {
    l.at[i] = r.position();
    for (int m = 0; m < 3; ++m) {
      std::uint32_t n = r.u32("a term count");
      if (std::uint64_t(n) * 36 > r.remaining())
        r.fail("ends inside constraint " + std::to_string(i) + " " + matrix_name[m] + " (" + std::to_string(n) +
               " terms of 36 bytes)");
      r.take(std::uint64_t(n) * 36, "terms");
    }
  }
  l.at[cs.n_constraints] = r.position();
  r.expect_end();
  return l;
}

r1cs_layout r1cs_layout::open(const std::string& path) {
  auto bytes = file_bytes::map(path, false);
  fault_in(bytes->bytes());
  return parse(std::move(bytes), path);
}

std::pair<std::uint32_t, const std::uint8_t*> r1cs_layout::terms(std::size_t i, int m) const {
  const std::uint8_t* p = section.data() + at[i];
  for (int k = 0; k < m; ++k) p += 4 + std::uint64_t(load_u32(p)) * 36;
  return {load_u32(p), p + 4};
}

bool r1cs_layout::term(const std::uint8_t* p, std::uint32_t& wire, bigint<4>& coeff) const {
  wire = load_u32(p);
  coeff = bigint<4>::from_le_bytes(p + 4);
  return wire < header.n_wires && coeff < fr::P;
}

std::string r1cs_layout::term_error(std::size_t i, int m, std::uint32_t t) const {
  std::uint32_t wire;
  bigint<4> v;
  term(terms(i, m).second + std::uint64_t(t) * 36, wire, v);
  return "constraint " + std::to_string(i) + " " + matrix_name[m] + " term " + std::to_string(t) +
         (wire >= header.n_wires
              ? ": wire " + std::to_string(wire) + " is not below nWires " + std::to_string(header.n_wires)
              : std::string(": coefficient is not below r"));
}

void r1cs_layout::fail(const std::string& what) const {
  throw input_error(header.path + ": " + section_label(2, "constraints") + " " + what);
}

namespace {

r1cs parse_r1cs(std::shared_ptr<const file_bytes> bytes, std::string name) {
  const r1cs_layout l = r1cs_layout::parse(std::move(bytes), std::move(name));
  r1cs cs = l.header;
  // The terms decoded and checked in parallel (a 2^24-constraint file is ~3 GB and 50 M linear
  // combinations: one thread took seconds). The first bad term in file order is the one reported,
  // whichever thread finds it.
  cs.constraints.resize(cs.n_constraints);
  std::atomic<std::size_t> first_bad{SIZE_MAX};
  std::mutex mu;
  std::string message;
  parallel_for(cs.n_constraints, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi && i < first_bad.load(std::memory_order_relaxed); ++i) {
      const std::uint8_t* p = l.section.data() + l.at[i];
      r1cs::linear_combination* lcs[] = {&cs.constraints[i].a, &cs.constraints[i].b, &cs.constraints[i].c};
      for (int m = 0; m < 3; ++m) {
        const std::uint32_t n = load_u32(p);
        p += 4;
        auto& lc = *lcs[m];
        lc.resize(n);
        for (std::uint32_t t = 0; t < n; ++t, p += 36) {
          std::uint32_t wire;
          bigint<4> v;
          if (!l.term(p, wire, v)) {
            std::string what = l.term_error(i, m, t);
            std::lock_guard lk(mu);
            if (i < first_bad) first_bad = i, message = std::move(what);
            return;
          }
          lc[t] = {wire, fr::from_canonical(v)};
        }
      }
    }
  }, 4096);
  if (first_bad != SIZE_MAX) l.fail(message);
  return cs;
}

}  // namespace

r1cs r1cs::load(const std::string& path) { return parse_r1cs(file_bytes::map(path), path); }

r1cs r1cs::parse(std::span<const std::uint8_t> bytes, std::string name) {
  return parse_r1cs(file_bytes::copy(bytes), std::move(name));
}

}  // namespace cuzk::zk::io
