// The HTTP status listener (/metrics, /status): a small server of its own, because what it must
// withstand is clients that hold connections open. A general server's worker per connection is
// taken by a client that sends its header one byte at a time (eight such connections blinded a
// thread-pool server, token or not). Here one thread serves every connection with poll():
//   - each connection has a deadline for its whole exchange (request_timeout: the header must be
//     in, and the answer out, within it; then it is closed);
//   - a client address holds at most max_per_client connections: one more closes that client's
//     oldest, so a client that opens many half-open connections shuts out no one but itself;
//   - at most max_connections in all (one more closes the oldest); a header over 8 KiB is refused.
// One request per connection (Connection: close); GET only; answers are built by the handler.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace cuzk::daemon {

struct http_answer {
  int status = 200;
  std::string content_type = "text/plain";
  std::string body;
};

class status_http {
 public:
  struct options {
    std::string host;
    std::uint16_t port = 0;  // 0: any free port (port() says which)
    std::string bearer;      // non-empty: requests must send "Authorization: <bearer>"
    std::chrono::milliseconds request_timeout{5000};
    unsigned max_per_client = 4;
    unsigned max_connections = 64;
  };
  // path ("/metrics") -> the answer; called on the server's thread, one request at a time.
  using handler = std::function<http_answer(const std::string& path)>;

  // Binds and listens (SO_REUSEADDR only: a port in use fails); std::runtime_error naming the
  // address when it cannot.
  status_http(options opt, handler h);
  ~status_http();
  status_http(const status_http&) = delete;
  status_http& operator=(const status_http&) = delete;

  std::uint16_t port() const;
  // Serves until stop() (from another thread).
  void run();
  void stop();

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

}  // namespace cuzk::daemon
