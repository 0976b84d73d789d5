// cuzk_sppark_check: do cuzk and sppark compute the same thing? Reads what `sppark_bench --dump DIR`
// (bench/sppark) wrote: MSM inputs and sppark's point, an NTT input and sppark's forward and
// inverse transforms of it; computes the same with cuzk and compares. So the side-by-side table of
// gpu/tools/device_sppark.sh compares two implementations of one function.
//
//   cuzk_sppark_check DIR [--backend cuda|cpu|both|auto]      (auto: cuda when a device is present)
//   cuzk_sppark_check --write-reference DIR LOG               (the test's stand-in for sppark)
//
// When the CPU's inverse NTT differs from sppark's, a note line says what sppark's is in terms of
// ours (scaled by n, roots of the other direction, bit-reversed order, a constant factor).
//
// Files (any subset; raw little-endian, the byte layouts cuzk and sppark share):
//   msm_g1.points  n x 96 B affine x, y (Montgomery)      msm_g1.scalars  n x 32 B canonical, < r
//   msm_g1.sppark  144 B Jacobian X, Y, Z (Montgomery)    msm_g2.*: the same with 192 / 288 B (c0, c1)
//   ntt.in         2^L x 32 B Fr (Montgomery)             ntt.fwd.sppark / ntt.inv.sppark: its NTT / iNTT
// cuzk's side: the MSM on the device with the bases and scalars resident (the path `cuzk bench msm
// --resident` times) or the CPU backend's Pippenger; the NTT with bellperson's roots (from 7, as
// sppark's are) on the device or the CPU's domain. Points are compared as group elements, NTT
// outputs element by element. One table row per check; exit 0 when all agree, 1 on a mismatch,
// 2 on unusable input (the file and what is wrong with it).
//
// --write-reference writes such a folder at 2^LOG with results from neither implementation: the
// MSM's from the discrete logs of its bases (gpu/include/cuzk/gpu/testgen.hpp), the NTT's by the
// O(n^2) definition with roots of 7. The CI test (tests/CMakeLists.txt, sppark_check.*) checks it,
// then a corrupted and a truncated copy: this program's reading and comparing, without sppark.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuzk/gpu/cuda_backend.hpp"
#include "cuzk/gpu/testgen.hpp"
#include "zk/groth16/cpu_backend.hpp"
#include "zk/ntt/domain.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cuzk;
using zk::bls12_381::fr;

struct bad_input : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<unsigned char> read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw bad_input(p.string() + ": cannot open");
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// n records of T from p (its size a multiple of sizeof(T), and n of them when n != 0).
template <class T>
std::vector<T> read_records(const fs::path& p, std::size_t n = 0) {
  auto b = read_all(p);
  if (b.empty() || b.size() % sizeof(T) != 0)
    throw bad_input(p.string() + ": " + std::to_string(b.size()) + " bytes, not a multiple of " +
                    std::to_string(sizeof(T)));
  if (n && b.size() / sizeof(T) != n)
    throw bad_input(p.string() + ": " + std::to_string(b.size() / sizeof(T)) + " records, expected " +
                    std::to_string(n));
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

unsigned log2_exact(std::size_t n, const fs::path& p) {
  unsigned l = 0;
  while ((std::size_t(1) << l) < n) ++l;
  if ((std::size_t(1) << l) != n) throw bad_input(p.string() + ": " + std::to_string(n) + " elements, not a power of two");
  return l;
}

// Every value below r (scalars canonical, Fr in Montgomery form: both raw 256-bit integers).
void check_below_r(const std::vector<zk::bigint<4>>& v, const fs::path& p) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!(v[i] < fr::P)) throw bad_input(p.string() + ": element " + std::to_string(i) + " is not below r");
}

int failures = 0;

// What sppark's inverse NTT is in terms of ours ((1/n) sum_j x_j w^-ij, natural order), when they
// differ: the scaling, the direction of the roots and the order each leave a mark of their own.
std::string inverse_relation(const std::vector<fr>& ours, const std::vector<fr>& theirs, unsigned log_n) {
  const std::size_t n = ours.size();
  const fr n_fr = fr::from_u64(n);
  auto all = [&](auto&& same) {
    for (std::size_t i = 0; i < n; ++i)
      if (!same(i)) return false;
    return true;
  };
  auto rev = [&](std::size_t i) {
    std::size_t r = 0;
    for (unsigned b = 0; b < log_n; ++b) r |= ((i >> b) & 1) << (log_n - 1 - b);
    return r;
  };
  if (all([&](std::size_t i) { return theirs[i] == ours[i] * n_fr; }))
    return "n times ours: sppark's inverse leaves out the 1/n";
  if (all([&](std::size_t i) { return theirs[i] == ours[(n - i) % n]; }))
    return "ours at index -i: sppark's inverse takes the forward roots (with 1/n)";
  if (all([&](std::size_t i) { return theirs[i] == ours[(n - i) % n] * n_fr; }))
    return "n times ours at index -i: sppark's inverse is its forward transform";
  if (all([&](std::size_t i) { return theirs[i] == ours[rev(i)]; }))
    return "ours in bit-reversed order";
  if (all([&](std::size_t i) { return theirs[i] == ours[rev(i)] * n_fr; }))
    return "n times ours in bit-reversed order";
  if (!ours[0].is_zero()) {
    const fr c = theirs[0] * ours[0].inverse();
    if (all([&](std::size_t i) { return theirs[i] == ours[i] * c; }))
      return "ours times the constant " + c.to_canonical().to_decimal();
  }
  std::size_t first = 0;
  while (first < n && theirs[first] == ours[first]) ++first;
  return "no simple relation to ours (first difference at index " + std::to_string(first) + ")";
}

