#include "zk/groth16/streaming_setup.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "zk/bls12_381/compressed.hpp"
#include "zk/error.hpp"
#include "zk/groth16/bellperson_key.hpp"
#include "zk/groth16/setup_detail.hpp"
#include "zk/io/bellperson.hpp"
#include "zk/ntt/domain.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::groth16 {

namespace {

constexpr std::size_t lock_stripes = std::size_t{1} << 16;
// Neighbouring aux share a lock: a part's terms mostly name the variables it allocated, in runs.
std::size_t stripe_of(std::uint64_t aux) { return (aux >> 4) & (lock_stripes - 1); }

class spin_guard {
 public:
  explicit spin_guard(std::atomic<std::uint8_t>& l) : l_(l) {
    while (l_.exchange(1, std::memory_order_acquire))
      while (l_.load(std::memory_order_relaxed)) __builtin_ia32_pause();
  }
  ~spin_guard() { l_.store(0, std::memory_order_release); }

 private:
  std::atomic<std::uint8_t>& l_;
};

std::mutex registry_mu;
std::map<std::string, point_multiplier_factory>& registry() {
  static std::map<std::string, point_multiplier_factory> r;
  return r;
}

}  // namespace

void register_point_multiplier(const std::string& name, point_multiplier_factory factory) {
  std::lock_guard lk(registry_mu);
  registry()[name] = std::move(factory);
}

std::unique_ptr<point_multiplier> make_point_multiplier(const std::string& name, int device) {
  point_multiplier_factory f;
  {
    std::lock_guard lk(registry_mu);
    const auto it = registry().find(name);
    if (it == registry().end())
      throw input_error("setup backend " + name + ": not in this build (it has " +
                        (registry().empty() ? std::string("the host's only") : registry().begin()->first) + ")");
    f = it->second;
  }
  return f(device);
}

// One part's rows, added into the accumulator as they come: aux terms straight into the shared
// u, v, w under their stripe's lock; input terms (ONE is in nearly every part) into the part's own
// sums, added to the accumulator's when the part is appended.
class qap_part : public cs::constraint_sink {
 public:
  qap_part(qap_accumulator& acc, std::uint64_t first)
      : acc_(acc), first_(first), next_(first), in_(acc.counts_.inputs), in_b_(acc.counts_.inputs, 0) {}

  void constraint(const cs::linear_combination& a, const cs::linear_combination& b,
                  const cs::linear_combination& c) override {
    const std::uint64_t j = next_++;
    if (j >= acc_.counts_.constraints)
      throw std::logic_error("qap_accumulator: more constraints than the " + std::to_string(acc_.counts_.constraints) +
                             " counted");
    const fr& l = acc_.lag_[j];
    add(a, l, 0);
    add(b, l, 1);
    add(c, l, 2);
  }

 private:
  void add(const cs::linear_combination& lc, const fr& l, int m) {
    static const fr one = fr::one(), minus_one = -fr::one();
    for (const auto& [var, coeff] : lc.terms()) {
      // Most coefficients are +-1: no multiplication.
      const fr t = coeff == one ? l : coeff == minus_one ? -l : coeff * l;
      const std::uint64_t i = var.index();
      if (var.is_aux()) {
        if (i >= acc_.counts_.aux)
          throw std::logic_error("qap_accumulator: aux " + std::to_string(i) + " beyond the " +
                                 std::to_string(acc_.counts_.aux) + " counted");
        spin_guard g(acc_.locks_[stripe_of(i)]);
        auto& s = acc_.aux_[i];
        if (m == 0) s.u += t, acc_.aux_in_a_[i] = 1;
        else if (m == 1) s.v += t, acc_.aux_in_b_[i] = 1;
        else s.w += t;
      } else {
        if (i >= in_.size())
          throw std::logic_error("qap_accumulator: input " + std::to_string(i) + " beyond the " +
                                 std::to_string(in_.size()) + " counted");
        auto& s = in_[i];
        if (m == 0) s.u += t;
        else if (m == 1) s.v += t, in_b_[i] = 1;
        else s.w += t;
      }
    }
  }

  qap_accumulator& acc_;
  std::uint64_t first_, next_;
  std::vector<qap_accumulator::trio> in_;
  std::vector<std::uint8_t> in_b_;
  friend class qap_accumulator;
};

