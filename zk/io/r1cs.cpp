#include "zk/io/r1cs.hpp"

#include "zk/io/binfile.hpp"
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
  cs.constraints.resize(cs.n_constraints);
  static const char* matrix[] = {"A", "B", "C"};
  for (std::uint32_t i = 0; i < cs.n_constraints; ++i) {
    r1cs::linear_combination* lcs[] = {&cs.constraints[i].a, &cs.constraints[i].b, &cs.constraints[i].c};
    for (int m = 0; m < 3; ++m) {
      auto where = [&] { return "constraint " + std::to_string(i) + " " + matrix[m]; };
      std::uint32_t n = r.u32("a term count");
      if (std::uint64_t(n) * 36 > r.remaining())
        r.fail("ends inside " + where() + " (" + std::to_string(n) + " terms of 36 bytes)");
      auto& lc = *lcs[m];
      lc.resize(n);
      for (std::uint32_t t = 0; t < n; ++t) {
        std::uint32_t wire = r.u32("a wire");
        auto v = bigint<4>::from_le_bytes(r.take(32, "a coefficient").data());
        if (wire >= cs.n_wires)
          r.fail(where() + " term " + std::to_string(t) + ": wire " + std::to_string(wire) +
                 " is not below nWires " + std::to_string(cs.n_wires));
        if (v >= fr::P) r.fail(where() + " term " + std::to_string(t) + ": coefficient is not below r");
        lc[t] = {wire, fr::from_canonical(v)};
      }
    }
  }
  r.expect_end();
  return cs;
}

}  // namespace

r1cs r1cs::load(const std::string& path) { return parse_r1cs(file_bytes::map(path), path); }

r1cs r1cs::parse(std::span<const std::uint8_t> bytes, std::string name) {
  return parse_r1cs(file_bytes::copy(bytes), std::move(name));
}

}  // namespace cuzk::zk::io
