#include "zk/groth16/backend_registry.hpp"

#include <mutex>
#include <stdexcept>

#include "zk/groth16/cpu_backend.hpp"

namespace cuzk::zk::groth16 {

namespace {

struct entry {
  std::string name;
  backend_factory factory;
  device_counter devices;  // empty: a host backend
  stager_factory stager;   // empty: host staging
  memory_probe memory;     // empty: a host backend
};

struct registry {
  std::mutex mu;
  std::vector<entry> entries;
};

// Constructed on first use, so that static initializers in other libraries may register.
registry& the_registry() {
  static registry* r = [] {
    auto* reg = new registry;
    reg->entries.push_back({"cpu", [](int, const backend_settings&) { return make_cpu_backend(); }, {}, {}, {}});
    return reg;
  }();
  return *r;
}

// "cuda:1" -> ("cuda", 1); "cuda" -> ("cuda", 0).
std::pair<std::string, int> split(const std::string& name) {
  auto colon = name.find(':');
  if (colon == std::string::npos) return {name, 0};
  std::string ord = name.substr(colon + 1);
  if (ord.empty() || ord.size() > 4 || ord.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("backend '" + name + "': the device ordinal after ':' must be a number");
  return {name.substr(0, colon), std::stoi(ord)};
}

// A copy of the entry (the factories run outside the lock).
entry lookup(const std::string& base) {
  auto& reg = the_registry();
  std::lock_guard lock(reg.mu);
  for (const auto& e : reg.entries)
    if (e.name == base) return e;
  std::string known;
  for (const auto& e : reg.entries) known += (known.empty() ? "" : ", ") + e.name;
  throw std::invalid_argument("unknown backend '" + base + "' (built: " + known + ", or auto)");
}

}  // namespace

void register_backend(const std::string& name, backend_factory factory, device_counter devices,
                      stager_factory stager, memory_probe memory) {
  auto& reg = the_registry();
  std::lock_guard lock(reg.mu);
  for (auto& e : reg.entries)
    if (e.name == name) {
      e = entry{name, std::move(factory), std::move(devices), std::move(stager), std::move(memory)};
      return;
    }
  reg.entries.push_back({name, std::move(factory), std::move(devices), std::move(stager), std::move(memory)});
}

std::vector<std::string> registered_backends() {
  auto& reg = the_registry();
  std::lock_guard lock(reg.mu);
  std::vector<std::string> names;
  for (const auto& e : reg.entries) names.push_back(e.name);
  return names;
}

int backend_device_count(const std::string& name) {
  try {
    auto e = lookup(split(name).first);
    return e.devices ? e.devices() : 1;
  } catch (const std::invalid_argument&) {
    return 0;
  }
}

bool backend_available(const std::string& name) {
  try {
    auto [base, ordinal] = split(name);
    auto e = lookup(base);
    return !e.devices || ordinal < e.devices();
  } catch (const std::invalid_argument&) {
    return false;
  }
}

std::string resolve_backend_name(const std::string& name) {
  if (name == "auto") return backend_available("cuda") ? "cuda" : "cpu";
  auto [base, ordinal] = split(name);
  auto e = lookup(base);
  if (e.devices) {
    int n = e.devices();
    if (ordinal >= n)
      throw std::runtime_error("backend '" + name + "' is built but cannot run here (" + std::to_string(n) + " " +
                               base + " device" + (n == 1 ? "" : "s") + " present)");
  }
  return name;
}

std::unique_ptr<backend> make_backend(const std::string& name) { return make_backend(name, backend_settings{}); }

std::unique_ptr<backend> make_backend(const std::string& name, const backend_settings& settings) {
  std::string resolved = resolve_backend_name(name);
  auto [base, ordinal] = split(resolved);
  return lookup(base).factory(ordinal, settings);
}


std::unique_ptr<stager> make_stager(const std::string& name) {
  std::string resolved = resolve_backend_name(name);
  auto [base, ordinal] = split(resolved);
  auto e = lookup(base);
  if (!e.stager) return std::make_unique<host_stager>();
  return e.stager(ordinal);
}

std::uint64_t backend_device_memory(const std::string& name) {
  std::string resolved = resolve_backend_name(name);
  auto [base, ordinal] = split(resolved);
  auto e = lookup(base);
  return e.memory ? e.memory(ordinal) : 0;
}

}  // namespace cuzk::zk::groth16
