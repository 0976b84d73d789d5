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
#include <string>
#include <string_view>
#include <vector>

#include "zk/cs/linear_combination.hpp"

namespace cuzk::zk::cs {

enum class mode { record, witness, count, check };

struct constraint {
  linear_combination a, b, c;
  std::uint32_t scope = 0;  // index into constraint_system::scope_paths()
};

class constraint_system {
 public:
  explicit constraint_system(mode m);

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

  fr value(variable v) const { return v.is_aux() ? aux_[v.index()] : inputs_[v.index()]; }
  fr eval(const linear_combination& lc) const { return lc.evaluate(inputs_, aux_); }
  const std::vector<fr>& inputs() const { return inputs_; }
  const std::vector<fr>& aux() const { return aux_; }
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
  std::vector<fr> inputs_, aux_;
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
