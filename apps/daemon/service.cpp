#include "service.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

#include "zk/error.hpp"

namespace cuzk::daemon {

namespace {
// A client that waits forever should still notice a daemon that went away: long awaits are served
// in slices of this length, re-checking the call's own deadline and cancellation in between.
constexpr auto kAwaitSlice = std::chrono::milliseconds(1000);

std::chrono::milliseconds await_budget(grpc::ServerContext* ctx, std::uint64_t timeout_ms) {
  auto budget = timeout_ms == 0 ? std::chrono::milliseconds::max() : std::chrono::milliseconds(timeout_ms);
  auto deadline = ctx->deadline();
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::system_clock::now());
  if (deadline != std::chrono::system_clock::time_point::max() && left < budget) budget = left;
  return budget;
}
}  // namespace

template <class F>
grpc::Status proving_service::guarded(grpc::ServerContext* ctx, const char* method, F&& body) {
  if (!token_.empty()) {
    auto md = ctx->client_metadata();
    auto it = md.find("authorization");
    if (it == md.end() || std::string(it->second.data(), it->second.size()) != "Bearer " + token_)
      return {grpc::StatusCode::UNAUTHENTICATED, "authorization: missing or wrong token (send 'Bearer TOKEN')"};
  }
  try {
    body();
    return grpc::Status::OK;
  } catch (const request_error& e) {
    spdlog::info("{}: refused: {}", method, e.what());
    return {static_cast<grpc::StatusCode>(e.code), e.what()};
  } catch (const zk::input_error& e) {
    spdlog::info("{}: refused: {}", method, e.what());
    return {grpc::StatusCode::INVALID_ARGUMENT, e.what()};
  } catch (const std::exception& e) {
    spdlog::error("{}: internal error: {}", method, e.what());
    return {grpc::StatusCode::INTERNAL, std::string("internal error: ") + e.what()};
  }
}

grpc::Status proving_service::SubmitProof(grpc::ServerContext* ctx, const pb::SubmitProofRequest* req,
                                          pb::SubmitProofResponse* resp) {
  return guarded(ctx, "SubmitProof", [&] { *resp = core_.submit(*req); });
}

grpc::Status proving_service::AwaitProof(grpc::ServerContext* ctx, const pb::AwaitProofRequest* req,
                                         pb::AwaitProofResponse* resp) {
  return guarded(ctx, "AwaitProof", [&] {
    auto budget = await_budget(ctx, req->timeout_ms());
    auto until = std::chrono::steady_clock::now() + std::min(budget, std::chrono::milliseconds(std::chrono::hours(24 * 365)));
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      *resp = core_.await(req->job_id(), std::max(std::chrono::milliseconds(0), std::min(left, kAwaitSlice)));
      if (resp->status() != pb::AwaitProofResponse::TIMEOUT || ctx->IsCancelled() ||
          std::chrono::steady_clock::now() >= until || resp->stage() == "daemon shutting down")
        return;
    }
  });
}

grpc::Status proving_service::Prove(grpc::ServerContext* ctx, const pb::ProveRequest* req, pb::AwaitProofResponse* resp) {
  pb::SubmitProofResponse submitted;
  auto st = guarded(ctx, "Prove", [&] { submitted = core_.submit(req->submit()); });
  if (!st.ok()) return st;
  pb::AwaitProofRequest a;
  a.set_job_id(submitted.job_id());
  a.set_timeout_ms(req->timeout_ms());
  return AwaitProof(ctx, &a, resp);
}

grpc::Status proving_service::CancelProof(grpc::ServerContext* ctx, const pb::CancelProofRequest* req,
                                          pb::CancelProofResponse* resp) {
  return guarded(ctx, "CancelProof", [&] { *resp = core_.cancel(req->job_id()); });
}

grpc::Status proving_service::GetStatus(grpc::ServerContext* ctx, const pb::GetStatusRequest*, pb::GetStatusResponse* resp) {
  return guarded(ctx, "GetStatus", [&] { *resp = core_.status(); });
}

grpc::Status proving_service::GetMetrics(grpc::ServerContext* ctx, const pb::GetMetricsRequest*, pb::GetMetricsResponse* resp) {
  return guarded(ctx, "GetMetrics", [&] { resp->set_prometheus_text(core_.prometheus_metrics()); });
}

grpc::Status proving_service::PreloadKey(grpc::ServerContext* ctx, const pb::PreloadKeyRequest* req,
                                         pb::PreloadKeyResponse* resp) {
  return guarded(ctx, "PreloadKey", [&] { *resp = core_.preload(req->circuit()); });
}

grpc::Status proving_service::EvictKey(grpc::ServerContext* ctx, const pb::EvictKeyRequest* req, pb::EvictKeyResponse* resp) {
  return guarded(ctx, "EvictKey", [&] { *resp = core_.evict(req->circuit()); });
}

grpc::Status proving_service::Chaos(grpc::ServerContext* ctx, const pb::ChaosRequest* req, pb::ChaosResponse* resp) {
  return guarded(ctx, "Chaos", [&] { *resp = core_.chaos(*req); });
}

}  // namespace cuzk::daemon
