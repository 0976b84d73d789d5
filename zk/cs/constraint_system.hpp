// The constraint system gadgets synthesize into, in the order bellperson's would: ONE is input 0,
// then every alloc_input / alloc / enforce in call order. One gadget code path serves two modes:
//  - record: keeps every constraint (A, B, C) and the namespace path it was made under, so a
//    comparison can name the gadget of the first difference; this is the circuit's structure;
//  - witness: keeps only the values (enforce costs nothing);
//  - count: keeps nothing but the numbers of inputs, aux and constraints (a 32 GiB PoRep partition,
//    130M constraints, counted without storing them or its 4 GB of values);
//  - check: builds every constraint as record does and keeps the values as witness does, but
//    evaluates <A,w> * <B,w> == <C,w> as each constraint is enforced and then drops it: a witness is
//    checked against the R1CS with the memory of the values only (a 32 GiB partition's 130M
//    constraints never stored). The first failing constraint is named by index and namespace.
// Values are computed in both modes; a blank circuit (no witness, as parameter generation uses) simply
// carries zeros, which leaves the structure unchanged because no gadget branches on a value.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zk/cs/linear_combination.hpp"
#include "zk/util/uninitialized_allocator.hpp"

namespace cuzk::zk::cs {

enum class mode { record, witness, count, check };

// The values of a witness: resize() leaves the new elements unwritten (see uninitialized_allocator).
using values = std::vector<fr, zk::uninitialized_allocator<fr>>;

// Where a streaming record sends each constraint as it is enforced (see constraint_system's
// constructor): a recorder that writes the structure out without holding it.
class constraint_sink {
 public:
  virtual ~constraint_sink() = default;
  virtual void constraint(const linear_combination& a, const linear_combination& b, const linear_combination& c) = 0;
};

// A sink that can take a system's constraints in parts recorded on several threads: each part goes
// to its own buffer (part(), told the index in the system of the part's first constraint, which a
// sink that weighs rows by their index needs), filled by a streaming record of that part
// (constraint_system::part_of),
// and the buffers are appended in the system's order (append_part), which leaves the sink exactly as
// if every constraint had come to constraint() one after the other. A circuit whose constraints fall
// into blocks that need only earlier blocks' variables records on all cores this way
// (fil/circuit/stacked: one part per challenge's prefix, labeling and suffix).
class parallel_sink : public constraint_sink {
 public:
  // An empty buffer for one part whose first constraint is the system's `first_constraint`; filled
  // on any thread.
  virtual std::unique_ptr<constraint_sink> part(std::uint64_t first_constraint) = 0;
  // Appends a buffer from part() as if its constraints had come here in turn. One call at a time, in
  // the system's order of the parts (and after the constraints sent here before them).
  virtual void append_part(constraint_sink& part) = 0;
};

struct constraint {
  linear_combination a, b, c;
  std::uint32_t scope = 0;  // index into constraint_system::scope_paths()
};

class constraint_system {
 public:
  explicit constraint_system(mode m);
  // A streaming record: record mode whose constraints go to `sink` as they are enforced, none kept,
  // and no values kept (as count mode): the structure of a 32 GiB partition in the memory of one
  // gadget's linear combinations.
  explicit constraint_system(constraint_sink& sink);
  // A streaming record of one part of a bigger system: its counters start after the `inputs` inputs
  // (ONE included) and `aux` aux the system has before the part, so the part's variables get the
  // numbers they get in the whole system (see parallel_sink).
  static constraint_system part_of(constraint_sink& sink, std::uint64_t inputs, std::uint64_t aux);
  // The sink of a streaming record (nullptr otherwise).
  constraint_sink* sink() const { return sink_; }
  // A witness system that writes into preallocated slices instead of its own vectors: its k-th aux
  // into aux[k], its input k (k >= 1, after its ONE) into inputs[k - 1]. Allocating past either
  // throws std::logic_error. Its inputs() / aux() stay empty; value() reads the slices. This is how
  // a partition's parts are synthesized on threads straight into the partition's witness (extend()).
  static constraint_system witness_into(std::span<fr> inputs, std::span<fr> aux);
  // A witness system whose own value vectors are `inputs` and `aux`, emptied (their memory kept):
  // a synthesizer hands the same vectors to every partition (release_values() gives them back), so
  // a partition's values are written into pages that are already there.
  static constraint_system witness_reusing(values inputs, values aux);
  // Moves the value vectors out (witness mode); the system keeps no values afterwards.
  void release_values(values& inputs, values& aux);

