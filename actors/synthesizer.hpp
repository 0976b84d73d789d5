// A synthesizer (actors/synthesizer.cpp), one of a pool: a partition's witness (loaded, given, or
// computed from Filecoin vanilla proofs) and its a, b, c.
#pragma once

#include <cstdint>

#include "actors/settings.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"
#include "messages/common.hpp"

namespace cuzk::msg {

struct synth_request {
  task_ref task;
  key_handle key;
  witness_source witness;
  // The witness only, no a, b, c (a Filecoin key's partition for devices that evaluate them; the
  // synthesis handle then holds empty vectors). Ignored for a key without a compact evaluator.
  bool witness_only = false;
  // The rank of the synthesis' pool work (zk/util/pool_rank.hpp; 0: unranked, first).
  std::uint64_t pool_rank = 0;
  bool operator==(const synth_request&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, synth_request& x) {
  return f(caf::meta::type_name("synth_request"), x.task, x.key, x.witness, x.witness_only, x.pool_rank);
}

struct synth_result {
  task_ref task;
  synthesis_handle synthesis;
  witness_handle witness;  // loaded from the source's path when it named a file
  std::uint64_t elapsed_us = 0;
  // Its stages in order ("witness", "a/b/c", ...) and their milliseconds.
  std::vector<std::string> stage_names;
  std::vector<double> stage_ms;
  bool operator==(const synth_result&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, synth_result& x) {
  return f(caf::meta::type_name("synth_result"), x.task, x.synthesis, x.witness, x.elapsed_us,
           x.stage_names, x.stage_ms);
}

using synthesizer_actor = caf::typed_actor<caf::replies_to<synth_request>::with<synth_result>>;

}  // namespace cuzk::msg

namespace cuzk::fil {
struct c1_output;
struct circuit_ref;
}

namespace cuzk::actors {

// A PoRep job's C1 output, already read (and checked) when the job was submitted: this process's
// synthesizers take it instead of reading it again (kept while the job's input lives).
void share_porep_c1(const std::shared_ptr<const fil::job_input>& in, std::shared_ptr<const fil::c1_output> c1);
// The job's C1 output: the one shared, else read (and checked) now and kept for the job's other
// askers. Throws zk::input_error naming the field.
std::shared_ptr<const fil::c1_output> porep_c1(const fil::circuit_ref& c, const std::shared_ptr<const fil::job_input>& in);
// The input is going: its parsed C1 goes with it now, not at the next job's lookup.
void forget_porep_c1(const fil::job_input* in);

// `threads`: the synthesizer's own pool for the witness and a, b, c (0: the process pool, shared).
synthesizer_actor spawn_synthesizer(caf::actor_system& sys, std::uint32_t slot, unsigned threads,
                                    fault_settings faults, std::uint64_t generation);

}  // namespace cuzk::actors
