// The compact recorded evaluator on the device (gpu/src/compact_evaluator.cuh) against the host's
// (zk/groth16/pce_compact): a, b, c byte for byte on the real 2 KiB PoRep partition (the oracle's
// sealed sector of tests/fixtures/filecoin/oracle-2k, its real witness) and on random witnesses
// (never zeros); then whole proofs of a recorded circuit staged as their witness alone (the key
// resident with its evaluator, a, b, c evaluated inside the proof) or through backend::synthesize
// (the evaluator uploaded for the call) equal the CPU backend's on the host's a, b, c, with the
// same randomness, on a synthetic key of that circuit's shape (host points: NOT A SETUP).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <unistd.h>

#include "cuzk/gpu/cuda_backend.hpp"
#include "cuzk/gpu/testgen.hpp"
#include "fil/circuit/stacked.hpp"
#include "fil/io/c1_json.hpp"
#include "zk/cs/constraint_system.hpp"
#include "zk/cs/export.hpp"
#include "zk/groth16/cpu_backend.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/synthetic_srs.hpp"

using namespace cuzk;
using namespace cuzk::zk::bls12_381;
namespace g16 = cuzk::zk::groth16;
using zk::cs::constraint_system;
using zk::cs::linear_combination;

namespace {

// The checkout's fixtures: $CUZK_SOURCE_DIR where the tests run elsewhere (a device machine's copy),
// else the checkout they were built from.
std::string source_dir() {
  const char* d = std::getenv("CUZK_SOURCE_DIR");
  return d && *d ? d : CUZK_SOURCE_DIR;
}

struct temp_file {
  std::string path;
  explicit temp_file(const std::string& name)
      : path((std::filesystem::temp_directory_path() / ("cuzk-gpu-" + std::to_string(::getpid()) + "-" + name)).string()) {}
  ~temp_file() { std::filesystem::remove(path); }
};

// Element by element, the bytes: how many rows differ (all three vectors).
std::size_t rows_differing(const g16::synthesis& x, const g16::synthesis& y) {
  REQUIRE(x.a.size() == y.a.size());
  REQUIRE(x.b.size() == y.b.size());
  REQUIRE(x.c.size() == y.c.size());
  std::size_t d = 0;
  for (std::size_t r = 0; r < x.a.size(); ++r)
    d += std::memcmp(&x.a[r], &y.a[r], 32) != 0 || std::memcmp(&x.b[r], &y.b[r], 32) != 0 ||
         std::memcmp(&x.c[r], &y.c[r], 32) != 0;
  return d;
}

// Random nonzero values, canonical.
std::vector<zk::bigint<4>> random_witness(std::size_t n, std::uint64_t seed) {
  std::vector<zk::bigint<4>> w(n);
  for (auto& v : w) {
    fr x;
    do x = gpu::testgen::random_fr(seed);
    while (x.is_zero());
    v = x.to_canonical();
  }
  return w;
}

// A recorded circuit of every kind of term: ±1, small and full coefficients, inputs in A and B,
// rows of 0 to 9 terms; values random (a proof's sums need no satisfied constraint).
void random_circuit(constraint_system& cs, std::uint64_t seed) {
  std::vector<zk::cs::variable> in, ax;
  for (int i = 0; i < 5; ++i) in.push_back(cs.alloc_input(gpu::testgen::random_fr(seed)));
  for (int i = 0; i < 3000; ++i) ax.push_back(cs.alloc(gpu::testgen::random_fr(seed)));
  std::vector<fr> consts = {fr::from_u64(2), fr::from_u64(4), -fr::from_u64(8)};
  for (int i = 0; i < 5; ++i) consts.push_back(gpu::testgen::random_fr(seed));
  auto lc = [&](int terms) {
    linear_combination l;
    for (int t = 0; t < terms; ++t) {
      const std::uint64_t u = gpu::testgen::splitmix(seed);
      const auto v = u % 11 == 0 ? in[u / 11 % in.size()] : ax[u / 11 % ax.size()];
      const std::uint64_t k = (u >> 40) % 10;
      l.add(v, k < 4 ? fr::one() : k < 7 ? -fr::one() : consts[(u >> 20) % consts.size()]);
    }
    return l;
  };
  for (int r = 0; r < 3900; ++r) {
    const std::uint64_t u = gpu::testgen::splitmix(seed);
    cs.enforce(lc(int(u % 10)), lc(int((u >> 8) % 4)), lc(1));
  }
}

// random_circuit(circuit_seed) recorded into a compact evaluator file, and a synthetic key of its
// shape with its points on the host too (key_seed; NOT A SETUP: the proofs compare backends).
struct recorded_random_key {
  temp_file f;
  std::shared_ptr<const g16::pce_compact> compact;
  g16::constraint_evaluator ev;
  zk::io::zkey key;
  recorded_random_key(const std::string& file, std::uint64_t circuit_seed, std::uint64_t key_seed)
      : f(file), compact(record(f.path, circuit_seed)), ev(g16::constraint_evaluator::from_compact(compact)),
        key(g16::synthetic_key(*compact, key_seed, true, "synthetic:" + std::to_string(key_seed) + ":host:" + f.path)) {}
  static std::shared_ptr<const g16::pce_compact> record(const std::string& path, std::uint64_t seed) {
    {
      g16::pce_recorder rec(path, "random circuit");
      constraint_system cs(rec);
      random_circuit(cs, seed);
      rec.finish(cs.num_inputs(), cs.num_aux());
    }
    return std::make_shared<const g16::pce_compact>(g16::pce_compact::open(path, "random circuit", false, true));
  }
};

// A witness of `rk`'s circuit (random, one at 0; every other value from 2 on a bit when `bits_seed`
// is not 0, as a PoRep witness: the split's lists are not empty), randomness, and the CPU backend's
// proof of it: what the device's proofs must equal.
struct cpu_reference {
  zk::io::witness w;
  g16::randomness rnd;
  g16::proof want;
  cpu_reference(const recorded_random_key& rk, std::uint64_t witness_seed, std::uint64_t bits_seed,
                std::uint64_t rnd_seed) {
    w.values = random_witness(rk.ev.n_vars(), witness_seed);
    w.values[0] = fr::one().to_canonical();
    if (bits_seed)
      for (std::size_t i = 2; i < w.values.size(); i += 2)
        w.values[i] = zk::bigint<4>{{gpu::testgen::splitmix(bits_seed) & 1, 0, 0, 0}};
    rnd = {gpu::testgen::random_fr(rnd_seed), gpu::testgen::random_fr(rnd_seed)};
    g16::cpu_backend cpu;
    g16::host_stager host;
    auto on_host = host.stage(rk.ev.evaluate(w), w.values);
    want = g16::prove_staged(rk.key, *on_host, rnd, cpu);
  }
};

// Rows of every length the kernel splits differently (gpu/src/compact_evaluator.cuh): mostly 1-4
// terms as PoRep's, empty rows, rows at and around the warp threshold, and long ones (up to 900
// terms, A and B) spread over blocks of 4096 rows, the last block partial.
void long_and_short_rows(constraint_system& cs, std::uint64_t seed) {
  std::vector<zk::cs::variable> in, ax;
  for (int i = 0; i < 7; ++i) in.push_back(cs.alloc_input(gpu::testgen::random_fr(seed)));
  for (int i = 0; i < 6000; ++i) ax.push_back(cs.alloc(gpu::testgen::random_fr(seed)));
  std::vector<fr> consts = {fr::from_u64(2), fr::from_u64(1u << 31), -fr::from_u64(3)};
  for (int i = 0; i < 6; ++i) consts.push_back(gpu::testgen::random_fr(seed));
  auto lc = [&](unsigned terms) {
    linear_combination l;
    const std::uint64_t first = gpu::testgen::splitmix(seed) % ax.size();
    for (unsigned t = 0; t < terms; ++t) {
      const std::uint64_t u = gpu::testgen::splitmix(seed);
      const auto v = t % 13 == 5 ? in[(t / 13) % in.size()] : ax[(first + t * 7) % ax.size()];
      const std::uint64_t k = (u >> 40) % 10;
      l.add(v, k < 3 ? fr::one() : k < 5 ? -fr::one() : consts[(u >> 20) % consts.size()]);
    }
    return l;
  };
  auto length = [&](bool b) -> unsigned {
    const std::uint64_t u = gpu::testgen::splitmix(seed) % 1000;
    if (u < 20) return 0;
    if (u < 500) return 1;
    if (u < 750) return 2;
    if (u < 900) return 3 + unsigned(u % 2);
    if (u < 960) return 5 + unsigned(u % 6);    // 5-10: around the default threshold of 8
    if (u < 985) return 11 + unsigned(u % 60);  // medium
    return b ? 100 + unsigned(u % 200) : 300 + unsigned((u * 37) % 600);  // long (up to 899 terms)
  };
  for (int r = 0; r < 13000; ++r) cs.enforce(lc(length(false)), lc(length(true)), lc(1));
}

}  // namespace

