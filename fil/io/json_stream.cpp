#include "fil/io/json_stream.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/error.hpp"

namespace cuzk::fil::io {

namespace {
constexpr int max_depth = 64;
constexpr std::size_t chunk = 1 << 16;

std::string printable(int c) {
  if (c < 0) return "end of input";
  if (c >= 0x20 && c < 0x7f) return std::string("'") + char(c) + "'";
  char b[8];
  std::snprintf(b, sizeof b, "0x%02x", c & 0xff);
  return b;
}
}  // namespace

std::size_t memory_source::read(std::uint8_t* dst, std::size_t cap) {
  const std::size_t n = std::min(cap, bytes_.size() - at_);
  std::memcpy(dst, bytes_.data() + at_, n);
  at_ += n;
  return n;
}

file_source::file_source(const std::string& path, std::uint64_t max_bytes) : path_(path) {
  // Opened without blocking (a FIFO must not hang the open), then only a regular file is read: a
  // device such as /dev/zero would stream forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw std::runtime_error(path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw zk::input_error(path + ": not a regular file");
  }
  if (std::uint64_t(st.st_size) > max_bytes) {
    ::close(fd);
    throw zk::input_error(path + ": " + std::to_string(st.st_size) + " bytes, more than a C1 output may have (" +
                          std::to_string(max_bytes) + ")");
  }
  size_ = std::uint64_t(st.st_size);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  f_ = ::fdopen(fd, "rb");
  if (!f_) {
    const int e = errno;
    ::close(fd);
    throw std::runtime_error(path + ": " + std::strerror(e));
  }
}
file_source::~file_source() {
  if (f_) std::fclose(f_);
}
std::size_t file_source::read(std::uint8_t* dst, std::size_t cap) {
  cap = std::size_t(std::min<std::uint64_t>(cap, size_ - std::min(done_, size_)));  // a file that grows: its size at open
  const std::size_t n = cap ? std::fread(dst, 1, cap, f_) : 0;
  if (n == 0 && std::ferror(f_)) throw std::runtime_error(path_ + ": read error: " + std::strerror(errno));
  done_ += n;
  if (progress_) progress_(done_, size_);
  return n;
}

json_stream::json_stream(byte_source& src, std::string origin) : src_(src), origin_(std::move(origin)), buf_(chunk) {}

std::string json_stream::path() const {
  std::string p;
  for (const auto& f : path_) {
    if (f.is_array) {
      if (!f.first) p += "[" + std::to_string(f.index) + "]";
    } else if (!f.first) {
      if (!p.empty()) p += '.';
      p += f.key;
    }
  }
  return p;
}

void json_stream::fail(std::string_view what) const {
  const std::string p = path();
  throw zk::input_error(origin_ + ": " + (p.empty() ? std::string() : p + ": ") + std::string(what));
}

bool json_stream::refill() {
  if (eof_) return false;
  consumed_ += len_;
  pos_ = 0;
  len_ = src_.read(buf_.data(), buf_.size());
  if (len_ == 0) eof_ = true;
  return len_ != 0;
}
int json_stream::get() {
  if (pos_ == len_ && !refill()) return -1;
  return buf_[pos_++];
}
int json_stream::peek_raw() {
  if (pos_ == len_ && !refill()) return -1;
  return buf_[pos_];
}
void json_stream::skip_ws() {
  for (;;) {
    const int c = peek_raw();
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      ++pos_;
      continue;
    }
    return;
  }
}
char json_stream::peek() {
  skip_ws();
  const int c = peek_raw();
  return c < 0 ? 0 : char(c);
}
void json_stream::expect(char c, std::string_view what) {
  skip_ws();
  const int got = get();
  if (got != c) fail("expected " + std::string(what) + ", found " + printable(got));
}
void json_stream::push(bool is_array) {
  if (path_.size() >= max_depth) fail("nested too deeply");
  path_.push_back(frame{is_array, true, 0, {}});
}

void json_stream::begin_object() {
  expect('{', "an object");
  push(false);
}
bool json_stream::next_key(std::string& key) {
  auto& f = path_.back();
  skip_ws();
  if (peek_raw() == '}') {
    ++pos_;
    path_.pop_back();
    return false;
  }
  if (!f.first) expect(',', "',' or '}'");
  // The key is read before it becomes part of the path: errors in it name the object.
  key = read_string(256);
  expect(':', "':'");
  f.first = false;
  f.key = key;
  return true;
}
void json_stream::begin_array() {
  expect('[', "an array");
  push(true);
}
bool json_stream::next_element() {
  auto& f = path_.back();
  skip_ws();
  if (peek_raw() == ']') {
    ++pos_;
    path_.pop_back();
    return false;
  }
  if (!f.first) {
    expect(',', "',' or ']'");
    ++f.index;
  }
  f.first = false;
  return true;
}

