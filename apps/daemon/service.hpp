// The gRPC service: translates cuzk.v1 calls into core calls and core errors into gRPC statuses.
// Nothing here touches engine state.
#pragma once

#include <string>

#include "core.hpp"
#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::daemon {

class proving_service final : public pb::ProvingEngine::Service {
 public:
  proving_service(core& c, std::string token) : core_(c), token_(std::move(token)) {}

  grpc::Status SubmitProof(grpc::ServerContext*, const pb::SubmitProofRequest*, pb::SubmitProofResponse*) override;
  grpc::Status AwaitProof(grpc::ServerContext*, const pb::AwaitProofRequest*, pb::AwaitProofResponse*) override;
  grpc::Status Prove(grpc::ServerContext*, const pb::ProveRequest*, pb::AwaitProofResponse*) override;
  grpc::Status CancelProof(grpc::ServerContext*, const pb::CancelProofRequest*, pb::CancelProofResponse*) override;
  grpc::Status GetStatus(grpc::ServerContext*, const pb::GetStatusRequest*, pb::GetStatusResponse*) override;
  grpc::Status GetMetrics(grpc::ServerContext*, const pb::GetMetricsRequest*, pb::GetMetricsResponse*) override;
  grpc::Status PreloadKey(grpc::ServerContext*, const pb::PreloadKeyRequest*, pb::PreloadKeyResponse*) override;
  grpc::Status EvictKey(grpc::ServerContext*, const pb::EvictKeyRequest*, pb::EvictKeyResponse*) override;
  grpc::Status Chaos(grpc::ServerContext*, const pb::ChaosRequest*, pb::ChaosResponse*) override;

 private:
  template <class F>
  grpc::Status guarded(grpc::ServerContext* ctx, const char* method, F&& body);

  core& core_;
  std::string token_;
};

}  // namespace cuzk::daemon