TEST_CASE("device compact evaluator: every split of long and short rows equals the host's on random witnesses",
          "[device][compact]") {
  if (!gpu::device_present()) {
    WARN("SKIP: no CUDA device present");
    return;
  }
  temp_file f("long-short.pce");
  {
    g16::pce_recorder rec(f.path, "long and short rows");
    constraint_system cs(rec);
    long_and_short_rows(cs, 11);
    rec.finish(cs.num_inputs(), cs.num_aux());
  }
  const auto e = g16::pce_compact::open(f.path, "long and short rows", false, true);
  REQUIRE(e.n_constraints() == 13000);
  std::size_t longest = 0;
  for (std::size_t r = 0; r < e.n_constraints(); ++r) longest = std::max<std::size_t>(longest, e.matrix_a().lens[r]);
  CHECK(longest > 800);
  gpu::cuda_backend be;
  std::vector<gpu::compact_kernel_options> kernels = {{256, 8, false}, {512, 8, false}, {128, 8, false}, {256, 0, false},
                                                      {256, 1, false}, {256, 32, false}, {256, 65535, false}, {256, 8, true}};
  for (std::uint64_t seed : {3u, 4u}) {
    const auto rw = random_witness(e.n_inputs() + e.n_aux(), seed);
    const auto want = e.evaluate(std::span<const zk::bigint<4>>(rw));
    for (const auto& k : kernels) {
      INFO("threads " << k.threads << ", long rows above " << k.long_row << (k.row_per_thread ? ", row per thread" : ""));
      CHECK(rows_differing(be.evaluate_compact(e, rw, nullptr, &k), want) == 0);
    }
    // The timing path compares on the device: every kernel's a, b, c equal the host's.
    for (const auto& t : be.time_compact(e, rw, want, kernels, 1, 1)) {
      INFO("threads " << t.kernel.threads << ", long rows above " << t.kernel.long_row);
      CHECK(t.elements_differing == 0);
      CHECK(t.median_ms > 0);
    }
  }
}

