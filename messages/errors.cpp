// The engine error codes' names, and the engine's errors as caf::error.
#include "caf/message.hpp"
#include "caf/sec.hpp"
#include "messages/common.hpp"

namespace cuzk::msg {

const char* to_string(errc x) {
  switch (x) {
    case errc::none: return "none";
    case errc::invalid_request: return "invalid_request";
    case errc::queue_full: return "queue_full";
    case errc::unknown_job: return "unknown_job";
    case errc::bad_input: return "bad_input";
    case errc::worker_failed: return "worker_failed";
    case errc::proof_invalid: return "proof_invalid";
    case errc::over_budget: return "over_budget";
    case errc::shutting_down: return "shutting_down";
    case errc::refused: return "refused";
    case errc::node_lost: return "node_lost";
    case errc::withdrawn: return "withdrawn";
    case errc::failed_precondition: return "failed_precondition";
  }
  return "unknown";
}

caf::error make_error(errc x, std::string what) {
  return caf::error{static_cast<std::uint8_t>(x), caf::atom("cuzk"), caf::make_message(std::move(what))};
}

bool receiver_down(const caf::error& e) {
  return e.category() == caf::atom("system") && e.code() == static_cast<std::uint8_t>(caf::sec::request_receiver_down);
}

std::string describe(const caf::error& e) {
  if (!e) return "no error";
  std::string out;
  if (e.category() == caf::atom("cuzk")) {
    out = to_string(static_cast<errc>(e.code()));
  } else if (e.category() == caf::atom("system")) {
    out = caf::to_string(static_cast<caf::sec>(e.code()));
  } else {
    out = caf::to_string(e);
  }
  if (!e.context().empty() && e.context().match_elements<std::string>()) {
    const auto& what = e.context().get_as<std::string>(0);
    if (!what.empty()) out += ": " + what;
  }
  return out;
}

}  // namespace cuzk::msg
