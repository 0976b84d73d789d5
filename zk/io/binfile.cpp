#include "zk/io/binfile.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace cuzk::zk::io {

namespace {

// Magic bytes as text for a message: printable ASCII as is, the rest as \xNN.
std::string printable(std::span<const std::uint8_t> b) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string s;
  for (auto c : b) {
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
      s.push_back(char(c));
    } else {
      s += "\\x";
      s.push_back(hex[c >> 4]);
      s.push_back(hex[c & 15]);
    }
  }
  return s;
}

}  // namespace

std::string section_label(std::uint32_t id, std::string_view what) {
  std::string s = "section " + std::to_string(id);
  if (!what.empty()) {
    s += " (";
    s += what;
    s += ")";
  }
  return s;
}

// ---- file_bytes --------------------------------------------------------------------------------

std::shared_ptr<const file_bytes> file_bytes::map(const std::string& path, bool populate) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw input_error(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    throw input_error(path + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw input_error(path + ": not a regular file");
  }
  std::shared_ptr<file_bytes> f(new file_bytes());
  f->size_ = std::size_t(st.st_size);
  if (f->size_ > 0) {
    // Populated: every byte is read (validated) right after, and one populate costs far less than
    // a page fault per 4 KiB page. Lazy (bellperson .params): only the headers are read on open.
    void* p = ::mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      throw input_error(path + ": cannot map " + std::to_string(f->size_) + " bytes: " + std::strerror(e));
    }
    f->data_ = static_cast<const std::uint8_t*>(p);
    f->mapped_ = true;
  }
  ::close(fd);  // the mapping stays valid without the descriptor
  return f;
}

std::shared_ptr<const file_bytes> file_bytes::copy(std::span<const std::uint8_t> bytes) {
  std::shared_ptr<file_bytes> f(new file_bytes());
  f->owned_.assign(bytes.begin(), bytes.end());
  f->data_ = f->owned_.data();
  f->size_ = f->owned_.size();
  return f;
}

file_bytes::~file_bytes() {
  if (mapped_) ::munmap(const_cast<std::uint8_t*>(data_), size_);
}

// ---- binfile -----------------------------------------------------------------------------------

binfile::binfile(std::string name, std::shared_ptr<const file_bytes> data, std::string_view magic,
                 std::uint32_t version)
    : name_(std::move(name)), data_(std::move(data)) {
  auto b = data_->bytes();
  const std::uint64_t size = b.size();
  if (size < 12)
    fail("file is " + std::to_string(size) + " bytes, too short for a " + std::string(magic) +
         " header (12 bytes)");
  if (std::memcmp(b.data(), magic.data(), 4) != 0)
    fail("not a ." + std::string(magic) + " file: magic is '" + printable(b.first(4)) + "', expected '" +
         std::string(magic) + "'");
  std::uint32_t v = load_u32(b.data() + 4);
  if (v != version)
    fail(std::string(magic) + " version is " + std::to_string(v) + ", expected " + std::to_string(version));
  std::uint32_t n = load_u32(b.data() + 8);
  std::uint64_t pos = 12;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (size - pos < 12)
      fail("file ends at byte " + std::to_string(size) + " inside the header of section entry " +
           std::to_string(i + 1) + " of " + std::to_string(n) + " (truncated?)");
    std::uint32_t id = load_u32(b.data() + pos);
    std::uint64_t len = load_u64(b.data() + pos + 4);
    pos += 12;
    if (len > size - pos)
      fail("section " + std::to_string(id) + " claims " + std::to_string(len) + " bytes at offset " +
           std::to_string(pos) + " but the file has only " + std::to_string(size - pos) +
           " bytes left (truncated?)");
    if (!sections_.emplace(id, section{pos, len}).second)
      fail("section " + std::to_string(id) + " appears more than once");
    pos += len;
  }
  if (pos != size)
    fail(std::to_string(size - pos) + " unexpected bytes after the last of " + std::to_string(n) + " sections");
}

void binfile::fail(const std::string& what) const { throw input_error(name_ + ": " + what); }

std::span<const std::uint8_t> binfile::bytes(std::uint32_t id, std::string_view what) const {
  auto it = sections_.find(id);
  if (it == sections_.end()) fail(section_label(id, what) + " is missing");
  return data_->bytes().subspan(it->second.offset, it->second.size);
}

std::span<const std::uint8_t> binfile::bytes_exact(std::uint32_t id, std::string_view what, std::uint64_t expected,
                                                   std::string_view unit) const {
  auto s = bytes(id, what);
  if (s.size() != expected) {
    std::string m = section_label(id, what) + " has " + std::to_string(s.size()) + " bytes, expected " +
                    std::to_string(expected);
    if (!unit.empty()) m += " (" + std::string(unit) + ")";
    fail(m);
  }
  return s;
}

// ---- section_reader ----------------------------------------------------------------------------

std::span<const std::uint8_t> section_reader::take(std::uint64_t n, std::string_view field) {
  if (n > remaining())
    fail("ends inside " + std::string(field) + " (needs " + std::to_string(n) + " bytes at offset " +
         std::to_string(pos_) + ", section has " + std::to_string(bytes_.size()) + ")");
  auto s = bytes_.subspan(pos_, n);
  pos_ += n;
  return s;
}

void section_reader::expect_end() const {
  if (remaining() != 0)
    fail("has " + std::to_string(remaining()) + " unexpected bytes after offset " + std::to_string(pos_) +
         " (size " + std::to_string(bytes_.size()) + ")");
}

void section_reader::fail(const std::string& what) const { file_.fail(section_label(id_, what_) + " " + what); }

}  // namespace cuzk::zk::io
