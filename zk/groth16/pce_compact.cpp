#include "zk/groth16/pce_compact.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include "zk/error.hpp"
#include "zk/io/sha256.hpp"

namespace cuzk::zk::groth16 {

namespace {

constexpr char magic[8] = {'C', 'U', 'Z', 'K', 'P', 'C', 'E', '1'};
constexpr std::uint32_t version = 2;
constexpr std::size_t header_bytes = 256, digest_offset = 64, key_offset = 128, key_bytes = 128;
constexpr std::size_t digest_chunk = std::size_t{64} << 20;  // the file's digest is over chunks hashed in parallel

std::uint64_t align64(std::uint64_t x) { return (x + 63) & ~std::uint64_t{63}; }
std::uint64_t blocks_of(std::uint64_t rows) { return (rows + pce_block_rows - 1) / pce_block_rows; }
std::uint64_t words_of(std::uint64_t bits) { return (bits + 63) / 64; }

// The sections in file order, each at a 64-byte boundary after the header (docs/formats.md).
struct layout {
  std::uint64_t coeffs, a_lens, a_blocks, a_signals, a_coeffs, b_lens, b_blocks, b_signals, b_coeffs, dens_a_aux,
      dens_b_aux, dens_b_in, end;
};
layout layout_of(std::uint64_t n_inputs, std::uint64_t n_aux, std::uint64_t rows, std::uint64_t n_coeffs,
                 std::uint64_t entries_a, std::uint64_t entries_b) {
  layout l{};
  std::uint64_t at = header_bytes;
  auto next = [&](std::uint64_t bytes) {
    const std::uint64_t here = at;
    at = align64(at + bytes);
    return here;
  };
  l.coeffs = next(n_coeffs * 32);
  l.a_lens = next(rows * 2);
  l.a_blocks = next(blocks_of(rows) * 8);
  l.a_signals = next(entries_a * 4);
  l.a_coeffs = next(entries_a * 2);
  l.b_lens = next(rows * 2);
  l.b_blocks = next(blocks_of(rows) * 8);
  l.b_signals = next(entries_b * 4);
  l.b_coeffs = next(entries_b * 2);
  l.dens_a_aux = next(words_of(n_aux) * 8);
  l.dens_b_aux = next(words_of(n_aux) * 8);
  l.dens_b_in = next(words_of(n_inputs) * 8);
  l.end = at;
  return l;
}

void put_u32(std::uint8_t* p, std::uint32_t v) { std::memcpy(p, &v, 4); }
void put_u64(std::uint8_t* p, std::uint64_t v) { std::memcpy(p, &v, 8); }
std::uint32_t get_u32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
std::uint64_t get_u64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// A new file, created by this call alone: never an existing file, never through a symlink (the
// cache directory may be one that others can write: a name planted there is refused, not followed).
std::FILE* open_temp(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(path + ": cannot create (" + std::strerror(errno) + ")");
  std::FILE* f = ::fdopen(fd, "w+b");
  if (!f) {
    const int e = errno;
    ::close(fd);
    throw std::runtime_error(path + ": cannot create (" + std::strerror(e) + ")");
  }
  std::setvbuf(f, nullptr, _IOFBF, 1 << 22);
  return f;
}

// SHA-256 over the header (its digest field zeroed) and the SHA-256 of each 64 MiB chunk after
// it, the chunks hashed on the pool: what the header's digest field holds.
std::array<std::uint8_t, 32> file_digest(std::span<const std::uint8_t> bytes) {
  const std::size_t body = bytes.size() - header_bytes, chunks = (body + digest_chunk - 1) / digest_chunk;
  std::vector<std::uint8_t> parts(header_bytes + 32 * chunks);
  std::memcpy(parts.data(), bytes.data(), header_bytes);
  std::memset(parts.data() + digest_offset, 0, 32);
  default_pool().run(chunks, [&](std::size_t i) {
    const std::size_t at = header_bytes + i * digest_chunk, n = std::min(digest_chunk, bytes.size() - at);
    unsigned len = 0;
    EVP_Digest(bytes.data() + at, n, parts.data() + header_bytes + 32 * i, &len, EVP_sha256(), nullptr);
  });
  std::array<std::uint8_t, 32> out{};
  unsigned len = 0;
  EVP_Digest(parts.data(), parts.size(), out.data(), &len, EVP_sha256(), nullptr);
  return out;
}

void write_all(std::FILE* f, const void* p, std::size_t n, const std::string& path) {
  if (n && std::fwrite(p, 1, n, f) != n) throw std::runtime_error(path + ": write failed (" + std::strerror(errno) + ")");
}

void pad_to(std::FILE* f, std::uint64_t offset, const std::string& path) {
  const long at = std::ftell(f);
  if (at < 0 || std::uint64_t(at) > offset) throw std::runtime_error(path + ": bad section offset");
  static const std::uint8_t zeros[64] = {};
  write_all(f, zeros, offset - std::uint64_t(at), path);
}

// Appends the whole of `src` (a temporary section file) to `dst`.
void append_file(std::FILE* dst, std::FILE* src, const std::string& path) {
  if (std::fflush(src) != 0 || std::fseek(src, 0, SEEK_SET) != 0)
    throw std::runtime_error(path + ": cannot reread a temporary section");
  std::vector<std::uint8_t> buf(1 << 22);
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), src)) > 0;) write_all(dst, buf.data(), n, path);
  if (std::ferror(src)) throw std::runtime_error(path + ": cannot reread a temporary section");
}

