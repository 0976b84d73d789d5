// The gRPC service: translates cuzk.v1 calls into core calls and core errors into gRPC statuses.
// Nothing here touches engine state.
#pragma once

#include <string>

#include "core.hpp"
#include "witness_spool.hpp"
#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::daemon {

// Every method is a callback method (gRPC's CallbackService): no thread is held per waiting
// client, and there is no synchronous thread pool whose idle threads exit (gRPC 1.51's sync server
// created and dropped a thread for bursts of calls, leaving its 8 MiB stack mapped until shutdown).
// AwaitProof and Prove answer through a reactor when the job finishes, its deadline passes, the
// daemon drains, or the client cancels (OnCancel withdraws the waiter). The others answer at once.
//
// SubmitProof and Prove carry the witnesses: they are raw methods, parsed by
// parse_large_request (large_request.hpp) so that a large request is held once, not three times:
// its witnesses go straight from gRPC's slices to files (witness_spool.hpp).
class proving_service final
    : public pb::ProvingEngine::WithRawCallbackMethod_SubmitProof<
          pb::ProvingEngine::WithRawCallbackMethod_Prove<pb::ProvingEngine::CallbackService>> {
 public:
  proving_service(core& c, std::string token, std::uint64_t max_message_bytes)
      : core_(c), token_(std::move(token)), max_message_bytes_(max_message_bytes) {}

  using reactor = grpc::ServerUnaryReactor;
  using context = grpc::CallbackServerContext;
  reactor* SubmitProof(context*, const grpc::ByteBuffer*, grpc::ByteBuffer*) override;
  reactor* AwaitProof(context*, const pb::AwaitProofRequest*, pb::AwaitProofResponse*) override;
  reactor* Prove(context*, const grpc::ByteBuffer*, grpc::ByteBuffer*) override;
  reactor* CancelProof(context*, const pb::CancelProofRequest*, pb::CancelProofResponse*) override;
  reactor* GetStatus(context*, const pb::GetStatusRequest*, pb::GetStatusResponse*) override;
  reactor* GetMetrics(context*, const pb::GetMetricsRequest*, pb::GetMetricsResponse*) override;
  reactor* PreloadSRS(context*, const pb::PreloadSrsRequest*, pb::PreloadSrsResponse*) override;
  reactor* EvictSRS(context*, const pb::EvictSrsRequest*, pb::EvictSrsResponse*) override;
  reactor* Chaos(context*, const pb::ChaosRequest*, pb::ChaosResponse*) override;

 private:
  template <class F>
  grpc::Status guarded(grpc::ServerContextBase* ctx, const char* method, F&& body);
  // A method answered at once: runs `body` guarded and finishes the default reactor.
  template <class F>
  reactor* answer_now(context* ctx, const char* method, F&& body);
  // Registers the await and returns the reactor that answers it.
  // The answer goes to `resp`, or, for a raw method, encoded to `raw`.
  grpc::ServerUnaryReactor* start_await(grpc::CallbackServerContext* ctx, const char* method, const std::string& job_id,
                                        std::uint64_t timeout_ms, pb::AwaitProofResponse* resp,
                                        grpc::ByteBuffer* raw = nullptr);
  // A raw method's request, parsed, its witnesses streamed into `spool`; throws request_error
  // (INVALID_ARGUMENT) for bad bytes, (UNAVAILABLE) when a witness cannot be written.
  void parse_raw(const grpc::ByteBuffer* in, google::protobuf::Message& out, witness_spool& spool);

  core& core_;
  std::string token_;
  std::uint64_t max_message_bytes_;
};

}  // namespace cuzk::daemon
