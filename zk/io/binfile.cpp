#include "zk/io/binfile.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

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

// The SIGBUS guard's table of live mappings: begin/end of each, and whether a fault replaced
// part of it. Slots are claimed with a compare-and-swap on `end` and read by the handler with
// plain atomic loads (no lock: the handler may interrupt a thread that is registering).
struct guarded_mapping {
  std::atomic<std::uintptr_t> begin{0}, end{0};
  std::atomic<bool> damaged{false};
};
constexpr int kGuardSlots = 1024;
guarded_mapping guard_table[kGuardSlots];
std::atomic<bool> guard_installed{false};
struct sigaction previous_sigbus {};

int guard_register(const void* p, std::size_t n) {
  auto b = reinterpret_cast<std::uintptr_t>(p);
  for (int i = 0; i < kGuardSlots; ++i) {
    std::uintptr_t free_slot = 0;
    if (guard_table[i].end.compare_exchange_strong(free_slot, ~std::uintptr_t{0})) {  // claimed, not yet valid
      guard_table[i].damaged = false;
      guard_table[i].begin = b;
      guard_table[i].end = b + n;
      return i;
    }
  }
  return -1;  // more than kGuardSlots live mappings: this one is unguarded
}

void on_sigbus(int sig, siginfo_t* info, void* ctx) {
  auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (auto& m : guard_table) {
    auto b = m.begin.load(), e = m.end.load();
    if (b == 0 || e == ~std::uintptr_t{0} || addr < b || addr >= e) continue;
    const std::uintptr_t page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
    std::uintptr_t from = addr & ~(page - 1), to = (e + page - 1) & ~(page - 1);
    void* r = ::mmap(reinterpret_cast<void*>(from), to - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (r == MAP_FAILED) break;
    m.damaged = true;
    return;  // the faulting read runs again and reads zeros
  }
  // Not ours: what was there before decides (by default the process dies with SIGBUS).
  if (previous_sigbus.sa_flags & SA_SIGINFO) {
    if (previous_sigbus.sa_sigaction) return previous_sigbus.sa_sigaction(sig, info, ctx);
  } else if (previous_sigbus.sa_handler != SIG_DFL && previous_sigbus.sa_handler != SIG_IGN) {
    return previous_sigbus.sa_handler(sig);
  }
  ::signal(SIGBUS, SIG_DFL);
  ::raise(SIGBUS);
}

}  // namespace

void guard_mapped_files() {
  if (guard_installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGBUS, &sa, &previous_sigbus);
}

bool file_bytes::damaged() const { return guard_slot_ >= 0 && guard_table[guard_slot_].damaged.load(); }

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

std::string read_file_capped(const std::string& path, std::uint64_t max_bytes, std::string_view what) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO must not block the open
  if (fd < 0) throw input_error(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw input_error(path + ": not a regular file");
  }
  if (std::uint64_t(st.st_size) > max_bytes) {
    ::close(fd);
    throw input_error(path + ": " + std::to_string(st.st_size) + " bytes, more than a " + std::string(what) +
                      " may have (" + std::to_string(max_bytes) + ")");
  }
  // The size is read once; a file that grows meanwhile is read only up to the cap.
  std::string out(std::size_t(st.st_size), '\0');
  std::size_t done = 0;
  while (done < out.size()) {
    auto n = ::pread(fd, out.data() + done, out.size() - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      throw input_error(path + ": cannot read: " + std::strerror(e));
    }
    if (n == 0) break;  // shrank meanwhile
    done += std::size_t(n);
  }
  ::close(fd);
  out.resize(done);
  return out;
}

std::shared_ptr<const file_bytes> file_bytes::map(const std::string& path, bool populate) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO must not block the open
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
    f->guard_slot_ = guard_register(p, f->size_);
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

std::shared_ptr<const file_bytes> file_bytes::view(std::span<const std::uint8_t> bytes) {
  std::shared_ptr<file_bytes> f(new file_bytes());
  f->data_ = bytes.data();
  f->size_ = bytes.size();
  return f;
}

void file_bytes::release(std::span<const std::uint8_t> range) const {
  if (!mapped_ || range.empty()) return;
  const auto page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
  auto from = (reinterpret_cast<std::uintptr_t>(range.data()) + page - 1) & ~(page - 1);
  auto to = (reinterpret_cast<std::uintptr_t>(range.data()) + range.size()) & ~(page - 1);
  if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

file_bytes::~file_bytes() {
  if (guard_slot_ >= 0) {  // out of the table first: the handler must not remap what is unmapped
    guard_table[guard_slot_].begin = 0;
    guard_table[guard_slot_].end = 0;
  }
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
