#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>

#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/cpu_backend.hpp"

using namespace cuzk::zk::groth16;

namespace {

// A device-like backend with two devices, recording the ordinal each factory was given.
std::atomic<int> last_backend{-1}, last_stager{-1};
std::atomic<std::uint64_t> last_shifted{0};

void register_fake() {
  register_backend(
      "fake2",
      [](int ordinal, const backend_settings& s) {
        last_backend = ordinal;
        last_shifted = s.shifted_bases_bytes;
        return make_cpu_backend();
      },
      [] { return 2; },
      [](int ordinal) {
        last_stager = ordinal;
        return std::unique_ptr<stager>(new host_stager());
      },
      [](int ordinal) { return std::uint64_t(1000 + ordinal); });
}

}  // namespace

TEST_CASE("backend names carry device ordinals, host backends take any", "[registry]") {
  REQUIRE(resolve_backend_name("cpu") == "cpu");
  REQUIRE(resolve_backend_name("cpu:3") == "cpu:3");
  REQUIRE(backend_available("cpu:7"));
  REQUIRE(make_backend("cpu:1")->name() == "cpu");
  REQUIRE(backend_device_count("cpu") == 1);
  REQUIRE(backend_device_memory("cpu:2") == 0);

  register_fake();
  REQUIRE(backend_device_count("fake2") == 2);
  REQUIRE(resolve_backend_name("fake2:1") == "fake2:1");
  REQUIRE(backend_available("fake2"));
  REQUIRE(backend_available("fake2:1"));
  REQUIRE_FALSE(backend_available("fake2:2"));
  make_backend("fake2:1");
  REQUIRE(last_backend == 1);
  make_backend("fake2");
  REQUIRE(last_backend == 0);
  make_stager("fake2:1");
  REQUIRE(last_stager == 1);
  REQUIRE(backend_device_memory("fake2:1") == 1001);
}

TEST_CASE("backend settings reach the factory as passed (no process-wide settings)", "[registry]") {
  register_fake();
  backend_settings s;
  s.shifted_bases_bytes = 12345;
  make_backend("fake2:1", s);
  REQUIRE(last_shifted == 12345);
  s.shifted_bases_bytes = backend_settings::as_much_as_fits;
  make_backend("fake2", s);
  REQUIRE(last_shifted == backend_settings::as_much_as_fits);
  make_backend("fake2");
  REQUIRE(last_shifted == 0);
}

TEST_CASE("bad backend names are refused with the reason", "[registry]") {
  register_fake();
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  REQUIRE_THROWS_AS(resolve_backend_name("nope"), std::invalid_argument);
  REQUIRE(message([] { resolve_backend_name("nope:0"); }).find("unknown backend 'nope'") != std::string::npos);
  REQUIRE_THROWS_AS(resolve_backend_name("cpu:x"), std::invalid_argument);
  REQUIRE(message([] { resolve_backend_name("cpu:"); }).find("ordinal") != std::string::npos);
  REQUIRE_THROWS_AS(resolve_backend_name("fake2:2"), std::runtime_error);
  REQUIRE(message([] { make_backend("fake2:5"); }).find("2 fake2 devices present") != std::string::npos);
  REQUIRE_FALSE(backend_available("nope"));
}
