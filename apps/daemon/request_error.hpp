// A request the daemon refuses, carrying the gRPC status a client can act on: every layer that
// checks a request (the catalog, the Filecoin request checks, the witness spool, the job layer)
// throws it, and the service answers it as that status with its one line.
#pragma once

#include <stdexcept>
#include <string>

namespace cuzk::daemon {

// `code` is a gRPC status code (grpc::StatusCode values).
class request_error : public std::runtime_error {
 public:
  request_error(int code, const std::string& what) : std::runtime_error(what), code(code) {}
  int code;
};

}  // namespace cuzk::daemon