TEST_CASE("device compact evaluator: a, b, c equal the host's on the 2 KiB PoRep partition and random witnesses",
          "[device][compact]") {
  if (!gpu::device_present()) {
    WARN("SKIP: no CUDA device present");
    return;
  }
  const auto c1 = fil::io::read_c1_file(source_dir() + "/tests/fixtures/filecoin/oracle-2k/c1.json").phase1_out;
  temp_file f("porep-2k.pce");
  const std::string key = "StackedDrg2KiBV1_1 device test";
  {
    g16::pce_recorder rec(f.path, key);
    constraint_system cs(rec);
    fil::circuit::stacked_circuit(cs, fil::circuit::blank_porep_partition(fil::circuit::porep_shape_of(*c1.registered_proof)));
    rec.finish(cs.num_inputs(), cs.num_aux());
  }
  const auto e = g16::pce_compact::open(f.path, key, false, true);
  REQUIRE(e.n_constraints() == 2687921);
  gpu::cuda_backend be;

  // The real witness: the host from the system's values (Montgomery), the device from the witness.
  constraint_system wit(zk::cs::mode::witness);
  fil::circuit::stacked_circuit(wit, fil::circuit::porep_partition_from(c1, 0));
  const auto w = zk::cs::to_witness(wit, "2 KiB partition 0");
  g16::synthesis want;
  for (auto* v : {&want.a, &want.b, &want.c}) v->resize(e.domain_size());
  e.evaluate_into(wit.inputs(), wit.aux(), want.a, want.b, want.c);
  double ms = 0;
  const auto got = be.evaluate_compact(e, w.values, &ms);
  CHECK(rows_differing(got, want) == 0);
  std::size_t nonzero = 0;
  for (const auto& x : got.c) nonzero += !x.is_zero();
  CHECK(nonzero > 100000);  // a real witness: c is not all zeros
  WARN("2 KiB PoRep partition: a, b, c on the device in " << ms << " ms (" << e.entries() << " non-zeros)");

  // Random witnesses, never zeros: the host from the canonical values too.
  for (std::uint64_t seed : {1u, 2u}) {
    const auto rw = random_witness(e.n_inputs() + e.n_aux(), seed);
    CHECK(rows_differing(be.evaluate_compact(e, rw), e.evaluate(std::span<const zk::bigint<4>>(rw))) == 0);
  }
}

