#include "status_http.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <list>
#include <map>
#include <stdexcept>
#include <vector>

namespace cuzk::daemon {

namespace {

using clock = std::chrono::steady_clock;
constexpr std::size_t max_header = 8192;

struct connection {
  int fd = -1;
  std::string client;  // the peer's address, without its port
  clock::time_point deadline;
  std::string in, out;  // the request as read so far; the answer not yet written
  std::size_t sent = 0;
  bool answered = false;
};

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 431: return "Request Header Fields Too Large";
    default: return "Internal Server Error";
  }
}

std::string peer_of(const sockaddr_storage& a) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(a).sin_addr, buf, sizeof buf);
  else if (a.ss_family == AF_INET6) ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(a).sin6_addr, buf, sizeof buf);
  return buf;
}

// The value of header `name` (case-insensitive) in the header block, or "".
std::string header_value(const std::string& head, const std::string& name) {
  std::size_t at = head.find("\r\n");
  while (at != std::string::npos && at + 2 < head.size()) {
    const std::size_t start = at + 2, end = head.find("\r\n", start);
    const std::string line = head.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::size_t colon = line.find(':');
    if (colon == name.size() && std::equal(name.begin(), name.end(), line.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      std::size_t v = colon + 1;
      while (v < line.size() && (line[v] == ' ' || line[v] == '\t')) ++v;
      std::size_t e = line.size();
      while (e > v && (line[e - 1] == ' ' || line[e - 1] == '\t')) --e;
      return line.substr(v, e - v);
    }
    at = end;
  }
  return {};
}

}  // namespace

struct status_http::impl {
  options opt;
  handler h;
  int listen_fd = -1, wake_fd = -1;
  std::uint16_t port = 0;
  std::list<connection> conns;  // oldest first

  void close_conn(std::list<connection>::iterator it) {
    ::close(it->fd);
    conns.erase(it);
  }

  void answer(connection& c, const http_answer& a) {
    c.out = "HTTP/1.1 " + std::to_string(a.status) + " " + reason(a.status) + "\r\nContent-Type: " + a.content_type +
            "\r\nContent-Length: " + std::to_string(a.body.size()) + "\r\nConnection: close\r\n\r\n" + a.body;
    c.answered = true;
  }

  void handle(connection& c) {
    const std::string head = c.in.substr(0, c.in.find("\r\n\r\n"));
    const std::size_t sp1 = head.find(' '), sp2 = sp1 == std::string::npos ? sp1 : head.find(' ', sp1 + 1);
    if (sp2 == std::string::npos) return answer(c, {400, "text/plain", "bad request line\n"});
    const std::string method = head.substr(0, sp1);
    std::string path = head.substr(sp1 + 1, sp2 - sp1 - 1);
    if (auto q = path.find('?'); q != std::string::npos) path.resize(q);
    if (method != "GET") return answer(c, {405, "text/plain", "only GET\n"});
    if (!opt.bearer.empty() && header_value(head, "Authorization") != opt.bearer)
      return answer(c, {401, "text/plain", "authorization: missing or wrong token (send 'Authorization: Bearer TOKEN')\n"});
    try {
      answer(c, h(path));
    } catch (const std::exception& e) {
      answer(c, {500, "text/plain", std::string(e.what()) + "\n"});
    }
  }