void row(const std::string& what, unsigned log_n, const char* backend, bool ok) {
  std::printf("| %s | 2^%u | %s | %s |\n", what.c_str(), log_n, backend, ok ? "ok" : "MISMATCH");
  std::fflush(stdout);
  if (!ok) ++failures;
}

template <class Curve>
void check_msm(const fs::path& dir, const char* name, bool cpu, gpu::cuda_backend* be) {
  using aff = zk::affine_t<Curve>;
  using jac = zk::jacobian_t<Curve>;
  constexpr bool g2 = std::is_same_v<Curve, zk::bls12_381::g2_curve>;
  const fs::path pp = dir / (std::string(name) + ".points"), sp = dir / (std::string(name) + ".scalars"),
                 rp = dir / (std::string(name) + ".sppark");
  if (!fs::exists(pp)) return;
  auto bases = read_records<aff>(pp);
  auto scalars = read_records<zk::bigint<4>>(sp, bases.size());
  check_below_r(scalars, sp);
  auto want = read_records<jac>(rp, 1)[0];
  for (std::size_t i = 0; i < bases.size(); i += 4099)  // a sample: the layout is the question
    if (!bases[i].is_on_curve()) throw bad_input(pp.string() + ": point " + std::to_string(i) + " is not on the curve");
  const std::size_t n = bases.size();
  unsigned L = 0;
  while ((std::size_t(1) << L) < n) ++L;
  if (be) {
    void* db = gpu::device_alloc(n * sizeof(aff));
    void* ds = gpu::device_alloc(n * 32);
    gpu::copy_to_device(db, bases.data(), n * sizeof(aff));
    gpu::copy_to_device(ds, scalars.data(), n * 32);
    jac got;
    got = be->msm_device<Curve>(db, ds, n);
    gpu::device_free(db);
    gpu::device_free(ds);
    row(name, L, "cuzk cuda (resident)", got == want);
  }
  if (cpu) {
    auto cb = zk::groth16::make_cpu_backend();
    jac got;
    if constexpr (g2) got = cb->msm_g2(bases, scalars);
    else got = cb->msm_g1(bases, scalars);
    row(name, L, "cuzk cpu", got == want);
  }
}

void check_ntt(const fs::path& dir, bool cpu, gpu::cuda_backend* be) {
  const fs::path ip = dir / "ntt.in";
  if (!fs::exists(ip)) return;
  auto in = read_records<zk::bigint<4>>(ip);
  check_below_r(in, ip);
  const unsigned L = log2_exact(in.size(), ip);
  for (bool inverse : {false, true}) {
    const fs::path wp = dir / (inverse ? "ntt.inv.sppark" : "ntt.fwd.sppark");
    auto want = read_records<fr>(wp, in.size());
    const std::string what = inverse ? "ntt inverse natural" : "ntt forward natural";
    if (be) {
      std::vector<fr> got(in.size());
      void* d = gpu::device_alloc(in.size() * 32);
      gpu::copy_to_device(d, in.data(), in.size() * 32);
      be->ntt_device(d, L, inverse, zk::ntt::bellperson_generator);
      be->synchronize();
      gpu::copy_to_host(got.data(), d, in.size() * 32);
      gpu::device_free(d);
      row(what, L, "cuzk cuda (roots of 7)", got == want);
    }
    if (cpu) {
      std::vector<fr> got(in.size());
      for (std::size_t i = 0; i < in.size(); ++i) got[i] = fr::from_mont(in[i]);
      zk::ntt::domain dom(L, true, zk::ntt::bellperson_generator);
      if (inverse) dom.intt(got);
      else dom.ntt(got);
      row(what, L, "cuzk cpu (roots of 7)", got == want);
      if (inverse && got != want) std::printf("note: %s 2^%u: sppark's is %s\n", what.c_str(), L, inverse_relation(got, want, L).c_str());
    }
  }
}