void set_bit(std::vector<std::uint64_t>& words, std::uint64_t i) {
  if ((i >> 6) >= words.size()) words.resize(std::max<std::size_t>((i >> 6) + 1, words.size() * 2), 0);
  words[i >> 6] |= std::uint64_t{1} << (i & 63);
}

// The index of coefficient `c` in `table`, appended (and indexed) when new: one numbering rule for
// a part's own table and the recorder's, so the file never depends on who met a coefficient first.
template <class Index>
std::uint16_t intern_coeff(std::vector<fr>& table, Index& index, const fr& c, const std::string& path) {
  if (auto it = index.find(c.m.limb); it != index.end()) return it->second;
  if (table.size() >= 0xffff)
    throw std::length_error(path + ": more than 65,534 distinct coefficients (the compact form's limit)");
  const auto i = std::uint16_t(table.size());
  table.push_back(c);
  index.emplace(c.m.limb, i);
  return i;
}

}  // namespace

// One part's rows as the file encodes them, with coefficient indices into the part's own table (in
// the order the part first met them, A row before B row).
class pce_part : public cs::constraint_sink {
 public:
  explicit pce_part(const std::string& path) : path_(path) {}
  void constraint(const cs::linear_combination& a, const cs::linear_combination& b,
                  const cs::linear_combination&) override {
    add_row(a_, a);
    add_row(b_, b);
    ++rows_;
  }
  void clear() {
    for (rows* r : {&a_, &b_}) r->lens.clear(), r->signals.clear(), r->coeffs.clear();
    rows_ = 0;
    table_.clear();
    index_.clear();
  }

  struct rows {
    std::vector<std::uint16_t> lens;
    std::vector<std::uint32_t> signals;
    std::vector<std::uint16_t> coeffs;
  };
  rows a_, b_;
  std::uint64_t rows_ = 0;
  std::vector<fr> table_;

 private:
  void add_row(rows& m, const cs::linear_combination& lc) {
    const auto& terms = lc.terms();
    if (terms.size() > 0xffff) throw std::length_error(path_ + ": a row of more than 65,535 terms");
    m.lens.push_back(std::uint16_t(terms.size()));
    for (const auto& [v, c] : terms) {
      const std::uint64_t i = v.index();
      if (i >= pce_input_bit) throw std::length_error(path_ + ": more than 2^31 variables");
      m.signals.push_back(v.is_aux() ? std::uint32_t(i) : pce_input_bit | std::uint32_t(i));
      m.coeffs.push_back(coeff_index(c));
    }
  }
  std::uint16_t coeff_index(const fr& c) { return intern_coeff(table_, index_, c, path_); }