std::uint64_t json_stream::read_u64(std::uint64_t max) {
  skip_ws();
  int c = peek_raw();
  if (c < '0' || c > '9') fail("expected a non-negative integer, found " + printable(c));
  std::uint64_t v = 0;
  bool overflow = false;
  const bool leading_zero = c == '0';
  int digits = 0;
  while ((c = peek_raw()) >= '0' && c <= '9') {
    ++pos_;
    ++digits;
    const unsigned d = unsigned(c - '0');
    if (v > (UINT64_MAX - d) / 10) overflow = true;
    v = v * 10 + d;
  }
  if (leading_zero && digits > 1) fail("a number with a leading zero");
  if (c == '.' || c == 'e' || c == 'E') fail("expected an integer, found a fraction or exponent");
  if (overflow || v > max) fail("integer out of range (at most " + std::to_string(max) + ")");
  return v;
}

std::string json_stream::read_string(std::size_t max_len) {
  expect('"', "a string");
  std::string s;
  for (;;) {
    int c = get();
    if (c < 0) fail("unterminated string");
    if (c == '"') return s;
    if (c < 0x20) fail("control character in a string");
    if (c == '\\') {
      c = get();
      switch (c) {
        case '"': case '\\': case '/': break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'u': {
          unsigned u = 0;
          for (int i = 0; i < 4; ++i) {
            const int h = get();
            int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
            if (d < 0) fail("bad \\u escape in a string");
            u = u << 4 | unsigned(d);
          }
          if (u >= 0x80) fail("non-ASCII \\u escape in a string");  // names and keys here are ASCII
          c = int(u);
          break;
        }
        default: fail("bad escape in a string");
      }
    }
    if (s.size() >= max_len) fail("string longer than " + std::to_string(max_len) + " characters");
    s.push_back(char(c));
  }
}

void json_stream::read_null() {
  skip_ws();
  for (char c : std::string_view("null"))
    if (get() != c) fail("expected null");
}

void json_stream::skip_value() { skip_value_at(int(path_.size())); }

void json_stream::skip_value_at(int depth) {
  if (depth >= max_depth) fail("nested too deeply");
  skip_ws();
  const int c = peek_raw();
  if (c == '{') {
    begin_object();
    std::string k;
    while (next_key(k)) skip_value_at(depth + 1);
  } else if (c == '[') {
    begin_array();
    while (next_element()) skip_value_at(depth + 1);
  } else if (c == '"') {
    begin_string();
    char tmp[256];
    while (read_string_raw(tmp, sizeof tmp) != 0) {
    }
  } else if (c == 't' || c == 'f' || c == 'n') {
    const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
    for (char w : word)
      if (get() != w) fail("expected a value");
  } else if (c == '-' || (c >= '0' && c <= '9')) {
    ++pos_;
    int d;
    while ((d = peek_raw()) >= 0 && (std::isdigit(d) || d == '.' || d == 'e' || d == 'E' || d == '+' || d == '-')) ++pos_;
  } else {
    fail("expected a value, found " + printable(c));
  }
}

void json_stream::expect_end() {
  skip_ws();
  const int c = peek_raw();
  if (c >= 0) fail("unexpected " + printable(c) + " after the document");
}

void json_stream::skip_raw(std::uint64_t n) {
  while (n > 0) {
    if (pos_ == len_ && !refill()) fail("unexpected end of input");
    const std::size_t k = std::size_t(std::min<std::uint64_t>(n, len_ - pos_));
    pos_ += k;
    n -= k;
  }
}

void json_stream::begin_string() { expect('"', "a string"); }

std::size_t json_stream::read_string_raw(char* dst, std::size_t cap) {
  std::size_t n = 0;
  while (n < cap) {
    if (pos_ == len_ && !refill()) fail("unterminated string");
    // Fast path: copy plain characters straight out of the buffer.
    while (n < cap && pos_ < len_) {
      const std::uint8_t c = buf_[pos_];
      if (c == '"' || c == '\\' || c < 0x20) break;
      dst[n++] = char(c);
      ++pos_;
    }
    if (n == cap || pos_ == len_) continue;
    const std::uint8_t c = buf_[pos_];
    if (c == '"') {
      if (n == 0) ++pos_;  // the closing quote is consumed once everything before it was returned
      return n;
    }
    if (c < 0x20) fail("control character in a string");
    ++pos_;  // backslash
    const int e = get();
    if (e != '/') fail("unsupported escape in a streamed string");
    dst[n++] = '/';
  }
  return n;
}

}  // namespace cuzk::fil::io
