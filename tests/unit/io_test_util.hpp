// Helpers for the file-format tests: fixture paths, temporary files, and an independent (test-side)
// walk of the binfile container so that tests can corrupt chosen sections of real files.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace io_test {

inline std::string fixture(const std::string& name) {
  return std::string(CUZK_SOURCE_DIR) + "/tests/fixtures/sample/" + name;
}

inline std::vector<std::uint8_t> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
inline std::string slurp_text(const std::string& path) {
  auto b = slurp(path);
  return {b.begin(), b.end()};
}

// A file in the temp directory, removed when the object dies.
class temp_file {
 public:
  explicit temp_file(const std::vector<std::uint8_t>& bytes, const std::string& suffix = ".bin") {
    std::string tmpl = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : std::string("/tmp")) +
                       "/cuzk_io_XXXXXX" + suffix;
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back(0);
    int fd = ::mkstemps(buf.data(), int(suffix.size()));
    if (fd < 0) throw std::runtime_error("mkstemps failed");
    path_ = buf.data();
    std::size_t off = 0;
    while (off < bytes.size()) {
      auto n = ::write(fd, bytes.data() + off, bytes.size() - off);
      if (n <= 0) throw std::runtime_error("write failed");
      off += std::size_t(n);
    }
    ::close(fd);
  }
  temp_file(const temp_file&) = delete;
  ~temp_file() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::uint32_t get32(const std::vector<std::uint8_t>& b, std::size_t at) {
  return std::uint32_t(b[at]) | std::uint32_t(b[at + 1]) << 8 | std::uint32_t(b[at + 2]) << 16 |
         std::uint32_t(b[at + 3]) << 24;
}
inline std::uint64_t get64(const std::vector<std::uint8_t>& b, std::size_t at) {
  return std::uint64_t(get32(b, at)) | std::uint64_t(get32(b, at + 4)) << 32;
}
inline void put32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = std::uint8_t(v >> (8 * i));
}
inline void put64(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = std::uint8_t(v >> (8 * i));
}

// Where each section is: offset of its 12-byte entry header and of its data.
struct section_pos {
  std::size_t header, data;
  std::uint64_t size;
};
inline std::map<std::uint32_t, section_pos> sections_of(const std::vector<std::uint8_t>& b) {
  std::map<std::uint32_t, section_pos> out;
  std::size_t pos = 12;
  std::uint32_t n = get32(b, 8);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint32_t id = get32(b, pos);
    std::uint64_t size = get64(b, pos + 4);
    out[id] = {pos, pos + 12, size};
    pos += 12 + size;
  }
  return out;
}

// Removes a section entirely (and decrements nSections).
inline std::vector<std::uint8_t> without_section(std::vector<std::uint8_t> b, std::uint32_t id) {
  auto s = sections_of(b).at(id);
  b.erase(b.begin() + std::ptrdiff_t(s.header), b.begin() + std::ptrdiff_t(s.data + s.size));
  put32(b, 8, get32(b, 8) - 1);
  return b;
}

// Shrinks a section by `n` bytes at its end, keeping the container consistent (a size that lies
// about the content, not about the file).
inline std::vector<std::uint8_t> shrink_section(std::vector<std::uint8_t> b, std::uint32_t id, std::size_t n) {
  auto s = sections_of(b).at(id);
  std::size_t end = s.data + s.size;
  b.erase(b.begin() + std::ptrdiff_t(end - n), b.begin() + std::ptrdiff_t(end));
  put64(b, s.header + 4, s.size - n);
  return b;
}

// Appends a section (id, bytes) at the end, or inserts it first.
inline std::vector<std::uint8_t> with_section(std::vector<std::uint8_t> b, std::uint32_t id,
                                              const std::vector<std::uint8_t>& data, bool first = false) {
  std::vector<std::uint8_t> entry(12);
  put32(entry, 0, id);
  put64(entry, 4, data.size());
  entry.insert(entry.end(), data.begin(), data.end());
  b.insert(first ? b.begin() + 12 : b.end(), entry.begin(), entry.end());
  put32(b, 8, get32(b, 8) + 1);
  return b;
}

inline std::mt19937_64& rng() {
  static std::mt19937_64 g(0xC0FFEE);
  return g;
}

}  // namespace io_test
