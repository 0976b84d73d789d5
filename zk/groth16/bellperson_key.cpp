#include "zk/groth16/bellperson_key.hpp"

#include <algorithm>
#include <atomic>
#include <string>

#include "zk/error.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/groth16/point_spans.hpp"
#include "zk/groth16/setup.hpp"
#include "zk/util/parallel.hpp"
#include "zk/util/zero_mapping.hpp"

namespace cuzk::zk::groth16 {

namespace {

struct params_storage {
  std::shared_ptr<const io::file_bytes> file;
  io::decoded_points<g1_affine> a, b1, c, h;
  io::decoded_points<g2_affine> b2;
};

// A key whose points stay in the file's form: the mapping, and the zeros its spans cover.
struct file_storage {
  std::shared_ptr<const io::file_bytes> file;
  std::shared_ptr<const zero_mapping> zeros;
};

}  // namespace

std::uint32_t bellperson_domain_size(std::uint32_t n_constraints, std::uint32_t n_public) {
  const std::uint64_t m = std::uint64_t{n_constraints} + n_public + 1;
  std::uint64_t n = 1;
  while (n < m) n <<= 1;
  return n > (std::uint64_t{1} << 31) ? 0 : std::uint32_t(n);
}

query_density bellperson_density(const io::r1cs& cs) {
  const std::uint32_t n_inputs = cs.n_public() + 1;
  // Marks set from all threads (a byte per wire; every writer stores 1).
  std::vector<std::uint8_t> in_a(cs.n_wires, 0), in_b(cs.n_wires, 0);
  for (std::uint32_t w = 0; w < n_inputs && w < cs.n_wires; ++w) in_a[w] = 1;
  parallel_for(cs.constraints.size(), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) {
      for (const auto& t : cs.constraints[i].a)
        if (t.wire < cs.n_wires) std::atomic_ref<std::uint8_t>(in_a[t.wire]).store(1, std::memory_order_relaxed);
      for (const auto& t : cs.constraints[i].b)
        if (t.wire < cs.n_wires) std::atomic_ref<std::uint8_t>(in_b[t.wire]).store(1, std::memory_order_relaxed);
    }
  }, 4096);
  query_density d;
  for (std::uint32_t w = 0; w < cs.n_wires; ++w) {
    if (in_a[w]) d.a_wires.push_back(w);
    if (in_b[w]) d.b_wires.push_back(w);
  }
  return d;
}

namespace {

// The key from the circuit's counts and density (what the .params file's sections must match).
io::zkey key_of(const io::bellperson_params& p, std::uint32_t n_wires, std::uint32_t n_public, std::uint32_t n_constraints,
                query_density d, const std::string& what, bool points_on_host) {
  auto mismatch = [&](const std::string& field, std::uint64_t file, std::uint64_t circuit) {
    throw input_error(p.path + ": " + field + " " + std::to_string(file) + ", the circuit needs " +
                      std::to_string(circuit) + " (a key for another circuit?)");
  };
  if (p.n_inputs() != std::uint64_t{n_public} + 1) mismatch("vk.ic has", p.n_inputs(), std::uint64_t{n_public} + 1);
  if (n_wires < n_public + 1) throw input_error(what + ": nWires < nPublic + 1");
  const std::uint32_t n = bellperson_domain_size(n_constraints, n_public);
  if (n == 0 || n > (std::uint32_t{1} << 28))
    throw input_error(what + ": " + std::to_string(n_constraints) + " constraints need a domain above 2^28");
  if (p.h.count != n - 1) mismatch("section h has", p.h.count, n - 1);
  if (p.l.count != n_wires - n_public - 1) mismatch("section l has", p.l.count, n_wires - n_public - 1);
  if (p.a.count != d.a_wires.size()) mismatch("section a has", p.a.count, d.a_wires.size());
  if (p.b_g1.count != d.b_wires.size()) mismatch("section b_g1 has", p.b_g1.count, d.b_wires.size());

  io::zkey key;
  key.path = p.path;
  key.convention = io::key_convention::bellperson;
  key.n_vars = n_wires;
  key.n_public = n_public;
  key.domain_size = n;
  while ((std::uint32_t{1} << key.log_domain) < n) ++key.log_domain;
  key.n_rows = n_constraints + n_public + 1;
  key.vk = p.vk;
  key.a_wires = std::move(d.a_wires);
  key.b_wires = std::move(d.b_wires);
  if (points_on_host) {
    auto st = std::make_shared<params_storage>();
    st->file = p.bytes;
    st->h = p.g1_section(p.h, "h");
    st->c = p.g1_section(p.l, "l");
    st->a = p.g1_section(p.a, "a");
    st->b1 = p.g1_section(p.b_g1, "b_g1");
    st->b2 = p.g2_section(p.b_g2, "b_g2");
    adopt_points(key, std::move(st));
    return key;
  }
  // The shape without the points: spans over zeros, the sections as the file holds them.
  auto st = std::make_shared<file_storage>();
  st->file = p.bytes;
  st->zeros = zero_points(key, {.a = p.a.count, .b = p.b_g1.count, .c = p.l.count, .h = p.h.count});
  key.storage = st;
  auto fp = std::make_shared<file_points>();
  const auto bytes = p.bytes->bytes();
  auto sec = [&](const io::bellperson_params::section& s, std::uint64_t size) {
    return bytes.subspan(s.offset, std::uint64_t{s.count} * size);
  };
  fp->bytes[file_points::a] = sec(p.a, 96);
  fp->bytes[file_points::b1] = sec(p.b_g1, 96);
  fp->bytes[file_points::b2] = sec(p.b_g2, 192);
  fp->bytes[file_points::c] = sec(p.l, 96);
  fp->bytes[file_points::h] = sec(p.h, 96);
  // The messages name the sections as the file does (l for c, b_g1 / b_g2 for b1 / b2).
  fp->describe = [params = p](int s, std::size_t i) {
    switch (s) {
      case file_points::a: return params.point_error(params.a, "a", i, false);
      case file_points::b1: return params.point_error(params.b_g1, "b_g1", i, false);
      case file_points::b2: return params.point_error(params.b_g2, "b_g2", i, true);
      case file_points::c: return params.point_error(params.l, "l", i, false);
      default: return params.point_error(params.h, "h", i, false);
    }
  };
  key.file_points = std::move(fp);
  return key;
}

}  // namespace

