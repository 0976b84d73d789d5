// Staging a partition's inputs, shared by the stager actor and the device actor (which stages by
// itself when the scheduler sends it a synthesis instead of a staged handle).
#pragma once

#include <memory>

#include "messages/types.hpp"
#include "zk/groth16/prover.hpp"

namespace cuzk::actors {

// The synthesis buffers become the backend's: taken over when this is the last handle (the
// normal case: the scheduler hands its handle over), copied otherwise.
inline zk::groth16::synthesis take_synthesis(msg::synthesis_handle& h) {
  auto p = std::move(h.ptr);
  h.reservation.ptr.reset();
  if (p.use_count() == 1) return std::move(const_cast<zk::groth16::synthesis&>(*p));
  return *p;
}

// Checks the inputs against the key, then stages them with `place` (a stager's or a backend's
// stage function). The handle keeps the witness alive: host staging refers to it in place. The
// host-budget grant of the synthesis goes with the buffers: kept while host staging holds them,
// released as soon as a device has its own copy.
template <class Place>
msg::staged_handle stage_partition(const msg::key_handle& key, msg::synthesis_handle& syn,
                                   const msg::witness_handle& witness, Place&& place) {
  if (!key.ptr || !key.ptr->zkey || !syn.ptr || !witness.ptr)
    throw std::runtime_error("staging: request without key, synthesis or witness");
  zk::groth16::check_inputs(*key.ptr->zkey, *syn.ptr, *witness.ptr);
  auto w = witness.ptr;
  auto host_grant = syn.reservation.ptr;
  std::unique_ptr<zk::groth16::staged_inputs> in = place(take_synthesis(syn), std::span(w->values));
  if (in->device_bytes() > 0) host_grant.reset();
  msg::staged_handle h;
  h.ptr = std::shared_ptr<zk::groth16::staged_inputs>(
      in.release(), [w, host_grant](zk::groth16::staged_inputs* p) { delete p; });
  return h;
}

}  // namespace cuzk::actors