  mode current_mode() const { return mode_; }
  variable alloc(const fr& value);
  variable alloc_input(const fr& value);
  void enforce(linear_combination a, linear_combination b, linear_combination c);
  // Whether constraints are kept (record mode). The hot bit gadgets build no linear combination when
  // not, and count the constraint with enforce_unrecorded() instead: the witness is the same, and
  // witness mode skips the allocations that dominated it.
  bool recording() const { return mode_ == mode::record || mode_ == mode::check; }
  void enforce_unrecorded() { ++num_constraints_; }
  // Witness and count modes: appends what `part` (a system of the same mode, synthesized on its own,
  // e.g. on another thread) allocated after its ONE, as if its gadgets had run here. Variables live
  // only in recorded constraints, so the values need no renumbering; record mode throws.
  void append(const constraint_system& part);
  // Witness and count modes: grows the system by `inputs` inputs, `aux` aux and `constraints`
  // constraints at once, as if gadgets had allocated them, and returns the new values' slices
  // (unwritten: the caller fills every element, e.g. with witness_into systems on threads; empty in
  // count mode). A streaming record grows the same way (empty slices) after its parts went to its
  // sink through append_part. Record (keeping constraints) and check modes throw.
  struct slices {
    std::span<fr> inputs, aux;
  };
  slices extend(std::uint64_t inputs, std::uint64_t aux, std::uint64_t constraints);

  // Namespaces only label constraints (bellperson's names never change the R1CS).
  void push_namespace(std::string_view name);
  void pop_namespace();
  class scope {
   public:
    scope(constraint_system& cs, std::string_view name) : cs_(cs) { cs_.push_namespace(name); }
    ~scope() { cs_.pop_namespace(); }
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;

   private:
    constraint_system& cs_;
  };

  fr value(variable v) const {
    if (aux_out_) return v.is_aux() ? aux_out_[v.index()] : v.index() == 0 ? fr::one() : in_out_[v.index() - 1];
    return v.is_aux() ? aux_[v.index()] : inputs_[v.index()];
  }
  fr eval(const linear_combination& lc) const { return lc.evaluate(inputs_, aux_); }
  const values& inputs() const { return inputs_; }
  const values& aux() const { return aux_; }
  std::uint64_t num_constraints() const { return num_constraints_; }
  std::uint64_t num_inputs() const { return num_inputs_; }
  std::uint64_t num_aux() const { return num_aux_; }
  const std::vector<constraint>& constraints() const { return constraints_; }
  const std::vector<std::string>& scope_paths() const { return scope_paths_; }
  // Check mode: the constraints that did not hold, and the first of them ("" when none): its index
  // and namespace path.
  std::uint64_t num_unsatisfied() const { return num_unsatisfied_; }
  const std::string& first_unsatisfied() const { return first_unsatisfied_; }
  // The namespace path of constraint k in record mode ("" in witness mode).
  const std::string& scope_of(std::uint64_t k) const;

 private:
  mode mode_;
  values inputs_, aux_;
  fr *in_out_ = nullptr, *aux_out_ = nullptr;  // witness_into: the slices, and their lengths
  std::uint64_t in_cap_ = 0, aux_cap_ = 0;
  constraint_sink* sink_ = nullptr;
  std::vector<constraint> constraints_;
  std::uint64_t num_constraints_ = 0, num_inputs_ = 1, num_aux_ = 0;
  std::vector<std::size_t> ns_lengths_;
  std::string ns_;
  std::vector<std::string> scope_paths_;
  bool scope_changed_ = true;
  std::uint64_t num_unsatisfied_ = 0;
  std::string first_unsatisfied_;
};

}  // namespace cuzk::zk::cs
