// The gRPC service: translates cuzk.v1 calls into core calls and core errors into gRPC statuses.
// Nothing here touches engine state.
#pragma once

#include <string>

#include "core.hpp"
#include "witness_spool.hpp"
#include "cuzk/v1/proving.grpc.pb.h"
#include <grpcpp/generic/async_generic_service.h>

namespace cuzk::daemon {

// Every method is a callback method (gRPC's CallbackService): no thread is held per waiting
// client, and there is no synchronous thread pool whose idle threads exit (gRPC 1.51's sync server
// created and dropped a thread for bursts of calls, leaving its 8 MiB stack mapped until shutdown).
// AwaitProof and Prove answer through a reactor when the job finishes, its deadline passes, the
// daemon drains, or the client cancels (OnCancel withdraws the waiter). The others answer at once.
//
// SubmitProof and Prove carry the witnesses (up to max_message_bytes). gRPC reads a unary
// method's whole request before its handler runs, so a token checked there comes after the bytes
// are buffered: an unauthenticated peer could make the daemon hold 1 GiB a call. These two are
// therefore left out of the generated service (generic) and served by large_requests, a generic
// callback service whose calls start at the request's metadata: the token is checked first, and
// only then is the message read (a refused call never reads its body; the stream is reset). The
// message is parsed by parse_large_request (large_request.hpp) so that it is held once, not three
// times: its witnesses go straight from gRPC's slices to files (witness_spool.hpp).
class proving_service final
    : public pb::ProvingEngine::WithGenericMethod_SubmitProof<
          pb::ProvingEngine::WithGenericMethod_Prove<pb::ProvingEngine::CallbackService>> {
 public:
  proving_service(core& c, std::string token, std::uint64_t max_message_bytes)
      : core_(c), token_(std::move(token)), max_message_bytes_(max_message_bytes), large_(*this) {}

  using reactor = grpc::ServerUnaryReactor;
  using context = grpc::CallbackServerContext;
  reactor* AwaitProof(context*, const pb::AwaitProofRequest*, pb::AwaitProofResponse*) override;
  reactor* CancelProof(context*, const pb::CancelProofRequest*, pb::CancelProofResponse*) override;
  reactor* GetStatus(context*, const pb::GetStatusRequest*, pb::GetStatusResponse*) override;
  reactor* GetMetrics(context*, const pb::GetMetricsRequest*, pb::GetMetricsResponse*) override;
  reactor* PreloadSRS(context*, const pb::PreloadSrsRequest*, pb::PreloadSrsResponse*) override;
  reactor* EvictSRS(context*, const pb::EvictSrsRequest*, pb::EvictSrsResponse*) override;
  reactor* Chaos(context*, const pb::ChaosRequest*, pb::ChaosResponse*) override;

  // SubmitProof and Prove: register with ServerBuilder::RegisterCallbackGenericService.
  class large_requests final : public grpc::CallbackGenericService {
   public:
    explicit large_requests(proving_service& s) : s_(s) {}
    grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* ctx) override;

   private:
    proving_service& s_;
  };
  large_requests& large() { return large_; }

 private:
  friend class large_call;
  // The call's token, when the daemon has one: UNAUTHENTICATED unless "authorization" is
  // "Bearer TOKEN" (compared in constant time).
  grpc::Status authorize(grpc::ServerContextBase* ctx) const;
  template <class F>
  grpc::Status guarded(grpc::ServerContextBase* ctx, const char* method, F&& body);
  // A method answered at once: runs `body` guarded and finishes the default reactor.
  template <class F>
  reactor* answer_now(context* ctx, const char* method, F&& body);
  // A large request (SubmitProof, Prove), parsed, its witnesses streamed into `spool`; throws request_error
  // (INVALID_ARGUMENT) for bad bytes, (UNAVAILABLE) when a witness cannot be written.
  void parse_raw(const grpc::ByteBuffer* in, google::protobuf::Message& out, witness_spool& spool);

  core& core_;
  std::string token_;
  std::uint64_t max_message_bytes_;
  large_requests large_;
};

}  // namespace cuzk::daemon
