// Compute backends by name, so that the command line and the engine can choose one ("cpu", "cuda",
// "auto") without depending on the libraries that implement them. The CPU backend is always
// registered; the CUDA library registers "cuda" from a static initializer when it is linked.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "zk/groth16/backend.hpp"

namespace cuzk::zk::groth16 {

using backend_factory = std::function<std::unique_ptr<backend>()>;
// Whether the backend can run here (a CUDA backend: a device is present). Empty = always.
using backend_probe = std::function<bool()>;

// A stager for the backend's device, independent of any backend object (the engine's stager actor
// owns one while the device actor owns the backend). Empty = host staging.
using stager_factory = std::function<std::unique_ptr<stager>()>;

// Bytes of memory the backend's device has (a GPU's total), or 0 for a host backend.
using memory_probe = std::function<std::uint64_t()>;

// Registers (or replaces) a backend. Safe to call from static initializers.
void register_backend(const std::string& name, backend_factory factory, backend_probe available = {},
                      stager_factory stager = {}, memory_probe memory = {});

// Registered names, in registration order ("cpu" first).
std::vector<std::string> registered_backends();

bool backend_available(const std::string& name);

// "auto": "cuda" when registered and available, else "cpu". Throws std::invalid_argument for an
// unknown name, std::runtime_error for a registered backend that cannot run here.
std::string resolve_backend_name(const std::string& name);
std::unique_ptr<backend> make_backend(const std::string& name);
std::unique_ptr<stager> make_stager(const std::string& name);
std::uint64_t backend_device_memory(const std::string& name);

}  // namespace cuzk::zk::groth16
