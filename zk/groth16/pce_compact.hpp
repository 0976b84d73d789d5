// The compact recorded evaluator: a circuit's A and B matrices in a form small enough for a 32 GiB
// PoRep partition (130M constraints, ~720M non-zeros), recorded once per circuit shape into a cache
// file, mapped on load, and evaluated as a = A·w, b = B·w, c = a∘b on all cores.
//
// The trick is that PoRep's coefficients are few: ±1, powers of two and the constants of Poseidon
// and SHA-256. An entry is a u32 signal (aux j as j, input i as 2^31 | i: no renumbering once the
// number of inputs is known) and a u16 index into a table of distinct coefficients whose first two
// entries are +1 and -1 (added or subtracted, no multiplication). Rows are u16 lengths, with the entry
// offset of every block of rows stored so that blocks are evaluated in parallel. Per non-zero that is
// 6 bytes against csr_matrix's 36 (pce.hpp). Layout: docs/formats.md "The compact constraint
// evaluator".
//
// Recording streams: pce_recorder is a constraint_sink, so a streaming constraint_system hands it each
// constraint as the gadget enforces it and nothing is held but the output buffers; the sections go
// to temporary files next to the target (named by process id and random: two recorders of one file
// do not mix; created exclusively, never through a planted name or link) and are assembled at
// finish(), digested, then renamed over the target: a reader never sees half a file, and open()
// refuses a file whose bytes are not those recorded.
//
// The rows past the circuit's constraints are bellperson's `input_i * 0 = 0` (a = input i), as
// zk/groth16/bellperson_key.hpp describes; a, b, c are zero beyond them up to the domain size.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "zk/cs/constraint_system.hpp"
#include "zk/groth16/backend.hpp"
#include "zk/io/binfile.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::groth16 {

using namespace cuzk::zk::bls12_381;

inline constexpr std::uint32_t pce_input_bit = 0x80000000u;  // signal of input i: pce_input_bit | i
inline constexpr std::uint32_t pce_block_rows = 4096;

class pce_part;

// Records the constraints it is given into `path` (see the header comment). `key` names the circuit's
// shape (at most 127 bytes); a reader asks for the same key.
//
// On several threads (cs::parallel_sink): each part's rows go to a pce_part buffer that encodes them
// as the file does but with coefficient indices into the part's own table; append_part then adds the
// part's rows in order, mapping its table into the file's (a coefficient is numbered when first met
// in the file's row order, A row before B row, whichever thread met it first), and the density
// bitmaps and block offsets come from the appended rows. constraint() itself goes through the same
// buffer (appended every few thousand rows), so one thread and many write the same bytes.
class pce_recorder : public cs::parallel_sink {
 public:
  pce_recorder(std::string path, std::string key);
  ~pce_recorder() override;  // removes the temporary files when finish() was not reached
  pce_recorder(const pce_recorder&) = delete;
  pce_recorder& operator=(const pce_recorder&) = delete;

  void constraint(const cs::linear_combination& a, const cs::linear_combination& b,
                  const cs::linear_combination& c) override;
  std::unique_ptr<cs::constraint_sink> part(std::uint64_t first_constraint) override;
  void append_part(cs::constraint_sink& part) override;  // a part() of this recorder
  // Writes the file for a system of `n_inputs` inputs (ONE included) and `n_aux` aux. Throws
  // std::runtime_error on an I/O failure, std::length_error when the circuit does not fit the form
  // (more than 65,534 distinct coefficients, a row of more than 65,535 terms, 2^31 variables).
  void finish(std::uint64_t n_inputs, std::uint64_t n_aux);

  std::uint64_t constraints() const;

 private:
  struct matrix_stream {
    std::FILE *lens = nullptr, *signals = nullptr, *coeffs = nullptr;
    std::vector<std::uint64_t> blocks;  // entry offset of every pce_block_rows-th row
    std::uint64_t entries = 0;
  };
  void flush_own();
  std::uint16_t coeff_index(const fr& c);

  std::string path_, key_, tmp_;  // tmp_: PATH.tmp.PID.RANDOM, the prefix of this recorder's temporary files
  matrix_stream a_, b_;
  std::uint64_t rows_ = 0;
  std::unique_ptr<pce_part> own_;  // constraint()'s rows not yet appended
  std::vector<fr> table_;
  struct limbs_hash {
    std::size_t operator()(const std::array<std::uint64_t, 4>& l) const {
      return std::size_t(l[0] * 0x9e3779b97f4a7c15ull ^ l[1] ^ (l[2] << 1) ^ (l[3] << 2));
    }
  };
  std::unordered_map<std::array<std::uint64_t, 4>, std::uint16_t, limbs_hash> index_;  // Montgomery limbs -> index
  std::vector<std::uint64_t> dens_a_aux_, dens_b_aux_, dens_b_in_;  // bitmaps: aux in A, aux / inputs in B
  std::vector<std::uint16_t> remap_;  // append_part's scratch: the part's coefficient indices -> the file's
  bool finished_ = false;
  friend class pce_part;
};