namespace {
constexpr std::uint64_t own_rows = std::uint64_t{1} << 18;  // constraint()'s rows appended in batches
}

qap_accumulator::qap_accumulator(const toxic_waste& tw, const circuit_counts& counts,
                                 std::function<void(std::uint64_t, std::uint64_t)> progress)
    : tw_(tw), counts_(counts), progress_(std::move(progress)) {
  if (counts.inputs < 1 || counts.inputs > 0xffffffffu || counts.aux > 0xffffffffu ||
      counts.constraints > 0xffffffffu || counts.inputs + counts.aux > 0xffffffffu)
    throw input_error("circuit: " + std::to_string(counts.inputs) + " inputs, " + std::to_string(counts.aux) +
                      " aux, " + std::to_string(counts.constraints) + " constraints: too many for a key");
  n_ = bellperson_domain_size(std::uint32_t(counts.constraints), std::uint32_t(counts.inputs - 1));
  if (n_ == 0 || n_ > (std::uint32_t{1} << 28))
    throw input_error("circuit: " + std::to_string(counts.constraints) + " constraints need a domain above 2^28");
  while ((std::uint32_t{1} << k_) < n_) ++k_;
  const fr omega = ntt::root_of_unity(k_, ntt::bellperson_generator);
  const fr tau_n = tw.tau.pow(std::uint64_t(n_));
  if (tau_n.sqr() == fr::one()) throw std::invalid_argument("setup: tau is a 2n-th root of unity; choose another seed");
  // L_j(tau) over the size-n domain: (tau^n - 1)/n * omega^j / (tau - omega^j), as setup() has them.
  lag_ = detail::lagrange_at(tw.tau, fr::one(), omega, n_, (tau_n - fr::one()) * fr::from_u64(n_).inverse());
  aux_.resize(counts.aux);
  aux_in_a_.resize(counts.aux);
  aux_in_b_.resize(counts.aux);
  parallel_for(counts.aux, [&](std::size_t lo, std::size_t hi) {
    std::fill(aux_.begin() + std::ptrdiff_t(lo), aux_.begin() + std::ptrdiff_t(hi), trio{});
    std::fill(aux_in_a_.begin() + std::ptrdiff_t(lo), aux_in_a_.begin() + std::ptrdiff_t(hi), 0);
    std::fill(aux_in_b_.begin() + std::ptrdiff_t(lo), aux_in_b_.begin() + std::ptrdiff_t(hi), 0);
  }, 1 << 16);
  in_.assign(counts.inputs, trio{});
  in_in_b_.assign(counts.inputs, 0);
  locks_ = std::make_unique<std::atomic<std::uint8_t>[]>(lock_stripes);
  for (std::size_t i = 0; i < lock_stripes; ++i) locks_[i].store(0, std::memory_order_relaxed);
}

qap_accumulator::~qap_accumulator() = default;

void qap_accumulator::constraint(const cs::linear_combination& a, const cs::linear_combination& b,
                                 const cs::linear_combination& c) {
  if (!own_) own_ = std::make_unique<qap_part>(*this, next_);
  own_->constraint(a, b, c);
  if (own_->next_ - own_->first_ >= own_rows) flush_own();
}

void qap_accumulator::flush_own() {
  if (!own_) return;
  auto own = std::move(own_);
  append_part(*own);
}

std::unique_ptr<cs::constraint_sink> qap_accumulator::part(std::uint64_t first_constraint) {
  return std::make_unique<qap_part>(*this, first_constraint);
}

void qap_accumulator::append_part(cs::constraint_sink& sink) {
  auto* p = dynamic_cast<qap_part*>(&sink);
  if (!p || &p->acc_ != this) throw std::logic_error("qap_accumulator::append_part: not a part() of this accumulator");
  if (own_ && p != own_.get()) flush_own();  // constraint()'s rows came first
  // Parts are appended in the system's order: each must start where the last ended, or its L_j were
  // the wrong rows'.
  if (p->first_ != next_)
    throw std::logic_error("qap_accumulator: a part starting at constraint " + std::to_string(p->first_) +
                           " appended after " + std::to_string(next_));
  for (std::size_t i = 0; i < in_.size(); ++i) {
    in_[i].u += p->in_[i].u;
    in_[i].v += p->in_[i].v;
    in_[i].w += p->in_[i].w;
    in_in_b_[i] |= p->in_b_[i];
  }
  next_ = p->next_;
  if (progress_) progress_(next_, counts_.constraints);
}