io::zkey bellperson_proving_key(const io::bellperson_params& p, const io::r1cs& cs, bool points_on_host) {
  auto key = key_of(p, cs.n_wires, cs.n_public(), cs.n_constraints, bellperson_density(cs), "r1cs", points_on_host);
  key.coefficients = pce_coefficients(cs);
  return key;
}

io::zkey bellperson_proving_key(const io::bellperson_params& p, const io::r1cs_layout& l, bool points_on_host) {
  auto coefs = pce_coefficients(l);  // checks the A and B terms
  // The densities from the entries: the appended input rows put every input in A, as
  // bellperson_density does.
  const std::uint32_t n_wires = l.header.n_wires;
  std::vector<std::uint8_t> in[2] = {std::vector<std::uint8_t>(n_wires, 0), std::vector<std::uint8_t>(n_wires, 0)};
  parallel_for(coefs.size(), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i)
      std::atomic_ref<std::uint8_t>(in[coefs[i].matrix][coefs[i].signal]).store(1, std::memory_order_relaxed);
  }, 1 << 16);
  query_density d;
  for (std::uint32_t w = 0; w < n_wires; ++w) {
    if (in[0][w]) d.a_wires.push_back(w);
    if (in[1][w]) d.b_wires.push_back(w);
  }
  auto key = key_of(p, n_wires, l.header.n_public(), l.header.n_constraints, std::move(d), "r1cs", points_on_host);
  key.coefficients = std::move(coefs);
  return key;
}

io::zkey bellperson_proving_key(const io::bellperson_params& p, const pce_compact& e, bool points_on_host) {
  const std::uint64_t wires = e.n_inputs() + e.n_aux();
  if (wires > 0xffffffffu || e.n_constraints() > 0xffffffffu)
    throw input_error("compact evaluator: " + std::to_string(wires) + " wires: too many for a key");
  return key_of(p, std::uint32_t(wires), std::uint32_t(e.n_inputs() - 1), std::uint32_t(e.n_constraints()),
                bellperson_density(e), "compact evaluator", points_on_host);
}

query_density bellperson_density(const pce_compact& e) {
  query_density d;
  for (std::uint64_t i = 0; i < e.n_inputs(); ++i) {
    d.a_wires.push_back(std::uint32_t(i));  // inputs are always dense in A
    if (e.input_in_b(i)) d.b_wires.push_back(std::uint32_t(i));
  }
  for (std::uint64_t j = 0; j < e.n_aux(); ++j) {
    if (e.aux_in_a(j)) d.a_wires.push_back(std::uint32_t(e.n_inputs() + j));
    if (e.aux_in_b(j)) d.b_wires.push_back(std::uint32_t(e.n_inputs() + j));
  }
  return d;
}

}  // namespace cuzk::zk::groth16