// A recorded file, mapped. Evaluation reads it in place (the pages come in as they are used, or at
// once with `populate`).
class pce_compact {
 public:
  // Throws input_error naming the file and the field: not this format, another version or key, a
  // size that does not match its header, a signal or coefficient index out of range (checked at
  // open on the blocks and lengths; signals and indices per entry when `verify` is set).
  static pce_compact open(const std::string& path, const std::string& key, bool populate = false, bool verify = false);
  // The key a recorded file was made for (its header), without mapping the rest. Throws input_error
  // naming the file when it is not this format.
  static std::string stored_key(const std::string& path);

  std::uint64_t n_inputs() const { return n_inputs_; }
  std::uint64_t n_aux() const { return n_aux_; }
  std::uint64_t n_constraints() const { return n_constraints_; }
  std::uint64_t entries() const { return a_.entries + b_.entries; }
  std::size_t coefficients() const { return table_.size(); }
  std::uint64_t file_bytes() const { return file_->bytes().size(); }
  // Whether the mapped bytes are still those recorded: false when the file shrank under the mapping
  // (its reads got zeros: io::guard_mapped_files) or a byte changed since (the digest, read again:
  // for a failure's diagnosis, not for every evaluation). The mapping's SIGBUS state alone:
  // damaged().
  bool intact() const;
  // Known damaged without reading it again: its reads got zeros, or intact() found a change.
  bool damaged() const { return !file_ || file_->damaged() || changed_->load(); }
  // bellperson's domain: the smallest 2^k >= constraints + inputs.
  std::uint64_t domain_size() const;
  // Density (bellperson): whether aux j appears in some A term, aux j / input i in some B term.
  bool aux_in_a(std::uint64_t j) const { return bit(dens_a_aux_, j); }
  bool aux_in_b(std::uint64_t j) const { return bit(dens_b_aux_, j); }
  bool input_in_b(std::uint64_t i) const { return bit(dens_b_in_, i); }

  // a, b, c over the domain from the values of a constraint system (Montgomery fr, as
  // constraint_system::inputs() / aux() hold them). Throws input_error on a length mismatch.
  synthesis evaluate(std::span<const fr> inputs, std::span<const fr> aux, thread_pool& pool = default_pool()) const;
  // Into caller-provided vectors of domain_size() elements each (no zeroing pass: every element is
  // written, the tail by the threads too).
  void evaluate_into(std::span<const fr> inputs, std::span<const fr> aux, std::span<fr> a, std::span<fr> b,
                     std::span<fr> c, thread_pool& pool = default_pool()) const;
  // The same from a witness file's values (canonical integers, inputs then aux, as io::witness and
  // constraint_evaluator take them): each read as a Montgomery form (the value / R), each row's sum
  // multiplied by R once, so no conversion pass over the witness.
  synthesis evaluate(std::span<const bigint<4>> witness, thread_pool& pool = default_pool()) const;

  // One matrix's sections as mapped (row lengths, the entry offset of every pce_block_rows-th row,
  // signals, coefficient indices): what a device copy of the evaluator uploads (gpu/src/compact_evaluator.cuh).
  struct matrix_view {
    const std::uint16_t* lens = nullptr;
    const std::uint64_t* blocks = nullptr;
    const std::uint32_t* signals = nullptr;
    const std::uint16_t* coeffs = nullptr;
    std::uint64_t entries = 0;
  };
  const matrix_view& matrix_a() const { return a_; }
  const matrix_view& matrix_b() const { return b_; }
  // The distinct coefficients, Montgomery form; 0 and 1 are +1 and -1.
  std::span<const fr> table() const { return table_; }

 private:
  static bool bit(const std::uint64_t* words, std::uint64_t i) { return (words[i >> 6] >> (i & 63)) & 1; }
  template <class Value>
  void run(const Value* inputs, const Value* aux, std::span<fr> a, std::span<fr> b, std::span<fr> c,
           thread_pool& pool) const;

  std::shared_ptr<const io::file_bytes> file_;
  std::shared_ptr<std::atomic<bool>> changed_ = std::make_shared<std::atomic<bool>>(false);  // intact() said no
  std::uint64_t n_inputs_ = 0, n_aux_ = 0, n_constraints_ = 0;
  std::vector<fr> table_;
  matrix_view a_, b_;
  const std::uint64_t *dens_a_aux_ = nullptr, *dens_b_aux_ = nullptr, *dens_b_in_ = nullptr;
};

}  // namespace cuzk::zk::groth16
