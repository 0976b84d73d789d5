#include "zk/cs/constraint_system.hpp"

#include <stdexcept>

namespace cuzk::zk::cs {

constraint_system::constraint_system(mode m) : mode_(m) { inputs_.push_back(fr::one()); }

variable constraint_system::alloc(const fr& value) {
  if (mode_ != mode::count) aux_.push_back(value);
  return variable::aux(num_aux_++);
}

variable constraint_system::alloc_input(const fr& value) {
  if (mode_ != mode::count) inputs_.push_back(value);
  return variable::input(num_inputs_++);
}

void constraint_system::enforce(linear_combination a, linear_combination b, linear_combination c) {
  ++num_constraints_;
  if (mode_ == mode::check) {
    if (!(eval(a) * eval(b) == eval(c)) && num_unsatisfied_++ == 0)
      first_unsatisfied_ = "constraint " + std::to_string(num_constraints_ - 1) + " (" + ns_ + ")";
    return;
  }
  if (mode_ != mode::record) return;
  if (scope_changed_) {
    scope_paths_.push_back(ns_);
    scope_changed_ = false;
  }
  constraints_.push_back({std::move(a), std::move(b), std::move(c), std::uint32_t(scope_paths_.size() - 1)});
}

void constraint_system::append(const constraint_system& part) {
  if (mode_ == mode::record || mode_ == mode::check || part.mode_ != mode_)
    throw std::logic_error("constraint_system::append: only between witness (or count) systems");
  if (mode_ == mode::witness) {
    inputs_.insert(inputs_.end(), part.inputs_.begin() + 1, part.inputs_.end());
    aux_.insert(aux_.end(), part.aux_.begin(), part.aux_.end());
  }
  num_inputs_ += part.num_inputs_ - 1;
  num_aux_ += part.num_aux_;
  num_constraints_ += part.num_constraints_;
}

void constraint_system::push_namespace(std::string_view name) {
  if (mode_ != mode::record && mode_ != mode::check) return;
  ns_lengths_.push_back(ns_.size());
  if (!ns_.empty()) ns_ += '/';
  ns_ += name;
  scope_changed_ = true;
}

void constraint_system::pop_namespace() {
  if (mode_ != mode::record && mode_ != mode::check) return;
  ns_.resize(ns_lengths_.back());
  ns_lengths_.pop_back();
  scope_changed_ = true;
}

const std::string& constraint_system::scope_of(std::uint64_t k) const {
  static const std::string none;
  if (k >= constraints_.size()) return none;
  return scope_paths_[constraints_[k].scope];
}

}  // namespace cuzk::zk::cs
