#include "witness_spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <grpcpp/support/status_code_enum.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "request_error.hpp"

namespace cuzk::daemon {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void unavailable(const fs::path& path, const char* what, int err) {
  throw request_error(grpc::StatusCode::UNAVAILABLE,
                      "cannot accept jobs now: " + path.string() + ": " + what + ": " + std::strerror(err));
}

}  // namespace

witness_spool::witness_spool(fs::path dir) : dir_(std::move(dir)) {}

witness_spool::~witness_spool() {
  close_current();
  std::error_code ec;
  for (auto& [msg, path] : files_) fs::remove(path, ec);
}

bool witness_spool::claims(const google::protobuf::FieldDescriptor& field) const {
  return field.full_name() == "cuzk.v1.Partition.witness_wtns";
}

void witness_spool::begin(const google::protobuf::Message& msg, const google::protobuf::FieldDescriptor&,
                          std::uint64_t) {
  close_current();
  static std::atomic<std::uint64_t> next{0};
  // A private directory of ours, emptied at start; O_EXCL and O_NOFOLLOW all the same.
  for (int attempt = 0;; ++attempt) {
    fs::path path = dir_ / (std::to_string(::getpid()) + "-" + std::to_string(next++) + ".wtns");
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd_ >= 0) {
      current_ = path;
      break;
    }
    if (errno != EEXIST || attempt > 100) unavailable(path, "cannot create", errno);
  }
  // A field repeated on the wire: the last occurrence is the value (protobuf's rule).
  auto old = files_.find(&msg);
  if (old != files_.end()) {
    std::error_code ec;
    fs::remove(old->second, ec);
  }
  files_[&msg] = current_;
}

void witness_spool::write(const void* data, std::size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    auto w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) unavailable(current_, "cannot write", w < 0 ? errno : ENOSPC);
    p += w;
    n -= std::size_t(w);
  }
}

void witness_spool::end() {
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) unavailable(current_, "cannot write", errno);
}

void witness_spool::close_current() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::optional<fs::path> witness_spool::file_of(const google::protobuf::Message& partition) const {
  auto it = files_.find(&partition);
  if (it == files_.end()) return std::nullopt;
  return it->second;
}

void witness_spool::move(const google::protobuf::Message& partition, const fs::path& to) {
  auto it = files_.find(&partition);
  if (it == files_.end()) throw std::logic_error("witness_spool::move: no file for this partition");
  fs::rename(it->second, to);
  files_.erase(it);
}

}  // namespace cuzk::daemon