qap_accumulator::polys qap_accumulator::at(std::uint64_t wire) const {
  if (wire < counts_.inputs) return {in_[wire].u, in_[wire].v, in_[wire].w, true, in_in_b_[wire] != 0};
  const std::uint64_t j = wire - counts_.inputs;
  if (j >= counts_.aux) throw std::out_of_range("qap_accumulator::at: wire " + std::to_string(wire));
  return {aux_[j].u, aux_[j].v, aux_[j].w, aux_in_a_[j] != 0, aux_in_b_[j] != 0};
}

void qap_accumulator::finish(const circuit_counts& got) {
  flush_own();
  if (got.inputs != counts_.inputs || got.aux != counts_.aux || got.constraints != counts_.constraints ||
      next_ != counts_.constraints)
    throw std::logic_error("qap_accumulator: the circuit synthesized " + std::to_string(got.inputs) + " inputs, " +
                           std::to_string(got.aux) + " aux, " + std::to_string(got.constraints) + " constraints (" +
                           std::to_string(next_) + " appended); it was counted with " +
                           std::to_string(counts_.inputs) + ", " + std::to_string(counts_.aux) + ", " +
                           std::to_string(counts_.constraints));
  // bellperson's `input_s * 0 = 0` rows after the circuit's.
  for (std::uint64_t s = 0; s < counts_.inputs; ++s) in_[s].u += lag_[counts_.constraints + s];
  std::vector<fr>().swap(lag_);
  finished_ = true;
}

namespace {

// A file written from one thread while the next chunk is computed on the others, hashed as it goes.
class stream_file {
 public:
  explicit stream_file(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw input_error(path_ + ": cannot open for writing: " + std::strerror(errno));
  }
  ~stream_file() {
    if (pending_.valid()) pending_.wait();
    if (fd_ >= 0) ::close(fd_);
  }
  // Writes `bytes` (kept alive by the caller until the next put or close) after the earlier ones.
  void put(const std::vector<std::uint8_t>& bytes) {
    wait();
    pending_ = std::async(std::launch::async, [this, &bytes] { write_now(bytes.data(), bytes.size()); });
  }
  void put_now(std::span<const std::uint8_t> bytes) {
    wait();
    write_now(bytes.data(), bytes.size());
  }
  void wait() {
    if (pending_.valid()) pending_.get();
  }
  std::pair<std::uint64_t, std::string> close() {
    wait();
    if (::close(fd_) != 0) {
      fd_ = -1;
      throw input_error(path_ + ": write failed: " + std::strerror(errno));
    }
    fd_ = -1;
    return {written_, hash_.hex()};
  }

 private:
  void write_now(const std::uint8_t* p, std::size_t n) {
    hash_.update({p, n});
    written_ += n;
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw input_error(path_ + ": write failed: " + std::strerror(w < 0 ? errno : ENOSPC));
      p += w;
      n -= std::size_t(w);
    }
  }
  std::string path_;
  int fd_ = -1;
  io::parameters_json_hasher hash_;
  std::uint64_t written_ = 0;
  std::future<void> pending_;
};

}  // namespace

// The sections of a finished accumulator, chunk by chunk.
struct streaming_writer {
  const qap_accumulator& acc;
  const setup_progress& progress;
  std::size_t chunk;
  detail::fixed_base<g1_curve> g1;
  detail::fixed_base<g2_curve> g2;
  fr delta_inv;

  point_multiplier* device;

  streaming_writer(const qap_accumulator& a, const setup_progress& p, std::size_t c, point_multiplier* d)
      : acc(a), progress(p), chunk(c), device(d),
        g1(g1_curve::generator(), detail::g1_window(a.counts_.inputs + a.counts_.aux, a.n_)),
        g2(g2_curve::generator(), detail::g2_window(a.counts_.inputs + a.counts_.aux)),
        delta_inv(a.tw_.delta.inverse()) {}

  fr l_scalar(std::uint64_t j) const {
    const auto& s = acc.aux_[j];
    return detail::qap_combination(acc.tw_, s.u, s.v, s.w) * delta_inv;
  }