  const std::string& path_;
  std::unordered_map<std::array<std::uint64_t, 4>, std::uint16_t, pce_recorder::limbs_hash> index_;
};

namespace {
constexpr std::uint64_t own_rows = 1 << 16;  // constraint()'s rows are appended in batches of this many
}

pce_recorder::pce_recorder(std::string path, std::string key)
    : path_(std::move(path)), key_(std::move(key)),
      tmp_(path_ + ".tmp." + std::to_string(::getpid()) + "." + io::random_hex(8)) {
  if (key_.size() >= key_bytes) throw std::length_error("pce_recorder: the key is longer than 127 bytes");
  own_ = std::make_unique<pce_part>(path_);
  table_ = {fr::one(), -fr::one()};
  index_[table_[0].m.limb] = 0;
  index_[table_[1].m.limb] = 1;
  a_.lens = open_temp(tmp_ + ".a_lens");
  a_.signals = open_temp(tmp_ + ".a_signals");
  a_.coeffs = open_temp(tmp_ + ".a_coeffs");
  b_.lens = open_temp(tmp_ + ".b_lens");
  b_.signals = open_temp(tmp_ + ".b_signals");
  b_.coeffs = open_temp(tmp_ + ".b_coeffs");
}

pce_recorder::~pce_recorder() {
  const char* names[] = {"a_lens", "a_signals", "a_coeffs", "b_lens", "b_signals", "b_coeffs"};
  std::FILE* files[] = {a_.lens, a_.signals, a_.coeffs, b_.lens, b_.signals, b_.coeffs};
  for (int i = 0; i < 6; ++i) {
    if (files[i]) std::fclose(files[i]);
    std::error_code ec;
    std::filesystem::remove(tmp_ + "." + names[i], ec);
  }
  if (!finished_) {
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
}

std::uint64_t pce_recorder::constraints() const { return rows_ + own_->rows_; }

std::uint16_t pce_recorder::coeff_index(const fr& c) { return intern_coeff(table_, index_, c, path_); }

void pce_recorder::constraint(const cs::linear_combination& a, const cs::linear_combination& b,
                              const cs::linear_combination& c) {
  own_->constraint(a, b, c);
  if (own_->rows_ >= own_rows) flush_own();
}

void pce_recorder::flush_own() {
  if (own_->rows_ == 0) return;
  auto own = std::move(own_);
  own_ = std::make_unique<pce_part>(path_);
  append_part(*own);
}

std::unique_ptr<cs::constraint_sink> pce_recorder::part(std::uint64_t) { return std::make_unique<pce_part>(path_); }

void pce_recorder::append_part(cs::constraint_sink& sink) {
  auto* p = dynamic_cast<pce_part*>(&sink);
  if (!p) throw std::logic_error("pce_recorder::append_part: not a part() of a pce_recorder");
  if (p != own_.get()) flush_own();  // constraint()'s rows came first
  // The part's coefficients in its own first-met order: those new to the file are numbered in the
  // order the file's rows first meet them.
  remap_.resize(p->table_.size());
  for (std::size_t i = 0; i < p->table_.size(); ++i) remap_[i] = coeff_index(p->table_[i]);
  std::vector<std::uint16_t> coeffs;
  auto rows = [&](matrix_stream& m, const pce_part::rows& r, bool a) {
    std::uint64_t k = m.entries;
    for (std::size_t i = 0; i < r.lens.size(); ++i) {
      if ((rows_ + i) % pce_block_rows == 0) m.blocks.push_back(k);
      k += r.lens[i];
    }
    write_all(m.lens, r.lens.data(), 2 * r.lens.size(), path_);
    write_all(m.signals, r.signals.data(), 4 * r.signals.size(), path_);
    coeffs.resize(r.coeffs.size());
    for (std::size_t e = 0; e < r.coeffs.size(); ++e) coeffs[e] = remap_[r.coeffs[e]];
    write_all(m.coeffs, coeffs.data(), 2 * coeffs.size(), path_);
    for (const std::uint32_t s : r.signals) {
      if (!(s & pce_input_bit)) set_bit(a ? dens_a_aux_ : dens_b_aux_, s);
      else if (!a) set_bit(dens_b_in_, s & ~pce_input_bit);
    }
    m.entries = k;
  };
  rows(a_, p->a_, true);
  rows(b_, p->b_, false);
  rows_ += p->rows_;
  p->clear();
}

void pce_recorder::finish(std::uint64_t n_inputs, std::uint64_t n_aux) {
  flush_own();
  if (n_inputs >= pce_input_bit || n_aux >= pce_input_bit)
    throw std::length_error(path_ + ": more than 2^31 variables");
  const layout l = layout_of(n_inputs, n_aux, rows_, table_.size(), a_.entries, b_.entries);
  const std::string& tmp = tmp_;
  std::FILE* out = open_temp(tmp);
  try {
    std::uint8_t h[header_bytes] = {};
    std::memcpy(h, magic, 8);
    put_u32(h + 8, version);
    put_u32(h + 12, pce_block_rows);
    put_u64(h + 16, n_inputs);
    put_u64(h + 24, n_aux);
    put_u64(h + 32, rows_);
    put_u64(h + 40, table_.size());
    put_u64(h + 48, a_.entries);
    put_u64(h + 56, b_.entries);
    std::memcpy(h + key_offset, key_.data(), key_.size());
    write_all(out, h, header_bytes, tmp);
    pad_to(out, l.coeffs, tmp);
    for (const auto& c : table_) {
      const auto v = c.to_canonical();
      write_all(out, v.limb.data(), 32, tmp);  // little-endian limbs on the hosts we build for
    }
    auto matrix = [&](matrix_stream& m, std::uint64_t lens, std::uint64_t blocks, std::uint64_t signals,
                      std::uint64_t coeffs) {
      pad_to(out, lens, tmp);
      append_file(out, m.lens, tmp);
      pad_to(out, blocks, tmp);
      write_all(out, m.blocks.data(), m.blocks.size() * 8, tmp);
      pad_to(out, signals, tmp);
      append_file(out, m.signals, tmp);
      pad_to(out, coeffs, tmp);
      append_file(out, m.coeffs, tmp);
    };
    matrix(a_, l.a_lens, l.a_blocks, l.a_signals, l.a_coeffs);
    matrix(b_, l.b_lens, l.b_blocks, l.b_signals, l.b_coeffs);
    auto bitmap = [&](std::vector<std::uint64_t> words, std::uint64_t at, std::uint64_t bits) {
      words.resize(words_of(bits), 0);
      pad_to(out, at, tmp);
      write_all(out, words.data(), words.size() * 8, tmp);
    };
    bitmap(dens_a_aux_, l.dens_a_aux, n_aux);
    bitmap(dens_b_aux_, l.dens_b_aux, n_aux);
    bitmap(dens_b_in_, l.dens_b_in, n_inputs);
    pad_to(out, l.end, tmp);
    if (std::fflush(out) != 0) throw std::runtime_error(tmp + ": write failed (" + std::strerror(errno) + ")");
  } catch (...) {
    std::fclose(out);
    throw;
  }
  if (std::fclose(out) != 0) throw std::runtime_error(tmp + ": write failed (" + std::strerror(errno) + ")");
  {
    // The digest of what was written, read back through a mapping, into the header.
    const auto written = io::file_bytes::map(tmp, false);
    const auto d = file_digest(written->bytes());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    const bool ok = fd >= 0 && ::pwrite(fd, d.data(), d.size(), digest_offset) == ssize_t(d.size()) && ::fsync(fd) == 0;
    const int e = errno;
    if (fd >= 0) ::close(fd);
    if (!ok) throw std::runtime_error(tmp + ": write failed (" + std::strerror(e) + ")");
  }
  std::filesystem::rename(tmp, path_);
  finished_ = true;
}

bool pce_compact::intact() const {
  if (damaged()) return false;
  const auto bytes = file_->bytes();
  const bool same =
      bytes.size() >= header_bytes && std::memcmp(file_digest(bytes).data(), bytes.data() + digest_offset, 32) == 0;
  if (!same) changed_->store(true);
  return same;
}

std::uint64_t pce_compact::domain_size() const {
  std::uint64_t n = 1;
  while (n < n_constraints_ + n_inputs_) n <<= 1;
  return n;
}

std::string pce_compact::stored_key(const std::string& path) {
  const auto file = io::file_bytes::map(path, false);
  const auto bytes = file->bytes();
  const std::uint8_t* p = bytes.data();
  if (bytes.size() < header_bytes || std::memcmp(p, magic, 8) != 0)
    throw input_error(path + ": not a cuzk compact constraint evaluator (magic)");
  return std::string(reinterpret_cast<const char*>(p + key_offset),
                     strnlen(reinterpret_cast<const char*>(p + key_offset), key_bytes));
}

pce_compact pce_compact::open(const std::string& path, const std::string& key, bool populate, bool verify) {
  pce_compact e;
  e.file_ = io::file_bytes::map(path, populate);
  const auto bytes = e.file_->bytes();
  const std::uint8_t* p = bytes.data();
  auto bad = [&](const std::string& what) { return input_error(path + ": " + what); };
  if (bytes.size() < header_bytes || std::memcmp(p, magic, 8) != 0)
    throw bad("not a cuzk compact constraint evaluator (magic)");
  if (get_u32(p + 8) != version)
    throw bad("version " + std::to_string(get_u32(p + 8)) + ", expected " + std::to_string(version));
  if (get_u32(p + 12) != pce_block_rows) throw bad("block_rows " + std::to_string(get_u32(p + 12)) + ", expected 4096");
  const std::string stored(reinterpret_cast<const char*>(p + key_offset),
                           strnlen(reinterpret_cast<const char*>(p + key_offset), key_bytes));
  if (stored != key) throw bad("key '" + stored + "', expected '" + key + "'");
  e.n_inputs_ = get_u64(p + 16);
  e.n_aux_ = get_u64(p + 24);
  e.n_constraints_ = get_u64(p + 32);
  const std::uint64_t n_coeffs = get_u64(p + 40);
  e.a_.entries = get_u64(p + 48);
  e.b_.entries = get_u64(p + 56);
  if (e.n_inputs_ == 0 || e.n_inputs_ >= pce_input_bit || e.n_aux_ >= pce_input_bit || e.n_constraints_ >= (1ull << 40) ||
      n_coeffs < 2 || n_coeffs > 0xffff || e.a_.entries >= (1ull << 40) || e.b_.entries >= (1ull << 40))
    throw bad("header counts out of range");
  const layout l = layout_of(e.n_inputs_, e.n_aux_, e.n_constraints_, n_coeffs, e.a_.entries, e.b_.entries);
  if (bytes.size() != l.end)
    throw bad("size " + std::to_string(bytes.size()) + " bytes, its header says " + std::to_string(l.end));
  // Every byte against the digest recorded with it, once per mapping (a damaged cache file is
  // recorded again rather than evaluated; evaluation itself never checks).
  if (std::memcmp(file_digest(bytes).data(), p + digest_offset, 32) != 0)
    throw bad("contents differ from the digest recorded in its header (damaged)");
  e.table_.resize(n_coeffs);
  for (std::uint64_t i = 0; i < n_coeffs; ++i) {
    bigint<4> v;
    std::memcpy(v.limb.data(), p + l.coeffs + 32 * i, 32);
    if (!fr::is_canonical(v)) throw bad("coefficient " + std::to_string(i) + " is not a field element");
    e.table_[i] = fr::from_canonical(v);
  }
  if (!(e.table_[0] == fr::one()) || !(e.table_[1] == -fr::one())) throw bad("coefficients 0 and 1 are not +1 and -1");
  auto view = [&](matrix_view& m, std::uint64_t lens, std::uint64_t blocks, std::uint64_t signals, std::uint64_t coeffs,
                  const char* name) {
    m.lens = reinterpret_cast<const std::uint16_t*>(p + lens);
    m.blocks = reinterpret_cast<const std::uint64_t*>(p + blocks);
    m.signals = reinterpret_cast<const std::uint32_t*>(p + signals);
    m.coeffs = reinterpret_cast<const std::uint16_t*>(p + coeffs);
    // Every block's offset is the sum of the lengths before it, and the last block ends at the entry
    // count: evaluation then never reads past its section.
    const std::uint64_t nb = blocks_of(e.n_constraints_);
    std::vector<std::uint64_t> sums(nb, 0);
    parallel_for(nb, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t j = lo; j < hi; ++j) {
        const std::uint64_t r0 = j * pce_block_rows, r1 = std::min<std::uint64_t>(r0 + pce_block_rows, e.n_constraints_);
        std::uint64_t s = 0;
        for (std::uint64_t r = r0; r < r1; ++r) s += m.lens[r];
        sums[j] = s;
      }
    });
    std::uint64_t at = 0;
    for (std::uint64_t j = 0; j < nb; ++j) {
      if (m.blocks[j] != at) throw bad(std::string(name) + " block " + std::to_string(j) + " offset does not add up");
      at += sums[j];
    }
    if (at != m.entries) throw bad(std::string(name) + " row lengths do not add up to its entries");
    if (verify) {
      std::atomic<bool> ok{true};
      parallel_for(m.entries, [&](std::size_t lo, std::size_t hi) {
        for (std::size_t k = lo; k < hi; ++k) {
          const std::uint32_t s = m.signals[k];
          const bool in = (s & pce_input_bit) != 0;
          if ((in ? (s & ~pce_input_bit) >= e.n_inputs_ : s >= e.n_aux_) || m.coeffs[k] >= n_coeffs) ok = false;
        }
      }, 1 << 16);
      if (!ok) throw bad(std::string(name) + ": a signal or coefficient index out of range");
    }
  };
  view(e.a_, l.a_lens, l.a_blocks, l.a_signals, l.a_coeffs, "A");
  view(e.b_, l.b_lens, l.b_blocks, l.b_signals, l.b_coeffs, "B");
  e.dens_a_aux_ = reinterpret_cast<const std::uint64_t*>(p + l.dens_a_aux);
  e.dens_b_aux_ = reinterpret_cast<const std::uint64_t*>(p + l.dens_b_aux);
  e.dens_b_in_ = reinterpret_cast<const std::uint64_t*>(p + l.dens_b_in);
  return e;
}