template <class T>
void write_records(const fs::path& p, const std::vector<T>& v) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
  if (!f) throw std::runtime_error(p.string() + ": cannot write");
}

template <class Curve>
void write_msm_reference(const fs::path& dir, const char* name, unsigned L) {
  const std::size_t n = std::size_t(1) << L;
  auto ps = gpu::testgen::progression<Curve>(n / 2, 5 + L, true);  // repeats, and points at infinity
  std::vector<zk::affine_t<Curve>> bases(n);
  for (std::size_t i = 0; i < n; ++i) bases[i] = ps.pts[i % ps.pts.size()];
  auto scalars = gpu::testgen::random_scalars(n, 11 + L);
  write_records(dir / (std::string(name) + ".points"), bases);
  write_records(dir / (std::string(name) + ".scalars"), scalars);
  write_records(dir / (std::string(name) + ".sppark"), std::vector{gpu::testgen::expected(ps, std::span(scalars))});
}

void write_reference(const fs::path& dir, unsigned L) {
  fs::create_directories(dir);
  write_msm_reference<zk::bls12_381::g1_curve>(dir, "msm_g1", L);
  write_msm_reference<zk::bls12_381::g2_curve>(dir, "msm_g2", L);
  const std::size_t n = std::size_t(1) << L;
  std::uint64_t st = 3 + L;
  std::vector<fr> in(n), fwd(n), inv(n);
  for (auto& x : in) x = gpu::testgen::random_fr(st);
  const fr w = zk::ntt::root_of_unity(L, zk::ntt::bellperson_generator), wi = w.inverse();
  const fr n_inv = fr::from_u64(n).inverse();
  for (std::size_t i = 0; i < n; ++i) {  // X_i = sum_j x_j w^(ij); inverse: (1/n) sum_j x_j w^(-ij)
    fr a = fr::zero(), b = fr::zero(), wij = fr::one(), wiij = fr::one();
    const fr wi_ = w.pow(std::uint64_t(i)), wii_ = wi.pow(std::uint64_t(i));
    for (std::size_t j = 0; j < n; ++j) {
      a += in[j] * wij;
      b += in[j] * wiij;
      wij *= wi_;
      wiij *= wii_;
    }
    fwd[i] = a;
    inv[i] = b * n_inv;
  }
  write_records(dir / "ntt.in", in);
  write_records(dir / "ntt.fwd.sppark", fwd);
  write_records(dir / "ntt.inv.sppark", inv);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--write-reference") {
    try {
      const int L = std::atoi(argv[3]);
      if (L < 1 || L > 12) throw bad_input(std::string("--write-reference: LOG '") + argv[3] + "' is not in 1..12");
      write_reference(argv[2], unsigned(L));
      return 0;
    } catch (const bad_input& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 1;
    }
  }
  std::string dir, backend = "auto";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--backend" && i + 1 < argc) backend = argv[++i];
    else if (!a.empty() && a[0] != '-' && dir.empty()) dir = a;
    else {
      std::fprintf(stderr, "usage: %s DIR [--backend cuda|cpu|both|auto]\n", argv[0]);
      return 2;
    }
  }
  if (dir.empty() || (backend != "auto" && backend != "cuda" && backend != "cpu" && backend != "both")) {
    std::fprintf(stderr, "usage: %s DIR [--backend cuda|cpu|both|auto]\n", argv[0]);
    return 2;
  }
  const bool have_gpu = gpu::device_present();
  if ((backend == "cuda" || backend == "both") && !have_gpu) {
    std::fprintf(stderr, "error: --backend %s: no CUDA device present\n", backend.c_str());
    return 2;
  }
  const bool use_gpu = backend == "cuda" || backend == "both" || (backend == "auto" && have_gpu);
  const bool use_cpu = backend == "cpu" || backend == "both" || (backend == "auto" && !have_gpu);
  try {
    if (!fs::is_directory(dir)) throw bad_input(dir + ": not a directory");
    if (!fs::exists(fs::path(dir) / "msm_g1.points") && !fs::exists(fs::path(dir) / "msm_g2.points") &&
        !fs::exists(fs::path(dir) / "ntt.in"))
      throw bad_input(dir + ": none of msm_g1.points, msm_g2.points, ntt.in");
    std::unique_ptr<gpu::cuda_backend> be;
    if (use_gpu) be = std::make_unique<gpu::cuda_backend>();
    std::printf("| check (same inputs as sppark) | size | computed by | against sppark |\n|---|---|---|---|\n");
    check_msm<zk::bls12_381::g1_curve>(dir, "msm_g1", use_cpu, be.get());
    check_msm<zk::bls12_381::g2_curve>(dir, "msm_g2", use_cpu, be.get());
    check_ntt(dir, use_cpu, be.get());
  } catch (const bad_input& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return failures ? 1 : 0;
}