  // One section: its count, then `count` points whose scalars gather(lo, hi, out) gives.
  template <class Curve, class Gather>
  void section(stream_file& f, std::uint64_t count, std::string_view stage, Gather&& gather) {
    using affine = affine_t<Curve>;
    constexpr std::size_t size = std::is_same_v<Curve, g1_curve> ? 96 : 192;
    const std::uint8_t head[4] = {std::uint8_t(count >> 24), std::uint8_t(count >> 16), std::uint8_t(count >> 8),
                                  std::uint8_t(count)};  // big-endian u32
    f.put_now(head);
    if (progress) progress(stage, 0, count);
    std::vector<fr> scalars(std::min<std::uint64_t>(chunk, count));
    std::vector<affine> points(scalars.size());
    std::vector<std::uint8_t> bytes[2];
    std::mutex mu;
    std::uint64_t made = 0;
    for (std::uint64_t lo = 0, turn = 0; lo < count; lo += chunk, ++turn) {
      const std::uint64_t hi = std::min<std::uint64_t>(count, lo + chunk);
      const std::size_t m = hi - lo;
      gather(lo, hi, scalars.data());
      const auto& base = [&]() -> const auto& {
        if constexpr (std::is_same_v<Curve, g1_curve>) return g1;
        else return g2;
      }();
      const std::span<const fr> k(scalars.data(), m);
      const std::span<affine> pts(points.data(), m);
      if (device) {
        const fixed_base_table<affine> t{base.table(), base.window(), base.windows()};
        if constexpr (std::is_same_v<Curve, g1_curve>) device->g1(t, k, pts);
        else device->g2(t, k, pts);
        made += m;
        if (progress) progress(stage, made, count);
      } else {
        base.mul_into(k, pts, [&](std::size_t d) {
          if (!progress) return;
          std::lock_guard lk(mu);
          made += d;
          progress(stage, made, count);
        });
      }
      auto& out = bytes[turn & 1];
      f.wait();  // the buffer written two chunks ago is free again
      out.resize(m * size);
      parallel_for(m, [&](std::size_t a, std::size_t b) {
        for (std::size_t i = a; i < b; ++i) write_uncompressed(points[i], out.data() + i * size);
      }, 4096);
      f.put(out);
    }
    f.wait();
  }
};

