// A pull parser for JSON read from a byte stream in small chunks, for the C1 output: at 32 GiB that is
// ~50 MB of base64 around ~37 MB of JSON (up to ~200 MB), and it must not be held as text, decoded
// text and a DOM at once. The caller walks the document (begin_object / next_key, begin_array /
// next_element, read_u64, ...) and builds its own structures directly; nothing else is kept. A string
// value can itself be read as a stream (begin_string / read_string_raw), which is how the base64
// Phase1Out is decoded into a second json_stream without ever being materialized.
//
// Errors are one line: "<origin>: <path>: <what>", where the path is maintained as the walk goes
// (keys joined with '.', array positions as [i]), e.g.
//   c1.json: Phase1Out: vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs.data.Single.root: expected 32 bytes
// Nesting deeper than 64 levels is refused (the fuzzer's stack stays bounded).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::fil::io {

class byte_source {
 public:
  virtual ~byte_source() = default;
  // Up to `cap` bytes into dst; 0 only at the end of the stream.
  virtual std::size_t read(std::uint8_t* dst, std::size_t cap) = 0;
};

class memory_source final : public byte_source {
 public:
  explicit memory_source(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  explicit memory_source(std::string_view text)
      : bytes_(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()) {}
  std::size_t read(std::uint8_t* dst, std::size_t cap) override;

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t at_ = 0;
};

// Reads a regular file in chunks (never whole), up to its size when opened. Throws input_error
// naming the path for anything else (a FIFO, a device) or a file larger than `max_bytes`,
// std::runtime_error on I/O errors.
class file_source final : public byte_source {
 public:
  // A C1 output: ~50 MB at 32 GiB, twice that at 64 GiB; written with whitespace, a few times more.
  static constexpr std::uint64_t default_max_bytes = std::uint64_t{1} << 30;
  explicit file_source(const std::string& path, std::uint64_t max_bytes = default_max_bytes);
  ~file_source() override;
  file_source(const file_source&) = delete;
  file_source& operator=(const file_source&) = delete;
  std::size_t read(std::uint8_t* dst, std::size_t cap) override;
  std::uint64_t size() const { return size_; }
  // Called after every chunk with (bytes read, file size): the caller's progress display.
  void on_progress(std::function<void(std::uint64_t, std::uint64_t)> f) { progress_ = std::move(f); }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  std::uint64_t size_ = 0, done_ = 0;
  std::function<void(std::uint64_t, std::uint64_t)> progress_;
};

class json_stream {
 public:
  json_stream(byte_source& src, std::string origin);

  [[noreturn]] void fail(std::string_view what) const;
  std::string path() const;

  // Next significant character without consuming it; 0 at the end of the input.
  char peek();

  void begin_object();
  // The next key of the current object, or false at its '}' (then the object is closed).
  bool next_key(std::string& key);
  void begin_array();
  // True when another element follows (its position is part of the path), false at ']'.
  bool next_element();

  std::uint64_t read_u64(std::uint64_t max = UINT64_MAX);  // a non-negative integer <= max
  std::string read_string(std::size_t max_len = 4096);
  void read_null();
  void skip_value();
  // Only whitespace remains.
  void expect_end();

  // Streaming strings: begin_string() consumes the opening quote; read_string_raw() then returns the
  // next raw characters ("\/" unescaped, other escapes refused) and 0 once the closing quote is read.
  void begin_string();
  std::size_t read_string_raw(char* dst, std::size_t cap);

  // Byte offset of the next unread character (for messages).
  std::uint64_t offset() const { return consumed_ + pos_; }
  // Consumes the next n raw bytes unread: for a caller that found where a value ends in the same
  // bytes by other means (io::read_c1's parallel partitions). Fails at the end of the input.
  void skip_raw(std::uint64_t n);

 private:
  struct frame {
    bool is_array = false;
    bool first = true;
    std::uint64_t index = 0;
    std::string key;
  };

  int get();      // next raw byte or -1
  int peek_raw();  // next raw byte without consuming, or -1
  bool refill();
  void skip_ws();
  void expect(char c, std::string_view what);
  void push(bool is_array);
  void skip_value_at(int depth);

  byte_source& src_;
  std::string origin_;
  std::vector<std::uint8_t> buf_;
  std::size_t pos_ = 0, len_ = 0;
  std::uint64_t consumed_ = 0;
  bool eof_ = false;
  std::vector<frame> path_;
};

}  // namespace cuzk::fil::io
