// The iden3 "binfile" container shared by .zkey, .wtns and .r1cs, read in place from a read-only
// mapping, with every offset and length checked against the file's size.
//
// Layout (little-endian): 4-byte magic, u32 version, u32 nSections, then nSections x {u32 id,
// u64 size, size bytes}. Section order is not fixed (snarkjs and circom write different orders), so
// sections are indexed by id; an id may appear once.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zk/error.hpp"

namespace cuzk::zk::io {

// The bytes of one input, read-only: a private mapping of a file, or an owned copy (fuzzing, tests).
//
// A mapped file can shrink under us (another process truncates a key while it is in use): a read
// of a page past the new end raises SIGBUS, which kills the process. guard_mapped_files() installs
// a SIGBUS handler that knows every mapping map() made (a fixed table, searched without locks or
// allocation): a fault inside one replaces the rest of that mapping with anonymous zero pages
// (mmap MAP_FIXED: one system call, safe in a handler on Linux), marks it damaged and lets the
// read go on, reading zeros. Whoever holds the bytes asks damaged() before trusting them (the
// engine's key store before lending a key; every proof is verified anyway, so one made from zeros
// is never released). A SIGBUS anywhere else goes to the handler that was there before (by
// default: the process dies, as it would have). Reading every key into owned memory would avoid
// the signal, at twice the memory for keys of tens of GB; the mapping stays, guarded.
void guard_mapped_files();

class file_bytes {
 public:
  // populate: read the whole file in at once (MAP_POPULATE); false: pages come in as they are used.
  static std::shared_ptr<const file_bytes> map(const std::string& path, bool populate = true);  // throws input_error
  static std::shared_ptr<const file_bytes> copy(std::span<const std::uint8_t> bytes);
  // No copy: the caller keeps `bytes` alive for as long as the result (and what parses it) lives.
  static std::shared_ptr<const file_bytes> view(std::span<const std::uint8_t> bytes);

  std::span<const std::uint8_t> bytes() const { return {data_, size_}; }
  // The file shrank while mapped and a read past its end got zeros instead (guard_mapped_files).
  bool damaged() const;
  // A mapped file's whole pages inside `range` leave this process's resident memory (a later read
  // brings them in again from the file); nothing for bytes in memory. For a large file read once,
  // start to end, by a check that must not hold all of it resident at once.
  void release(std::span<const std::uint8_t> range) const;
  ~file_bytes();
  file_bytes(const file_bytes&) = delete;
  file_bytes& operator=(const file_bytes&) = delete;

 private:
  file_bytes() = default;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
  int guard_slot_ = -1;  // this mapping's entry in the SIGBUS guard's table (-1: none)
  std::vector<std::uint8_t> owned_;
};

// Reads a whole small file (JSON, a witness to send) into memory, taking no more than the format
// allows: input_error naming the file when it is not a regular file (a FIFO or a device such as
// /dev/zero; opened without blocking) or is larger than `max_bytes`.
std::string read_file_capped(const std::string& path, std::uint64_t max_bytes, std::string_view what);

// Unaligned little-endian loads: file bytes are never reinterpreted as integers (misaligned loads
// are undefined behaviour), they are copied.
inline std::uint32_t load_u32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t(p[i]) << (8 * i);
  return v;
}
inline std::uint64_t load_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(p[i]) << (8 * i);
  return v;
}
inline void store_u32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = std::uint8_t(v >> (8 * i));
}
inline void store_u64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = std::uint8_t(v >> (8 * i));
}

class binfile {
 public:
  struct section {
    std::uint64_t offset;  // of the section's first data byte in the file
    std::uint64_t size;
  };

  // Parses and checks the container: magic, version, section table inside the file, no duplicate id,
  // no bytes after the last section. `name` is what error messages call the file.
  binfile(std::string name, std::shared_ptr<const file_bytes> data, std::string_view magic,
          std::uint32_t version);

  const std::string& name() const { return name_; }
  const std::shared_ptr<const file_bytes>& data() const { return data_; }
  bool has(std::uint32_t id) const { return sections_.count(id) != 0; }
  const std::map<std::uint32_t, section>& sections() const { return sections_; }

  // Section `id` (called `what` in messages); throws input_error when it is missing.
  std::span<const std::uint8_t> bytes(std::uint32_t id, std::string_view what) const;
  // Same, and its size must be exactly `expected` (`unit` explains the number, e.g. "65536 points of
  // 96 bytes").
  std::span<const std::uint8_t> bytes_exact(std::uint32_t id, std::string_view what, std::uint64_t expected,
                                            std::string_view unit = {}) const;
  std::uint64_t offset(std::uint32_t id) const { return sections_.at(id).offset; }

  // Throws input_error("<name>: <what>").
  [[noreturn]] void fail(const std::string& what) const;

 private:
  std::string name_;
  std::shared_ptr<const file_bytes> data_;
  std::map<std::uint32_t, section> sections_;
};

// A bounds-checked cursor over one section.
class section_reader {
 public:
  section_reader(const binfile& file, std::uint32_t id, std::string_view what, std::span<const std::uint8_t> bytes)
      : file_(file), id_(id), what_(what), bytes_(bytes) {}

  std::uint32_t u32(std::string_view field) { return load_u32(take(4, field).data()); }
  std::uint64_t u64(std::string_view field) { return load_u64(take(8, field).data()); }
  std::span<const std::uint8_t> take(std::uint64_t n, std::string_view field);

  std::uint64_t position() const { return pos_; }
  std::uint64_t remaining() const { return bytes_.size() - pos_; }
  // Throws unless the whole section was consumed.
  void expect_end() const;
  [[noreturn]] void fail(const std::string& what) const;
  const binfile& file() const { return file_; }

 private:
  const binfile& file_;
  std::uint32_t id_;
  std::string what_;
  std::span<const std::uint8_t> bytes_;
  std::uint64_t pos_ = 0;
};

// "section 2 (header)"
std::string section_label(std::uint32_t id, std::string_view what);

}  // namespace cuzk::zk::io