  void accept_all() {
    for (;;) {
      sockaddr_storage a{};
      socklen_t len = sizeof a;
      const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&a), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or a connection gone before it was taken
      connection c;
      c.fd = fd;
      c.client = peer_of(a);
      c.deadline = clock::now() + opt.request_timeout;
      // This client's connections beyond its share, then all beyond the total: the oldest go.
      unsigned mine = 0;
      for (const auto& o : conns) mine += o.client == c.client;
      for (auto it = conns.begin(); mine >= opt.max_per_client && it != conns.end();)
        if (it->client == c.client) close_conn(it++), --mine;
        else ++it;
      while (conns.size() >= opt.max_connections) close_conn(conns.begin());
      conns.push_back(std::move(c));
    }
  }

  // Reads or writes what the socket allows; false when the connection is done.
  bool service(connection& c, short revents) {
    if (!c.answered && (revents & (POLLIN | POLLHUP | POLLERR))) {
      char buf[4096];
      for (;;) {
        const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
        if (n == 0) return false;
        if (n < 0) {
          if (errno == EAGAIN || errno == EWOULDBLOCK) break;
          if (errno == EINTR) continue;
          return false;
        }
        c.in.append(buf, std::size_t(n));
        if (c.in.find("\r\n\r\n") != std::string::npos) {
          handle(c);
          break;
        }
        if (c.in.size() > max_header) {
          answer(c, {431, "text/plain", "request header over 8 KiB\n"});
          break;
        }
      }
    }
    if (c.answered) {
      while (c.sent < c.out.size()) {
        const ssize_t n = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
        if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
        c.sent += std::size_t(n);
      }
      return false;  // all written: Connection: close
    }
    return true;
  }
};

status_http::status_http(options opt, handler h) : p_(std::make_unique<impl>()) {
  p_->opt = std::move(opt);
  p_->h = std::move(h);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string where = p_->opt.host + ":" + std::to_string(p_->opt.port);
  if (int rc = ::getaddrinfo(p_->opt.host.c_str(), std::to_string(p_->opt.port).c_str(), &hints, &res); rc != 0)
    throw std::runtime_error(where + ": " + ::gai_strerror(rc));
  int err = 0;
  for (auto* ai = res; ai && p_->listen_fd < 0; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 64) == 0) {
      p_->listen_fd = fd;
    } else {
      err = errno;
      ::close(fd);
    }
  }
  ::freeaddrinfo(res);
  if (p_->listen_fd < 0) throw std::runtime_error(where + ": " + std::strerror(err ? err : EADDRNOTAVAIL));
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  ::getsockname(p_->listen_fd, reinterpret_cast<sockaddr*>(&a), &len);
  p_->port = ntohs(a.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(a).sin6_port
                                           : reinterpret_cast<sockaddr_in&>(a).sin_port);
  p_->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

status_http::~status_http() {
  for (auto& c : p_->conns) ::close(c.fd);
  if (p_->listen_fd >= 0) ::close(p_->listen_fd);
  if (p_->wake_fd >= 0) ::close(p_->wake_fd);
}

std::uint16_t status_http::port() const { return p_->port; }

void status_http::stop() {
  const std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(p_->wake_fd, &one, sizeof one);
}

void status_http::run() {
  auto& s = *p_;
  std::vector<pollfd> fds;
  for (;;) {
    const auto now = clock::now();
    for (auto it = s.conns.begin(); it != s.conns.end();)  // past their deadline: closed unanswered
      if (it->deadline <= now) s.close_conn(it++);
      else ++it;
    auto next = now + std::chrono::seconds(60);
    for (const auto& c : s.conns) next = std::min(next, c.deadline);
    fds.assign({{s.wake_fd, POLLIN, 0}, {s.listen_fd, POLLIN, 0}});
    for (const auto& c : s.conns) fds.push_back({c.fd, short(c.answered ? POLLOUT : POLLIN), 0});
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1;
    if (::poll(fds.data(), fds.size(), int(wait)) < 0 && errno != EINTR) return;
    if (fds[0].revents) return;  // stop()
    // Serve the connections polled (accepting first could close one of them).
    std::size_t k = 2;
    for (auto it = s.conns.begin(); it != s.conns.end() && k < fds.size(); ++k) {
      const short r = fds[k].revents;
      if (r && !s.service(*it, r)) s.close_conn(it++);
      else ++it;
    }
    if (fds[1].revents & POLLIN) s.accept_all();
  }
}

}  // namespace cuzk::daemon