TEST_CASE("device compact evaluator: proofs staged as their witness alone equal the CPU backend's", "[device][compact][prove]") {
  if (!gpu::device_present()) {
    WARN("SKIP: no CUDA device present");
    return;
  }
  const recorded_random_key rk("random.pce", 7, 5);
  const auto& ev = rk.ev;
  const auto& key = rk.key;
  const auto kp = g16::points_of(key);
  const cpu_reference ref(rk, 9, 0, 3);
  const auto& [w, rnd, want] = ref;

  gpu::cuda_backend be;
  // The evaluator uploaded for the call: a, b, c evaluated into the staged inputs.
  CHECK(g16::prove(key, ev, w, rnd, be) == want);
  for (bool sets : {false, true}) {
    gpu::cuda_options o;
    o.shifted_bases_bytes = sets ? SIZE_MAX : 0;
    gpu::cuda_backend dev(o);
    auto dk = dev.load_key(kp, &ev, sets);
    REQUIRE(dk);
    CHECK(dk->synthesizes(ev));
    CHECK(dk->bytes() <= dev.resident_bytes(kp, sets, &ev));
    CHECK(dev.resident_bytes(kp, sets, &ev) >= dev.resident_bytes(kp, sets) + 3 * ev.domain_size() * 32);
    // The engine's path: a stager uploads the witness alone; the proof evaluates a, b, c.
    auto stager = dev.make_stager();
    auto staged = stager->stage_witness(ev, w.values, dk.get());
    REQUIRE(staged);
    CHECK(staged->device_bytes() == w.values.size() * 32);
    g16::prove_timings t;
    CHECK(g16::prove_staged(key, *staged, rnd, dev, &t, dk.get()) == want);
    CHECK(t.abc > 0);
    // Twice more through backend::synthesize with the resident key (the same vectors reused).
    CHECK(g16::prove(key, ev, w, rnd, dev, nullptr, dk.get()) == want);
    CHECK(g16::prove(key, ev, w, rnd, dev, nullptr, dk.get()) == want);
    // Another key (no evaluator resident): the stager declines; the host path stays.
    auto plain = dev.load_key(kp, nullptr, sets);
    CHECK_FALSE(plain->synthesizes(ev));
    CHECK(stager->stage_witness(ev, w.values, plain.get()) == nullptr);
  }
}