written_setup write_bellperson_setup(const qap_accumulator& acc, const std::string& params_path,
                                     const std::string& vk_path, const setup_progress& progress,
                                     std::size_t chunk_points, point_multiplier* device) {
  if (!acc.finished_) throw std::logic_error("write_bellperson_setup: the accumulator is not finished");
  const auto& tw = acc.tw_;
  const std::uint64_t inputs = acc.counts_.inputs, aux = acc.counts_.aux, n = acc.n_;
  // bellperson refuses the point at infinity anywhere in a .params file: an aux wire used by no
  // constraint would have one as its L point. Checked before anything is written.
  const fr delta_inv = tw.delta.inverse();
  std::atomic<std::uint64_t> zero_at{UINT64_MAX};
  parallel_for(aux, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t j = lo; j < hi; ++j) {
      const auto& s = acc.aux_[j];
      if (detail::qap_combination(tw, s.u, s.v, s.w).is_zero()) {
        std::uint64_t cur = zero_at.load();
        while (j < cur && !zero_at.compare_exchange_weak(cur, j)) {
        }
        return;
      }
    }
  }, 1 << 16);
  if (const auto j = zero_at.load(); j != UINT64_MAX)
    throw input_error("circuit: wire " + std::to_string(inputs + j) +
                      " has a zero L point (used by no constraint): bellperson's format cannot hold it");

  streaming_writer w(acc, progress, std::max<std::size_t>(chunk_points, 1), device);
  // IC_s = (beta u_s + alpha v_s + w_s) / gamma.
  const fr gamma_inv = tw.gamma.inverse();
  std::vector<fr> ic_s(inputs);
  for (std::uint64_t s = 0; s < inputs; ++s)
    ic_s[s] = detail::qap_combination(tw, acc.in_[s].u, acc.in_[s].v, acc.in_[s].w) * gamma_inv;
  verifying_key vk = detail::fixed_vk_points(tw, w.g1, w.g2);
  vk.ic = w.g1.mul_all(ic_s);
  const auto vk_bytes = io::bellperson_vk_bytes(vk);

  stream_file f(params_path);
  f.put_now(vk_bytes);
  // h: tau^i Z(tau) / delta, i < n - 1.
  const fr z = (tw.tau.pow(n) - fr::one()) * delta_inv;
  w.section<g1_curve>(f, n - 1, "points H", [&](std::uint64_t lo, std::uint64_t hi, fr* out) {
    detail::bellperson_h_scalars(tw.tau, z, lo, hi, out);
  });
  // l: every aux's (beta u + alpha v + w) / delta.
  w.section<g1_curve>(f, aux, "points L", [&](std::uint64_t lo, std::uint64_t hi, fr* out) {
    parallel_for(hi - lo, [&](std::size_t a, std::size_t b) {
      for (std::size_t i = a; i < b; ++i) out[i] = w.l_scalar(lo + i);
    }, 4096);
  });
  // a: every input's u, then the u of the aux in some A term; b: the v of the inputs and aux in
  // some B term (bellperson's density), in G1 and in G2. A cursor walks the wires in order.
  struct cursor {
    std::uint64_t wire = 0;
  };
  auto dense = [&](bool a_query) {
    std::uint64_t c = 0;
    for (std::uint64_t s = 0; s < inputs; ++s) c += a_query || acc.in_in_b_[s];
    const auto& marks = a_query ? acc.aux_in_a_ : acc.aux_in_b_;
    c += std::uint64_t(std::count(marks.begin(), marks.end(), std::uint8_t{1}));
    return c;
  };
  auto gather_from = [&](bool a_query, cursor& cur) {
    return [&, a_query, c = &cur](std::uint64_t lo, std::uint64_t hi, fr* out) {
      const auto& marks = a_query ? acc.aux_in_a_ : acc.aux_in_b_;
      for (std::uint64_t k = lo; k < hi; ++c->wire) {
        const std::uint64_t wire = c->wire;
        if (wire < inputs) {
          if (a_query) out[k++ - lo] = acc.in_[wire].u;
          else if (acc.in_in_b_[wire]) out[k++ - lo] = acc.in_[wire].v;
        } else if (marks[wire - inputs]) {
          const auto& s = acc.aux_[wire - inputs];
          out[k++ - lo] = a_query ? s.u : s.v;
        }
      }
    };
  };
  const std::uint64_t n_a = dense(true), n_b = dense(false);
  cursor ca, cb1, cb2;
  w.section<g1_curve>(f, n_a, "points A", gather_from(true, ca));
  w.section<g1_curve>(f, n_b, "points B (G1)", gather_from(false, cb1));
  w.section<g2_curve>(f, n_b, "points B (G2)", gather_from(false, cb2));
  written_setup out;
  std::tie(out.params_bytes, out.params_digest) = f.close();

  stream_file v(vk_path);
  v.put_now(vk_bytes);
  std::tie(out.vk_bytes, out.vk_digest) = v.close();
  return out;
}

streamed_setup stream_setup(const std::function<void(cs::constraint_system&)>& synthesize, const toxic_waste& tw,
                            const std::string& params_path, const std::string& vk_path, const setup_progress& progress,
                            point_multiplier* device, std::size_t chunk_points) {
  // The domain, hence every L_j(tau), depends on the counts: the circuit is counted first.
  if (progress) progress("count the circuit", 0, 1);
  cs::constraint_system counted(cs::mode::count);
  synthesize(counted);
  const circuit_counts counts{counted.num_inputs(), counted.num_aux(), counted.num_constraints()};
  if (progress) progress("count the circuit", 1, 1);

  streamed_setup out;
  out.counts = counts;
  if (progress) progress("evaluate the QAP at tau", 0, counts.constraints);
  qap_accumulator acc(tw, counts, [&](std::uint64_t done, std::uint64_t total) {
    if (progress) progress("evaluate the QAP at tau", done, total);
  });
  {
    cs::constraint_system rec(acc);
    synthesize(rec);
    acc.finish({rec.num_inputs(), rec.num_aux(), rec.num_constraints()});
  }
  if (progress) progress("evaluate the QAP at tau", counts.constraints, counts.constraints);
  out.log_domain = acc.log_domain();
  out.files = write_bellperson_setup(acc, params_path, vk_path, progress, chunk_points, device);
  return out;
}

}  // namespace cuzk::zk::groth16
