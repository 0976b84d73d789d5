#include "zk/cs/constraint_system.hpp"

#include <stdexcept>

namespace cuzk::zk::cs {

constraint_system::constraint_system(mode m) : mode_(m) { inputs_.push_back(fr::one()); }

constraint_system::constraint_system(constraint_sink& sink) : mode_(mode::record), sink_(&sink) {}

constraint_system constraint_system::part_of(constraint_sink& sink, std::uint64_t inputs, std::uint64_t aux) {
  constraint_system cs(sink);
  cs.num_inputs_ = inputs;
  cs.num_aux_ = aux;
  return cs;
}

constraint_system constraint_system::witness_into(std::span<fr> inputs, std::span<fr> aux) {
  constraint_system cs(mode::witness);
  cs.in_out_ = inputs.data(), cs.in_cap_ = inputs.size();
  cs.aux_out_ = aux.data(), cs.aux_cap_ = aux.size();
  // Non-null even for empty slices: a null aux_out_ means "own vectors".
  static fr none;
  if (!cs.in_out_) cs.in_out_ = &none;
  if (!cs.aux_out_) cs.aux_out_ = &none;
  return cs;
}

constraint_system constraint_system::witness_reusing(values inputs, values aux) {
  constraint_system cs(mode::witness);
  inputs.clear();
  aux.clear();
  inputs.push_back(fr::one());
  cs.inputs_ = std::move(inputs);
  cs.aux_ = std::move(aux);
  return cs;
}

void constraint_system::release_values(values& inputs, values& aux) {
  inputs = std::move(inputs_);
  aux = std::move(aux_);
  inputs_ = values();
  aux_ = values();
}

variable constraint_system::alloc(const fr& value) {
  if (aux_out_) {
    if (num_aux_ >= aux_cap_) throw std::logic_error("constraint_system: more aux than its slice holds");
    aux_out_[num_aux_] = value;
  } else if (mode_ != mode::count && !sink_) {
    aux_.push_back(value);
  }
  return variable::aux(num_aux_++);
}

variable constraint_system::alloc_input(const fr& value) {
  if (in_out_) {
    if (num_inputs_ - 1 >= in_cap_) throw std::logic_error("constraint_system: more inputs than its slice holds");
    in_out_[num_inputs_ - 1] = value;
  } else if (mode_ != mode::count && !sink_) {
    inputs_.push_back(value);
  }
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
  if (sink_) {
    sink_->constraint(a, b, c);
    return;
  }
  if (scope_changed_) {
    scope_paths_.push_back(ns_);
    scope_changed_ = false;
  }
  constraints_.push_back({std::move(a), std::move(b), std::move(c), std::uint32_t(scope_paths_.size() - 1)});
}

void constraint_system::append(const constraint_system& part) {
  if (mode_ == mode::record || mode_ == mode::check || part.mode_ != mode_ || aux_out_ || part.aux_out_)
    throw std::logic_error("constraint_system::append: only between witness (or count) systems of their own vectors");
  if (mode_ == mode::witness) {
    inputs_.insert(inputs_.end(), part.inputs_.begin() + 1, part.inputs_.end());
    aux_.insert(aux_.end(), part.aux_.begin(), part.aux_.end());
  }
  num_inputs_ += part.num_inputs_ - 1;
  num_aux_ += part.num_aux_;
  num_constraints_ += part.num_constraints_;
}

constraint_system::slices constraint_system::extend(std::uint64_t inputs, std::uint64_t aux,
                                                     std::uint64_t constraints) {
  if ((mode_ == mode::record && !sink_) || mode_ == mode::check || aux_out_)
    throw std::logic_error("constraint_system::extend: only on a witness (or count) system's own vectors or a streaming record");
  slices out;
  if (mode_ == mode::witness) {
    const std::size_t i0 = inputs_.size(), a0 = aux_.size();
    inputs_.resize(i0 + inputs);  // unwritten: see values
    aux_.resize(a0 + aux);
    out.inputs = std::span<fr>(inputs_).subspan(i0);
    out.aux = std::span<fr>(aux_).subspan(a0);
  }
  num_inputs_ += inputs;
  num_aux_ += aux;
  num_constraints_ += constraints;
  return out;
}

void constraint_system::push_namespace(std::string_view name) {
  if ((mode_ != mode::record && mode_ != mode::check) || sink_) return;
  ns_lengths_.push_back(ns_.size());
  if (!ns_.empty()) ns_ += '/';
  ns_ += name;
  scope_changed_ = true;
}

void constraint_system::pop_namespace() {
  if ((mode_ != mode::record && mode_ != mode::check) || sink_) return;
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