synthesis pce_compact::evaluate(std::span<const fr> inputs, std::span<const fr> aux, thread_pool& pool) const {
  synthesis s;
  const std::size_t n = domain_size();
  s.a.resize(n);
  s.b.resize(n);
  s.c.resize(n);
  evaluate_into(inputs, aux, s.a, s.b, s.c, pool);
  return s;
}

void pce_compact::evaluate_into(std::span<const fr> inputs, std::span<const fr> aux, std::span<fr> a, std::span<fr> b,
                                std::span<fr> c, thread_pool& pool) const {
  if (inputs.size() != n_inputs_ || aux.size() != n_aux_)
    throw input_error("witness has " + std::to_string(inputs.size()) + " inputs and " + std::to_string(aux.size()) +
                      " aux, the recorded circuit " + std::to_string(n_inputs_) + " and " + std::to_string(n_aux_));
  run(inputs.data(), aux.data(), a, b, c, pool);
}

synthesis pce_compact::evaluate(std::span<const bigint<4>> w, thread_pool& pool) const {
  if (w.size() != n_inputs_ + n_aux_)
    throw input_error("witness has " + std::to_string(w.size()) + " values, the recorded circuit " +
                      std::to_string(n_inputs_ + n_aux_));
  synthesis s;
  const std::size_t n = domain_size();
  s.a.resize(n);
  s.b.resize(n);
  s.c.resize(n);
  run(w.data(), w.data() + n_inputs_, s.a, s.b, s.c, pool);
  return s;
}

