// A synthetic key (zk/groth16/synthetic_srs.hpp, NOT A SETUP) in the engine, on the CPU device: it is
// refused unless the caller asked for a synthetic bench; in a bench its proofs come back marked
// unverified and indeed do not verify against its vk (they are never passed off as real proofs);
// a real key in a bench is still verified; the budgets return to zero.
#include <catch2/catch.hpp>

#include <filesystem>
#include <thread>

#include <unistd.h>

#include "actors/key_store.hpp"
#include "engine/engine.hpp"
#include "fixture.hpp"
#include "zk/cs/constraint_system.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/groth16/synthetic_srs.hpp"
#include "zk/groth16/verifier.hpp"

using namespace cuzk;
using namespace std::chrono_literals;
using zk::bls12_381::fr;

namespace {

// y = x^3 + x + 5 with one input and three aux (a, b, c as values).
template <class Sys>
void cube_circuit(Sys& cs, std::uint64_t x_value) {
  const fr x = fr::from_u64(x_value), x2 = x * x, x3 = x2 * x;
  auto out = cs.alloc_input(x3 + x + fr::from_u64(5));
  auto vx = cs.alloc(x), vx2 = cs.alloc(x2), vx3 = cs.alloc(x3);
  using lc = zk::cs::linear_combination;
  cs.enforce(lc(vx), lc(vx), lc(vx2));
  cs.enforce(lc(vx2), lc(vx), lc(vx3));
  lc sum(vx3);
  sum.add(vx);
  sum.add(zk::cs::variable::input(0), fr::from_u64(5));
  cs.enforce(sum, lc(zk::cs::variable::input(0)), lc(out));
}

std::shared_ptr<const zk::io::witness> cube_witness(std::uint64_t x_value) {
  zk::cs::constraint_system cs(zk::cs::mode::witness);
  cube_circuit(cs, x_value);
  auto w = std::make_shared<zk::io::witness>();
  for (auto& v : cs.inputs()) w->values.push_back(v.to_canonical());
  for (auto& v : cs.aux()) w->values.push_back(v.to_canonical());
  return w;
}

struct recorded {
  std::string path = (std::filesystem::temp_directory_path() / ("cuzk-synthetic-engine-" + std::to_string(::getpid()) + ".pce")).string();
  recorded() {
    zk::groth16::pce_recorder rec(path, "cube test");
    zk::cs::constraint_system cs(rec);
    cube_circuit(cs, 0);
    rec.finish(cs.num_inputs(), cs.num_aux());
  }
  ~recorded() { std::filesystem::remove(path); }
};

}  // namespace

TEST_CASE("a synthetic key is refused outside a synthetic bench and never released as a verified proof",
          "[engine][synthetic]") {
  recorded pce;
  const auto key_path = zk::groth16::synthetic_key_path({9, true, pce.path});
  auto e = engine::engine::start(test::small_config());

  engine::request req;
  req.circuit = key_path;
  req.partitions.push_back({"", cube_witness(3)});
  req.partitions.push_back({"", cube_witness(4)});
  CHECK_THROWS_WITH(e.submit(req), Catch::Contains("synthetic key (NOT A SETUP"));

  req.synthetic_bench = true;
  auto r = e.await(e.submit(req), 60s);
  REQUIRE(r);
  REQUIRE(r->state == engine::job_state::succeeded);
  CHECK(r->unverified);
  REQUIRE(r->partitions.size() == 2);
  const auto key = actors::load_proving_key(key_path, nullptr);
  REQUIRE(key->synthetic);
  for (auto& p : r->partitions) {
    CHECK(p.proof.a.is_on_curve());
    CHECK_FALSE(p.proof.a.is_identity());
    CHECK(p.proof.b.is_on_curve());
    CHECK_FALSE(zk::groth16::verify(key->vk, p.publics, p.proof));  // NOT A SETUP: never verifies
  }
  CHECK(r->partitions[0].publics[0] == (fr::from_u64(27 + 3 + 5)).to_canonical());
  // Stage times of both halves are reported.
  REQUIRE_FALSE(r->partition_timings.empty());
  const auto& names = r->partition_timings[0].stage_names;
  REQUIRE(names.size() == 9);
  REQUIRE(r->partition_timings[0].stage_ms.size() == 9);
  CHECK(names[0] == "witness");
  CHECK(names[1] == "a/b/c");
  CHECK(names[2] == "H/NTT");
  CHECK(names[7] == "B2 (G2)");

  // A real key in a bench is verified as always.
  std::mt19937_64 rng(3);
  auto real = test::sample_request(rng, 2);
  real.synthetic_bench = true;
  auto rr = e.await(e.submit(real), 60s);
  REQUIRE(rr);
  CHECK_FALSE(rr->unverified);
  test::direct_prover direct;
  test::require_verifies(direct.key, *rr, 2);

  // A bad synthetic path is refused with the part named.
  engine::request bad = req;
  bad.circuit = "synthetic:x:host:" + pce.path;
  auto rb = e.await(e.submit(bad), 60s);
  REQUIRE(rb);
  CHECK(rb->state == engine::job_state::failed);
  REQUIRE_FALSE(rb->reasons.empty());
  CHECK_THAT(rb->reasons[0], Catch::Contains("seed 'x'"));
  CHECK(test::budgets_drain(e));
}
