#include "zk/io/snarkjs_json.hpp"

#include "zk/io/binfile.hpp"
#include "zk/io/json_bounded.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "zk/error.hpp"


namespace cuzk::zk::io::snarkjs {

using namespace cuzk::zk::bls12_381;

// ---- writing -----------------------------------------------------------------------------------

json g1_to_json(const g1_affine& p) {
  if (p.is_identity()) return json::array({"0", "1", "0"});
  return json::array({decimal(p.x), decimal(p.y), "1"});
}

json g2_to_json(const g2_affine& p) {
  auto fp2j = [](const fp2& e) { return json::array({decimal(e.c0), decimal(e.c1)}); };
  if (p.is_identity()) return json::array({json::array({"0", "0"}), json::array({"1", "0"}), json::array({"0", "0"})});
  return json::array({fp2j(p.x), fp2j(p.y), json::array({"1", "0"})});
}

json proof_to_json(const groth16::proof& p) {
  json j = json::object();
  j["pi_a"] = g1_to_json(p.a);
  j["pi_b"] = g2_to_json(p.b);
  j["pi_c"] = g1_to_json(p.c);
  j["protocol"] = "groth16";
  j["curve"] = "bls12381";
  return j;
}

json public_to_json(std::span<const bigint<4>> signals) {
  json j = json::array();
  for (auto& s : signals) j.push_back(s.to_decimal());
  return j;
}

json vk_to_json(const groth16::verifying_key& vk, const json& alphabeta_12) {
  json j = json::object();
  j["protocol"] = "groth16";
  j["curve"] = "bls12381";
  j["nPublic"] = vk.n_public();
  j["vk_alpha_1"] = g1_to_json(vk.alpha1);
  j["vk_beta_2"] = g2_to_json(vk.beta2);
  j["vk_gamma_2"] = g2_to_json(vk.gamma2);
  j["vk_delta_2"] = g2_to_json(vk.delta2);
  j["vk_alphabeta_12"] = alphabeta_12;
  json ic = json::array();
  for (auto& p : vk.ic) ic.push_back(g1_to_json(p));
  j["IC"] = std::move(ic);
  return j;
}

std::string dump(const json& j) { return j.dump(1); }

void write_file(const std::string& path, const json& j) {
  std::string text = dump(j);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error(path + ": cannot create: " + std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
}

// ---- reading -----------------------------------------------------------------------------------

namespace {

// Reading uses the std::map-backed nlohmann::json: ordered_json's linear key search makes a large hostile
// object quadratic, and order does not matter when reading.
using in_json = nlohmann::json;

// "path[i]", built by appending (GCC 12 warns falsely (-Wrestrict) on "[" + std::to_string(i)).
std::string index(std::string_view path, std::size_t i) {
  std::string s(path);
  s += '[';
  s += std::to_string(i);
  s += ']';
  return s;
}

class reader {
 public:
  explicit reader(const std::string& name) : name_(name) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw input_error(name_ + ": " + (path.empty() ? what : path + " " + what));
  }

  in_json parse(std::string_view text) const { return parse_json_bounded(text, name_); }

  const in_json& key(const in_json& obj, const char* k) const {
    if (!obj.is_object()) fail("", "is not a JSON object");
    auto it = obj.find(k);
    if (it == obj.end()) fail(k, "is missing");
    return *it;
  }

  const in_json& array(const in_json& v, const std::string& path, std::size_t min_n, std::size_t max_n,
                    const char* of) const {
    if (!v.is_array() || v.size() < min_n || v.size() > max_n)
      fail(path, std::string("is not an array of ") +
                     (min_n == max_n ? std::to_string(min_n) : std::to_string(min_n) + " or " + std::to_string(max_n)) +
                     " " + of);
    return v;
  }

  // A decimal string below the modulus (what snarkjs writes; it also reads decimal only).
  template <std::size_t N>
  bigint<N> integer(const in_json& v, const std::string& path, const bigint<N>& modulus, const char* field) const {
    if (!v.is_string()) fail(path, std::string("is not a decimal ") + field + " element");
    const auto& s = v.get_ref<const std::string&>();
    bool digits = !s.empty() && s.size() <= 200;
    for (char c : s) digits = digits && c >= '0' && c <= '9';
    if (!digits) fail(path, std::string("is not a decimal ") + field + " element");
    auto r = bigint<N>::parse(s);
    if (!r || *r >= modulus) fail(path, std::string("is not below the ") + field + " modulus");
    return *r;
  }

  fp base(const in_json& v, const std::string& path) const {
    return fp::from_canonical(integer(v, path, fp::P, "field"));
  }
  fp2 base2(const in_json& v, const std::string& path) const {
    array(v, path, 2, 2, "field elements");
    return {base(v[0], index(path, 0)), base(v[1], index(path, 1))};
  }

  // [x, y] or [x, y, z]: z = 1 affine, z = 0 infinity, other z Jacobian (X/Z^2, Y/Z^3), as snarkjs.
  template <class Point, class Coord>
  Point point(const in_json& v, const std::string& path, Coord coord) const {
    using F = typename Point::F;
    array(v, path, 2, 3, "coordinates");
    F x = coord(v[0], index(path, 0)), y = coord(v[1], index(path, 1));
    F z = v.size() == 3 ? coord(v[2], index(path, 2)) : F::one();
    Point p;
    if (z.is_zero()) {
      p = Point::identity();
    } else if (z == F::one()) {
      p = Point::of(x, y);
    } else {
      F zi = z.inverse(), zi2 = zi.sqr();
      p = Point::of(x * zi2, y * zi2 * zi);
    }
    if (!p.is_on_curve()) fail(path, "is not on the curve");
    return p;
  }

  g1_affine g1(const in_json& v, const std::string& path) const {
    return point<g1_affine>(v, path, [&](const in_json& e, const std::string& p) { return base(e, p); });
  }
  g2_affine g2(const in_json& v, const std::string& path) const {
    return point<g2_affine>(v, path, [&](const in_json& e, const std::string& p) { return base2(e, p); });
  }

  void expect_string(const in_json& obj, const char* k, const char* want, bool required) const {
    if (!obj.contains(k)) {
      if (required) fail(k, "is missing");
      return;
    }
    const in_json& v = obj[k];
    if (!v.is_string()) fail(k, std::string("is not a string, expected \"") + want + "\"");
    const auto& s = v.get_ref<const std::string&>();
    if (s == want) return;
    if (std::string_view(k) == "curve" && (s == "bn128" || s == "bn254"))
      fail("", "prime field is BN254's, cuzk proves on BLS12-381 only");
    fail(k, "is \"" + s + "\", expected \"" + want + "\"");
  }

 private:
  const std::string& name_;
};

// snarkjs's JSON files: a proof and its public signals are small; a verifying key grows with the
// public inputs (about 400 bytes of JSON each). 256 MiB is far above any of them.
constexpr std::uint64_t kMaxJsonBytes = std::uint64_t{256} << 20;

std::string read_text(const std::string& path) { return read_file_capped(path, kMaxJsonBytes, "snarkjs JSON file"); }

}  // namespace

groth16::proof parse_proof(std::string_view text, const std::string& name) {
  reader r(name);
  in_json j = r.parse(text);
  if (!j.is_object()) r.fail("", "is not a JSON object");
  r.expect_string(j, "protocol", "groth16", false);
  r.expect_string(j, "curve", "bls12381", false);
  groth16::proof p;
  p.a = r.g1(r.key(j, "pi_a"), "pi_a");
  p.b = r.g2(r.key(j, "pi_b"), "pi_b");
  p.c = r.g1(r.key(j, "pi_c"), "pi_c");
  return p;
}

std::vector<bigint<4>> parse_public(std::string_view text, const std::string& name) {
  reader r(name);
  in_json j = r.parse(text);
  if (!j.is_array()) r.fail("", "is not a JSON array of public signals");
  std::vector<bigint<4>> out;
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) out.push_back(r.integer(j[i], index("", i), fr::P, "scalar field"));
  return out;
}