// Nothing is allocated in the steady state. Every buffer a proof takes on the
// device (the staged inputs' slot, the work buffer of the gathered witness and the split scalars,
// the MSM scratch, the result slots, the compact evaluator's counters) is kept from the previous
// proof, so after the first round (which also stages two ahead, as the engine's stager does, and
// host-evaluated a, b, c: a second slot size) the same rounds add no cudaMalloc and no
// cudaMallocAsync. A witness pinned by the stager's pinner (the engine pins a key's kept witness
// vectors with it) is uploaded by DMA, with the same proof.
TEST_CASE("device proofs after the first allocate no device memory, a pinned witness proves the same", "[device][alloc]") {
  if (!gpu::device_present()) {
    WARN("SKIP: no CUDA device present");
    return;
  }
  const recorded_random_key rk("alloc.pce", 11, 6);
  const auto& ev = rk.ev;
  const auto& key = rk.key;
  REQUIRE(key.convention == zk::io::key_convention::bellperson);  // the gathered witness is in the work buffer
  const auto kp = g16::points_of(key);
  const cpu_reference ref(rk, 12, 13, 4);  // mostly bits
  const auto& [w, rnd, want] = ref;

  gpu::cuda_backend dev;
  auto dk = dev.load_key(kp, &ev, false);
  REQUIRE(dk);
  auto stager = dev.make_stager();
  auto pinner = stager->pinner();
  REQUIRE(pinner);
  std::vector<zk::bigint<4>> pinned_w = w.values;
  const auto pins_before = gpu::pinned_host();
  REQUIRE(pinner->pin(pinned_w.data(), pinned_w.capacity() * sizeof(zk::bigint<4>)));
  CHECK(gpu::pinned_host().ranges == pins_before.ranges + 1);

  auto round = [&](int r) {
    INFO("round " << r);
    // Two staged ahead (witness alone), the second from the pinned copy, then proved in order.
    auto s1 = stager->stage_witness(ev, w.values, dk.get());
    auto s2 = stager->stage_witness(ev, pinned_w, dk.get());
    REQUIRE(s1);
    REQUIRE(s2);
    CHECK(g16::prove_staged(key, *s1, rnd, dev, nullptr, dk.get()) == want);
    CHECK(g16::prove_staged(key, *s2, rnd, dev, nullptr, dk.get()) == want);
    // a, b, c from the host with the witness: a slot of another size.
    auto s3 = stager->stage(ev.evaluate(w), pinned_w);
    CHECK(g16::prove_staged(key, *s3, rnd, dev, nullptr, dk.get()) == want);
    // Staged and dropped unproved: its slot goes back all the same.
    stager->stage_witness(ev, w.values, dk.get()).reset();
  };
  round(0);
  const auto first = gpu::device_allocations();
  for (int r = 1; r <= 3; ++r) round(r);
  const auto later = gpu::device_allocations();
  CHECK(later.malloc_calls == first.malloc_calls);
  CHECK(later.malloc_bytes == first.malloc_bytes);
  CHECK(later.async_calls == first.async_calls);
  CHECK(later.async_bytes == first.async_bytes);

  pinner->unpin(pinned_w.data());
  CHECK(gpu::pinned_host().ranges == pins_before.ranges);
}

// The reserve step: the device's staging slots (here device_depth + 1, the most) are
// made when the key goes resident (backend::reserve_staging, the engine's device actor after
// load_key), so that the first time three partitions are staged at once (a sector's second) no slot
// is allocated. After the load and the reserve, one proof makes the proof's own scratch (MSM
// arenas, work buffer, result slots); from then on three partitions staged at once (witness
// alone, the engine's path for this key) and proved add no cudaMalloc, with the CPU backend's
// proofs. A second reserve of the same slots makes none.
TEST_CASE("the reserve step makes a key's staging slots at load: three staged at once allocate none", "[device][alloc]") {
  if (!gpu::device_present()) {
    WARN("SKIP: no CUDA device present");
    return;
  }
  const recorded_random_key rk("reserve.pce", 21, 6);
  const auto& ev = rk.ev;
  const auto& key = rk.key;
  const auto kp = g16::points_of(key);
  const cpu_reference ref(rk, 22, 0, 23);
  const auto& [w, rnd, want] = ref;

  constexpr unsigned depth_plus_one = 3;  // the most the engine stages at device_depth 2 (its default: 2)
  gpu::cuda_options o;
  o.staged_partitions = depth_plus_one;
  gpu::cuda_backend dev(o);
  auto dk = dev.load_key(kp, &ev, false);
  REQUIRE(dk);
  const std::uint64_t slot = g16::staged_bytes(ev.domain_size(), ev.n_vars(), true);
  const auto before = gpu::device_allocations();
  REQUIRE(dev.reserve_staging(slot, depth_plus_one) == depth_plus_one);
  const auto reserved = gpu::device_allocations();
  CHECK(reserved.malloc_calls == before.malloc_calls + depth_plus_one);
  CHECK(reserved.malloc_bytes == before.malloc_bytes + depth_plus_one * slot);
  CHECK(dev.reserve_staging(slot, depth_plus_one) == depth_plus_one);  // made once
  CHECK(gpu::device_allocations().malloc_calls == reserved.malloc_calls);

  auto stager = dev.make_stager();
  {
    auto s = stager->stage_witness(ev, w.values, dk.get());
    REQUIRE(s);
    CHECK(s->device_bytes() == slot);  // the slot the reserve made: one formula
    CHECK(g16::prove_staged(key, *s, rnd, dev, nullptr, dk.get()) == want);
  }
  const auto warm = gpu::device_allocations();
  for (int r = 0; r < 2; ++r) {
    INFO("round " << r);
    std::vector<std::unique_ptr<g16::staged_inputs>> staged;
    for (unsigned i = 0; i < depth_plus_one; ++i) {
      staged.push_back(stager->stage_witness(ev, w.values, dk.get()));
      REQUIRE(staged.back());
    }
    for (auto& s : staged) CHECK(g16::prove_staged(key, *s, rnd, dev, nullptr, dk.get()) == want);
  }
  const auto later = gpu::device_allocations();
  CHECK(later.malloc_calls == warm.malloc_calls);
  CHECK(later.malloc_bytes == warm.malloc_bytes);
  CHECK(later.async_calls == warm.async_calls);
}

