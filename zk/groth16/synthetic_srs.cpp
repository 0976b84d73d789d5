#include "zk/groth16/synthetic_srs.hpp"

#include <charconv>
#include <memory>

#include "zk/error.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/groth16/point_spans.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::groth16 {

namespace {

bigint<4> scalar_of(std::uint64_t seed, std::uint32_t sec, std::uint64_t index) {
  bigint<4> k;
  synthetic::scalar_words(seed, sec, index, k.limb.data());
  return k;
}

template <class Curve>
affine_t<Curve> point_of(std::uint64_t seed, std::uint32_t sec, std::uint64_t index) {
  return jacobian_t<Curve>(Curve::generator()).mul(scalar_of(seed, sec, index)).to_affine();
}

// Each lane: k_t G, then + Q per point, normalized with one inversion per lane (Montgomery's trick).
template <class Curve>
std::vector<affine_t<Curve>> generate(std::uint64_t seed, std::uint32_t sec, std::uint64_t n, std::uint64_t lanes) {
  if (!lanes) lanes = synthetic::lanes_for(n);
  const std::uint64_t m = synthetic::run_length(n, lanes);
  std::vector<affine_t<Curve>> out(n);
  if (!n) return out;
  const jacobian_t<Curve> g(Curve::generator());
  const affine_t<Curve> q = point_of<Curve>(seed, sec, synthetic::step_index);
  parallel_for(default_pool(), lanes, [&](std::size_t l0, std::size_t l1) {
    std::vector<jacobian_t<Curve>> run;
    for (std::uint64_t t = l0; t < l1; ++t) {
      const std::uint64_t begin = t * m, end = std::min(n, begin + m);
      if (begin >= end) continue;
      run.clear();
      jacobian_t<Curve> p = g.mul(scalar_of(seed, sec, t));
      for (std::uint64_t i = begin; i < end; ++i) {
        run.push_back(p);
        p += q;
      }
      auto aff = batch_normalize(run);
      std::copy(aff.begin(), aff.end(), out.begin() + std::ptrdiff_t(begin));
    }
  });
  return out;
}

struct host_points {
  std::vector<g1_affine> a, b1, c, h;
  std::vector<g2_affine> b2;
};

}  // namespace

bool is_synthetic_key_path(std::string_view path) { return path.substr(0, synthetic_key_prefix.size()) == synthetic_key_prefix; }

std::string synthetic_key_path(const synthetic_key_spec& s) {
  return std::string(synthetic_key_prefix) + std::to_string(s.seed) + (s.host_points ? ":host:" : ":device:") + s.evaluator;
}

synthetic_key_spec parse_synthetic_key_path(std::string_view path) {
  const std::string whole(path);
  auto bad = [&](const std::string& what) {
    return input_error(whole + ": not a synthetic key path (synthetic:SEED:device|host:EVALUATOR): " + what);
  };
  if (!is_synthetic_key_path(path)) throw bad("no 'synthetic:' prefix");
  std::string_view rest = path.substr(synthetic_key_prefix.size());
  const auto c1 = rest.find(':');
  if (c1 == std::string_view::npos) throw bad("no seed");
  synthetic_key_spec s;
  const auto seed = rest.substr(0, c1);
  auto [ptr, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), s.seed);
  if (ec != std::errc() || ptr != seed.data() + seed.size() || seed.empty()) throw bad("seed '" + std::string(seed) + "'");
  rest = rest.substr(c1 + 1);
  const auto c2 = rest.find(':');
  if (c2 == std::string_view::npos) throw bad("no device|host");
  const auto where = rest.substr(0, c2);
  if (where == "host") s.host_points = true;
  else if (where != "device") throw bad("'" + std::string(where) + "' is not device or host");
  s.evaluator = std::string(rest.substr(c2 + 1));
  if (s.evaluator.empty()) throw bad("no evaluator file");
  return s;
}

std::vector<g1_affine> synthetic_g1(std::uint64_t seed, std::uint32_t sec, std::uint64_t n, std::uint64_t lanes) {
  return generate<g1_curve>(seed, sec, n, lanes);
}
std::vector<g2_affine> synthetic_g2(std::uint64_t seed, std::uint32_t sec, std::uint64_t n, std::uint64_t lanes) {
  return generate<g2_curve>(seed, sec, n, lanes);
}
g1_affine synthetic_step_g1(std::uint64_t seed, std::uint32_t sec) {
  return point_of<g1_curve>(seed, sec, synthetic::step_index);
}
g2_affine synthetic_step_g2(std::uint64_t seed, std::uint32_t sec) {
  return point_of<g2_curve>(seed, sec, synthetic::step_index);
}

synthetic_shape synthetic_shape_of(const pce_compact& e) {
  synthetic_shape s;
  s.n_inputs = e.n_inputs();
  s.n_aux = e.n_aux();
  s.n_constraints = e.n_constraints();
  s.domain = e.domain_size();
  s.density = bellperson_density(e);
  return s;
}

io::zkey synthetic_key(const pce_compact& e, std::uint64_t seed, bool on_host, std::string path) {
  synthetic_shape s = synthetic_shape_of(e);
  const std::uint64_t wires = s.n_inputs + s.n_aux;
  if (wires > 0xffffffffu || s.domain > (std::uint64_t{1} << 28) || s.n_inputs == 0)
    throw input_error(path + ": " + std::to_string(wires) + " wires, domain " + std::to_string(s.domain) +
                      ": not a shape a key can have");
  io::zkey key;
  key.path = std::move(path);
  key.convention = io::key_convention::bellperson;
  key.n_vars = std::uint32_t(wires);
  key.n_public = std::uint32_t(s.n_inputs - 1);
  key.domain_size = std::uint32_t(s.domain);
  while ((std::uint64_t{1} << key.log_domain) < s.domain) ++key.log_domain;
  key.n_rows = std::uint32_t(s.n_constraints + s.n_inputs);
  key.synthetic = true;
  key.synthetic_on_host = on_host;
  key.synthetic_seed = seed;
  // The vk: random multiples of the generators (valid group elements; no trapdoor behind them).
  auto g1_at = [&](std::uint64_t i) { return point_of<g1_curve>(seed, synthetic::sec_vk, i); };
  auto g2_at = [&](std::uint64_t i) { return point_of<g2_curve>(seed, synthetic::sec_vk, i); };
  key.vk.alpha1 = g1_at(0);
  key.vk.beta1 = g1_at(1);
  key.vk.delta1 = g1_at(2);
  key.vk.beta2 = g2_at(3);
  key.vk.gamma2 = g2_at(4);
  key.vk.delta2 = g2_at(5);
  key.vk.ic = synthetic_g1(seed, synthetic::sec_ic, s.n_inputs);
  const std::uint64_t na = s.density.a_wires.size(), nb = s.density.b_wires.size(), nh = s.domain - 1;
  if (on_host) {
    auto hp = std::make_shared<host_points>();
    hp->a = synthetic_g1(seed, synthetic::sec_a, na);
    hp->b1 = synthetic_g1(seed, synthetic::sec_b1, nb);
    hp->b2 = synthetic_g2(seed, synthetic::sec_b2, nb);
    hp->c = synthetic_g1(seed, synthetic::sec_l, s.n_aux);
    hp->h = synthetic_g1(seed, synthetic::sec_h, nh);
    adopt_points(key, std::move(hp));
  } else {
    key.storage = zero_points(key, {.a = na, .b = nb, .c = s.n_aux, .h = nh});
  }
  key.a_wires = std::move(s.density.a_wires);
  key.b_wires = std::move(s.density.b_wires);
  return key;
}

}  // namespace cuzk::zk::groth16