namespace {

// A witness value as the evaluator adds it: fr as is; a canonical integer read as a Montgomery form
// (value / R), which `finish` multiplies back by R once per row.
inline const fr& as_fr(const fr& v) { return v; }
inline fr as_fr(const bigint<4>& v) { return fr::from_mont(v); }
inline fr finish(const fr& acc, const fr*) { return acc; }
inline fr finish(const fr& acc, const bigint<4>*) { return acc * fr::from_mont(fr::R2); }

}  // namespace

template <class Value>
void pce_compact::run(const Value* in, const Value* ax, std::span<fr> a, std::span<fr> b, std::span<fr> c,
                      thread_pool& pool) const {
  const std::uint64_t n = domain_size();
  if (a.size() != n || b.size() != n || c.size() != n)
    throw std::invalid_argument("pce_compact::evaluate_into: a, b, c must hold the domain size");
  const fr* table = table_.data();
  const std::uint32_t n_in = std::uint32_t(n_inputs_);
  const std::uint32_t n_ax = std::uint32_t(n_aux_);
  const std::uint16_t n_co = std::uint16_t(table_.size());
  std::atomic<bool> out_of_range{false};
  // One row: the sum of its terms; +1 and -1 (indices 0 and 1) without a multiplication. A signal or
  // index out of range (a damaged file not opened with verify) counts as zero and is reported.
  auto row = [&](const matrix_view& m, std::uint64_t& k, std::uint64_t r) {
    fr acc = fr::zero();
    bool bad = false;
    for (const std::uint64_t end = k + m.lens[r]; k < end; ++k) {
      const std::uint32_t s = m.signals[k];
      const std::uint16_t ci = m.coeffs[k];
      const Value* w;
      if (s & pce_input_bit) {
        const std::uint32_t i = s & ~pce_input_bit;
        if (i >= n_in) {
          bad = true;
          continue;
        }
        w = in + i;
      } else {
        if (s >= n_ax) {
          bad = true;
          continue;
        }
        w = ax + s;
      }
      if (ci == 0) acc += as_fr(*w);
      else if (ci == 1) acc -= as_fr(*w);
      else if (ci < n_co) acc += table[ci] * as_fr(*w);
      else bad = true;
    }
    if (bad) out_of_range = true;
    return finish(acc, in);
  };
  const std::uint64_t blocks = blocks_of(n_constraints_);
  const std::uint64_t tail = n - n_constraints_;  // the input rows, then zeros
  const std::uint64_t tail_blocks = blocks_of(tail);
  pool.run(blocks + tail_blocks, [&](std::size_t j) {
    if (j < blocks) {
      std::uint64_t ka = a_.blocks[j], kb = b_.blocks[j];
      const std::uint64_t r0 = j * pce_block_rows, r1 = std::min<std::uint64_t>(r0 + pce_block_rows, n_constraints_);
      for (std::uint64_t r = r0; r < r1; ++r) {
        const fr x = row(a_, ka, r), y = row(b_, kb, r);
        a[r] = x;
        b[r] = y;
        c[r] = x * y;
      }
      return;
    }
    const std::uint64_t t0 = (j - blocks) * pce_block_rows, t1 = std::min<std::uint64_t>(t0 + pce_block_rows, tail);
    for (std::uint64_t t = t0; t < t1; ++t) {
      const std::uint64_t r = n_constraints_ + t;
      a[r] = t < n_inputs_ ? finish(as_fr(in[t]), in) : fr::zero();  // bellperson's input_i * 0 = 0
      b[r] = fr::zero();
      c[r] = fr::zero();
    }
  });
  if (out_of_range) throw input_error("compact evaluator: a signal or coefficient index out of range (damaged file)");
}

}  // namespace cuzk::zk::groth16
