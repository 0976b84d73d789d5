#include "zk/io/r1cs_dump.hpp"

#include <cstring>

#include "zk/io/binfile.hpp"

namespace cuzk::zk::io {

namespace {

class cursor {
 public:
  cursor(std::span<const std::uint8_t> b, const std::string& name) : b_(b), name_(name) {}
  const std::uint8_t* take(std::uint64_t n, const std::string& what) {
    if (b_.size() - pos_ < n)
      throw input_error(name_ + ": truncated in " + what + " (offset " + std::to_string(pos_) + ", file size " +
                        std::to_string(b_.size()) + ")");
    const std::uint8_t* p = b_.data() + pos_;
    pos_ += n;
    return p;
  }
  std::uint64_t left() const { return b_.size() - pos_; }

 private:
  std::span<const std::uint8_t> b_;
  const std::string& name_;
  std::uint64_t pos_ = 0;
};

bigint<4> scalar_at(const std::uint8_t* p) {
  bigint<4> v{};
  for (int l = 0; l < 4; ++l) v.limb[l] = load_u64(p + 8 * l);
  return v;
}

}  // namespace

r1cs_dump r1cs_dump::parse(std::span<const std::uint8_t> bytes, std::string name) {
  cursor c(bytes, name);
  if (std::memcmp(c.take(8, "the magic"), "CUZKR1CS", 8) != 0) throw input_error(name + ": not an R1CS dump (magic)");
  const std::uint32_t version = load_u32(c.take(4, "version"));
  if (version != 1) throw input_error(name + ": R1CS dump version " + std::to_string(version) + ", expected 1");
  const std::uint32_t flags = load_u32(c.take(4, "flags"));
  const std::uint64_t n_in = load_u64(c.take(8, "num_inputs")), n_aux = load_u64(c.take(8, "num_aux")),
                      n_con = load_u64(c.take(8, "num_constraints"));
  if (n_in == 0 || n_in + n_aux > 0xffffffffull || n_con > 0xffffffffull)
    throw input_error(name + ": counts out of range (inputs " + std::to_string(n_in) + ", aux " + std::to_string(n_aux) +
                      ", constraints " + std::to_string(n_con) + ")");
  // Every constraint takes at least 12 bytes: a count larger than the file allows is refused first.
  if (n_con > c.left() / 12) throw input_error(name + ": num_constraints " + std::to_string(n_con) + " exceeds the file");
  r1cs_dump d;
  d.cs.path = name;
  d.cs.n_wires = std::uint32_t(n_in + n_aux);
  d.cs.n_pub_in = std::uint32_t(n_in - 1);
  d.cs.n_prv_in = 0;
  d.cs.n_constraints = std::uint32_t(n_con);
  d.cs.constraints.resize(n_con);
  constexpr std::uint64_t aux_bit = std::uint64_t{1} << 63;
  for (std::uint64_t k = 0; k < n_con; ++k) {
    auto& con = d.cs.constraints[k];
    r1cs::linear_combination* lcs[3] = {&con.a, &con.b, &con.c};
    for (int m = 0; m < 3; ++m) {
      const std::string what = "constraint " + std::to_string(k) + " " + "ABC"[m];
      const std::uint32_t n = load_u32(c.take(4, what));
      if (n > c.left() / 40) throw input_error(name + ": " + what + ": " + std::to_string(n) + " terms exceed the file");
      const std::uint8_t* p = c.take(std::uint64_t{n} * 40, what);
      lcs[m]->resize(n);
      for (std::uint32_t t = 0; t < n; ++t, p += 40) {
        const std::uint64_t var = load_u64(p);
        const std::uint64_t wire = (var & aux_bit) ? n_in + (var & ~aux_bit) : var;
        if ((var & aux_bit) ? (var & ~aux_bit) >= n_aux : var >= n_in)
          throw input_error(name + ": " + what + " term " + std::to_string(t) + ": variable out of range");
        const bigint<4> v = scalar_at(p + 8);
        if (!bls12_381::fr::is_canonical(v))
          throw input_error(name + ": " + what + " term " + std::to_string(t) + ": coefficient not below r");
        (*lcs[m])[t] = {std::uint32_t(wire), bls12_381::fr::from_canonical(v)};
      }
    }
  }
  if (flags & 1) {
    witness w;
    w.path = name;
    const std::uint8_t* p = c.take((n_in + n_aux) * 32, "the witness");
    w.values.resize(n_in + n_aux);
    for (std::uint64_t i = 0; i < n_in + n_aux; ++i) {
      w.values[i] = scalar_at(p + 32 * i);
      if (!bls12_381::fr::is_canonical(w.values[i]))
        throw input_error(name + ": witness value " + std::to_string(i) + " not below r");
    }
    d.wit = std::move(w);
  }
  if (c.left() != 0) throw input_error(name + ": " + std::to_string(c.left()) + " bytes after the dump");
  return d;
}

r1cs_dump r1cs_dump::load(const std::string& path) {
  auto f = file_bytes::map(path);
  return parse(f->bytes(), path);
}

}  // namespace cuzk::zk::io
