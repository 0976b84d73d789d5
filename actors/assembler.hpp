// The assembler (actors/assembler.cpp): verifies each partition proof (a cluster node's against the
// public inputs it computes from the job's input), collects a job's partitions in order and answers
// with the job's proof once all are in.
#pragma once

#include <cstdint>
#include <vector>

#include "actors/settings.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"
#include "messages/common.hpp"

namespace cuzk::msg {

struct assemble_request {
  task_ref task;
  std::uint32_t n_partitions = 0;
  verifier_handle vk;
  partition_output output;
  // The proof was made on a synthetic key (NOT A SETUP: it never verifies). Accepted unverified only
  // when the job is a synthetic bench; refused (proof_invalid) otherwise.
  bool synthetic_key = false, synthetic_bench = false;
  // A cluster node's proof: the partition's input as this engine holds it (a Filecoin job's input
  // and partition, or the witness sent). The proof is verified against the public inputs computed
  // here from it (fil::verifier_public_inputs; a witness's wires 1 .. n_public), never against any
  // the node would claim, and output.publics becomes them. Empty: a local proof, whose publics come
  // from this engine's own witness.
  witness_source statement;
  bool operator==(const assemble_request&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, assemble_request& x) {
  return f(caf::meta::type_name("assemble_request"), x.task, x.n_partitions, x.vk, x.output,
           x.synthetic_key, x.synthetic_bench, x.statement);
}

struct assembly_ack {
  task_ref task;
  bool complete = false;                     // all partitions verified: the job's proof follows
  std::vector<partition_output> partitions;  // when complete
  std::vector<std::uint8_t> compressed;      // when complete: 192 bytes per partition
  bool operator==(const assembly_ack&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, assembly_ack& x) {
  return f(caf::meta::type_name("assembly_ack"), x.task, x.complete, x.partitions, x.compressed);
}

using assembler_actor = caf::typed_actor<                         //
    caf::replies_to<assemble_request>::with<assembly_ack>,        //
    caf::reacts_to<forget_atom, job_id>>;

}  // namespace cuzk::msg

namespace cuzk::actors {

assembler_actor spawn_assembler(caf::actor_system& sys);

}  // namespace cuzk::actors