groth16::verifying_key parse_vk(std::string_view text, const std::string& name) {
  reader r(name);
  in_json j = r.parse(text);
  if (!j.is_object()) r.fail("", "is not a JSON object");
  r.expect_string(j, "protocol", "groth16", true);
  r.expect_string(j, "curve", "bls12381", true);
  const in_json& np = r.key(j, "nPublic");
  if (!np.is_number_unsigned() || np.get<std::uint64_t>() > 0xfffffffeULL) r.fail("nPublic", "is not a count");
  std::uint64_t n_public = np.get<std::uint64_t>();
  groth16::verifying_key vk;
  vk.alpha1 = r.g1(r.key(j, "vk_alpha_1"), "vk_alpha_1");
  vk.beta2 = r.g2(r.key(j, "vk_beta_2"), "vk_beta_2");
  vk.gamma2 = r.g2(r.key(j, "vk_gamma_2"), "vk_gamma_2");
  vk.delta2 = r.g2(r.key(j, "vk_delta_2"), "vk_delta_2");
  const in_json& ic = r.key(j, "IC");
  if (!ic.is_array() || ic.size() != n_public + 1)
    r.fail("IC", "is not an array of nPublic + 1 = " + std::to_string(n_public + 1) + " points");
  for (std::size_t i = 0; i < ic.size(); ++i) vk.ic.push_back(r.g1(ic[i], index("IC", i)));
  return vk;
}

groth16::proof read_proof(const std::string& path) { return parse_proof(read_text(path), path); }
std::vector<bigint<4>> read_public(const std::string& path) { return parse_public(read_text(path), path); }
groth16::verifying_key read_vk(const std::string& path) { return parse_vk(read_text(path), path); }

}  // namespace cuzk::zk::io::snarkjs
