#include "zk/groth16/backend_registry.hpp"

#include <mutex>
#include <stdexcept>

#include "zk/groth16/cpu_backend.hpp"

namespace cuzk::zk::groth16 {

namespace {

struct entry {
  std::string name;
  backend_factory factory;
  backend_probe available;
  stager_factory stager;  // empty: host staging
  memory_probe memory;    // empty: a host backend
};

struct registry {
  std::mutex mu;
  std::vector<entry> entries;
};

// Constructed on first use, so that static initializers in other libraries may register.
registry& the_registry() {
  static registry* r = [] {
    auto* reg = new registry;
    reg->entries.push_back({"cpu", [] { return make_cpu_backend(); }, {}});
    return reg;
  }();
  return *r;
}

const entry* find(registry& reg, const std::string& name) {
  for (const auto& e : reg.entries)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace

void register_backend(const std::string& name, backend_factory factory, backend_probe available,
                      stager_factory stager, memory_probe memory) {
  auto& reg = the_registry();
  std::lock_guard lock(reg.mu);
  for (auto& e : reg.entries)
    if (e.name == name) {
      e.factory = std::move(factory);
      e.available = std::move(available);
      e.stager = std::move(stager);
      e.memory = std::move(memory);
      return;
    }
  reg.entries.push_back({name, std::move(factory), std::move(available), std::move(stager), std::move(memory)});
}

std::vector<std::string> registered_backends() {
  auto& reg = the_registry();
  std::lock_guard lock(reg.mu);
  std::vector<std::string> names;
  for (const auto& e : reg.entries) names.push_back(e.name);
  return names;
}

bool backend_available(const std::string& name) {
  auto& reg = the_registry();
  backend_probe probe;
  {
    std::lock_guard lock(reg.mu);
    const entry* e = find(reg, name);
    if (!e) return false;
    probe = e->available;
  }
  return !probe || probe();
}

std::string resolve_backend_name(const std::string& name) {
  if (name == "auto") return backend_available("cuda") ? "cuda" : "cpu";
  {
    auto& reg = the_registry();
    std::lock_guard lock(reg.mu);
    if (!find(reg, name)) {
      std::string known;
      for (const auto& e : reg.entries) known += (known.empty() ? "" : ", ") + e.name;
      throw std::invalid_argument("unknown backend '" + name + "' (built: " + known + ", or auto)");
    }
  }
  if (!backend_available(name)) throw std::runtime_error("backend '" + name + "' is built but cannot run here");
  return name;
}

std::unique_ptr<backend> make_backend(const std::string& name) {
  std::string resolved = resolve_backend_name(name);
  auto& reg = the_registry();
  backend_factory f;
  {
    std::lock_guard lock(reg.mu);
    f = find(reg, resolved)->factory;
  }
  return f();
}

std::unique_ptr<stager> make_stager(const std::string& name) {
  std::string resolved = resolve_backend_name(name);
  auto& reg = the_registry();
  stager_factory f;
  {
    std::lock_guard lock(reg.mu);
    f = find(reg, resolved)->stager;
  }
  if (!f) return std::make_unique<host_stager>();
  return f();
}

std::uint64_t backend_device_memory(const std::string& name) {
  std::string resolved = resolve_backend_name(name);
  auto& reg = the_registry();
  memory_probe f;
  {
    std::lock_guard lock(reg.mu);
    f = find(reg, resolved)->memory;
  }
  return f ? f() : 0;
}

}  // namespace cuzk::zk::groth16
