// Assembler: collects a job's partition proofs, VERIFIES each one before accepting it (an invalid
// proof is answered with proof_invalid and never released; the one exception is a proof made on a
// synthetic key in a job that asked for a synthetic bench, which never verifies and is passed
// through marked unverified: without that request it is refused), and answers the request that completes
// the job with the proofs in partition order and their 192-byte compressed forms concatenated.
// A cluster node's proof is checked against the statement this engine holds (assemble_request::
// statement): a node that proved another one (another job's partition, a bug, a wire fault) is
// answered proof_invalid, naming the statement, like an invalid proof.
// Results are keyed by (job, partition): a duplicate (a retried or re-sent partition) is dropped.
// Detached: a verification is a few pairings, too long for a scheduler thread.
#include <map>
#include <optional>
#include <set>

#include "actors/assembler.hpp"
#include "actors/synthesizer.hpp"
#include "caf/all.hpp"
#include "fil/partition.hpp"
#include "zk/error.hpp"
#include "zk/groth16/compressed_proof.hpp"
#include "zk/groth16/verifier.hpp"

namespace cuzk::actors {

namespace {

struct assembler_state {
  assembler_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  struct job {
    std::vector<std::optional<partition_output>> outputs;
    std::uint32_t have = 0;
  };
  std::map<job_id, job> jobs;
  std::set<job_id> closed;  // finished or forgotten: late duplicates are dropped
};

using assembler_ptr = assembler_actor::stateful_pointer<assembler_state>;

// The public inputs of the partition a node was sent, computed here: a Filecoin partition's from
// its job's input (what Filecoin's verifier computes), a witness's from its wires 1 .. n_public.
// Throws zk::input_error naming the field.
std::vector<zk::bigint<4>> statement_inputs(const witness_source& s, const zk::groth16::verifying_key& vk) {
  std::vector<zk::bigint<4>> out;
  if (s.fil.ptr) {
    const auto& in = *s.fil.ptr;
    const auto c = fil::resolve_circuit(in.kind, in.registered_proof);
    const auto c1 = c.seal ? porep_c1(c, s.fil.ptr) : nullptr;
    for (const auto& x : fil::verifier_public_inputs(c, in, s.fil.partition, c1.get())) out.push_back(x.to_canonical());
  } else if (s.data.ptr) {
    const auto& w = s.data.ptr->values;
    if (w.size() < 1 + vk.n_public())
      throw zk::input_error("witness: " + std::to_string(w.size()) + " values, the key has " +
                            std::to_string(vk.n_public()) + " public inputs");
    out.assign(w.begin() + 1, w.begin() + 1 + std::ptrdiff_t(vk.n_public()));
  }
  return out;
}

assembler_actor::behavior_type assembler(assembler_ptr self) {
  return {
      [self](assemble_request& req) -> caf::result<assembly_ack> {
        auto& st = self->state;
        assembly_ack ack;
        ack.task = req.task;
        if (st.closed.count(req.task.job)) return ack;
        if (req.n_partitions == 0 || req.task.index >= req.n_partitions)
          return make_error(errc::invalid_request, "assembler: partition index out of range");
        auto& j = st.jobs[req.task.job];
        if (j.outputs.empty()) j.outputs.resize(req.n_partitions);
        if (j.outputs.size() != req.n_partitions)
          return make_error(errc::invalid_request, "assembler: partition count changed");
        if (j.outputs[req.task.index]) return ack;  // duplicate
        if (req.synthetic_key && !req.synthetic_bench)
          return make_error(errc::proof_invalid, "partition " + std::to_string(req.task.index) +
                                                     ": made on a synthetic key (NOT A SETUP): never released");
        if (!req.vk.ptr) return make_error(errc::worker_failed, "assembler: no verifying key");
        const auto& vk = *req.vk.ptr;
        const bool from_node = req.statement.fil.ptr || req.statement.data.ptr;
        if (from_node) {
          try {
            req.output.publics = statement_inputs(req.statement, vk);
          } catch (const zk::input_error& e) {
            return make_error(errc::bad_input, e.what());
          } catch (const std::exception& e) {
            return make_error(errc::worker_failed, std::string("assembler: the partition's public inputs: ") + e.what());
          }
        }
        if (!req.synthetic_key && !zk::groth16::verify(vk, req.output.publics, req.output.proof))
          return make_error(errc::proof_invalid,
                            "partition " + std::to_string(req.task.index) +
                                (from_node ? " proof does not verify against the partition's public inputs (computed "
                                             "here from the job's input): discarded"
                                           : " proof does not verify: discarded"));
        j.outputs[req.task.index] = std::move(req.output);
        if (++j.have < j.outputs.size()) return ack;
        ack.complete = true;
        for (auto& o : j.outputs) {
          auto bytes = zk::groth16::to_compressed(o->proof);
          ack.compressed.insert(ack.compressed.end(), bytes.begin(), bytes.end());
          ack.partitions.push_back(std::move(*o));
        }
        st.jobs.erase(req.task.job);
        st.closed.insert(req.task.job);
        return ack;
      },
      [self](forget_atom, job_id job) {
        self->state.jobs.erase(job);
        self->state.closed.insert(job);
      },
  };
}

}  // namespace

assembler_actor spawn_assembler(caf::actor_system& sys) {
  return sys.spawn<caf::detached>(assembler);
}

}  // namespace cuzk::actors