// The first sector's target, the reserve step's other half: the proof's own
// scratch (both MSM lanes' arenas, the work buffer of the gathered witness and the split scalars,
// the result slots, the NTT tables) made at the end of the key's load (backend::reserve_proof, the
// engine's device actor before the staging slots), sized by the functions the proof sizes them
// with. After the load and the reserve step, the key's first proof (a witness mostly bits, staged
// as its witness alone into a reserved slot, as the engine stages a PoRep partition) makes no
// cudaMalloc, and its proof is the CPU backend's. A second reserve makes nothing.
TEST_CASE("after the load and the reserve step the first proof allocates no device memory", "[device][alloc]") {
  if (!gpu::device_present()) {
    WARN("SKIP: no CUDA device present");
    return;
  }
  const recorded_random_key rk("first.pce", 31, 6);
  const auto& ev = rk.ev;
  const auto& key = rk.key;
  REQUIRE(key.convention == zk::io::key_convention::bellperson);  // the gathered witness is in the work buffer
  auto kp = g16::points_of(key);
  const cpu_reference ref(rk, 32, 33, 34);  // mostly bits
  const auto& [w, rnd, want] = ref;

  constexpr unsigned depth_plus_one = 3;  // the most the engine stages at device_depth 2 (its default: 2)
  gpu::cuda_options o;
  o.staged_partitions = depth_plus_one;
  gpu::cuda_backend dev(o);
  auto dk = dev.load_key(kp, &ev, false);
  REQUIRE(dk);
  kp.resident = dk.get();
  const auto before = gpu::device_allocations();
  const std::uint64_t scratch = dev.reserve_proof(kp);
  CHECK(scratch > 0);
  CHECK(gpu::device_allocations().malloc_calls > before.malloc_calls);  // made here, not by the proof
  const std::uint64_t slot = g16::staged_bytes(ev.domain_size(), ev.n_vars(), true);
  REQUIRE(dev.reserve_staging(slot, depth_plus_one) == depth_plus_one);
  const auto reserved = gpu::device_allocations();
  CHECK(dev.reserve_proof(kp) == scratch);  // made once
  CHECK(gpu::device_allocations().malloc_calls == reserved.malloc_calls);

  auto stager = dev.make_stager();
  {
    auto s = stager->stage_witness(ev, w.values, dk.get());
    REQUIRE(s);
    CHECK(g16::prove_staged(key, *s, rnd, dev, nullptr, dk.get()) == want);
  }
  const auto first = gpu::device_allocations();
  CHECK(first.malloc_calls == reserved.malloc_calls);
  CHECK(first.malloc_bytes == reserved.malloc_bytes);
  CHECK(first.async_calls == reserved.async_calls);
  CHECK(first.async_bytes == reserved.async_bytes);
}
