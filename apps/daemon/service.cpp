#include "service.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <mutex>

#include "large_request.hpp"
#include "witness_spool.hpp"
#include "zk/error.hpp"

namespace cuzk::daemon {

namespace {

// The call's deadline: the request's timeout_ms (0: none) or the client's own deadline, whichever
// comes first.
std::chrono::steady_clock::time_point await_deadline(grpc::CallbackServerContext* ctx, std::uint64_t timeout_ms) {
  auto now = std::chrono::steady_clock::now();
  auto until = std::chrono::steady_clock::time_point::max();
  if (timeout_ms != 0) until = now + std::chrono::milliseconds(timeout_ms);
  auto client = ctx->deadline();
  if (client != std::chrono::system_clock::time_point::max()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(client - std::chrono::system_clock::now());
    until = std::min(until, now + std::max(left, std::chrono::milliseconds(0)));
  }
  return until;
}

// One await in flight: answered once, by the core (result, timeout, drain) or by the client's
// cancellation, whichever comes first; deletes itself when gRPC is done with it (OnDone).
// OnDone may run on a gRPC thread as soon as Finish is called from another thread (the
// completion thread's answer): nothing of this object, its mutex included, may be touched after
// such a Finish, so answer() lets go of the lock first. Inside the method handler (start_await)
// and inside OnCancel, gRPC does not run OnDone before they return.
class await_reactor final : public grpc::ServerUnaryReactor {
 public:
  await_reactor(core& c, pb::AwaitProofResponse* resp, grpc::ByteBuffer* raw) : core_(c), resp_(resp), raw_(raw) {}
  // Held while the waiter is registered: an answer from the completion thread waits until the
  // reactor knows its handle (an inline answer, on this thread, goes through: the lock is recursive).
  std::unique_lock<std::recursive_mutex> hold() { return std::unique_lock(mu_); }
  void answer(pb::AwaitProofResponse r) {
    std::unique_lock lock(mu_);
    if (finished_) return;
    finished_ = true;
    if (raw_) {  // Prove: the answer inside ProveResponse{result}, as the contract has it
      pb::ProveResponse wrapped;
      *wrapped.mutable_result() = std::move(r);
      *raw_ = to_byte_buffer(wrapped);
    }
    else *resp_ = std::move(r);
    lock.unlock();
    Finish(grpc::Status::OK);  // `this` may be gone from here on
  }
  void fail(const grpc::Status& st) {  // in the method handler
    finished_ = true;
    Finish(st);
  }
  void waiting(std::uint64_t handle) {  // called with hold(), in the method handler
    handle_ = handle;
    if (cancelled_ && !finished_ && core_.cancel_await(handle_)) {
      finished_ = true;
      Finish(grpc::Status::CANCELLED);
    }
  }
  void OnCancel() override {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    if (handle_ != 0 && !finished_ && core_.cancel_await(handle_)) {
      finished_ = true;
      Finish(grpc::Status::CANCELLED);
    }
  }
  void OnDone() override { delete this; }

 private:
  core& core_;
  pb::AwaitProofResponse* resp_;
  grpc::ByteBuffer* raw_;
  std::recursive_mutex mu_;
  std::uint64_t handle_ = 0;
  bool cancelled_ = false, finished_ = false;
};

}  // namespace

template <class F>
grpc::Status proving_service::guarded(grpc::ServerContextBase* ctx, const char* method, F&& body) {
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

template <class F>
proving_service::reactor* proving_service::answer_now(context* ctx, const char* method, F&& body) {
  auto* r = ctx->DefaultReactor();
  r->Finish(guarded(ctx, method, std::forward<F>(body)));
  return r;
}

void proving_service::parse_raw(const grpc::ByteBuffer* in, google::protobuf::Message& out, witness_spool& spool) {
  // gRPC hands the request as const, yet it is this call's own buffer, allocated mutable, and
  // read by nobody after this handler: emptying it lets its memory go as it is parsed.
  std::string why;
  if (!parse_large_request(*const_cast<grpc::ByteBuffer*>(in), out, max_message_bytes_, why, &spool))
    throw request_error(grpc::StatusCode::INVALID_ARGUMENT, "request: " + why);
}

proving_service::reactor* proving_service::SubmitProof(context* ctx, const grpc::ByteBuffer* req,
                                                       grpc::ByteBuffer* resp) {
  return answer_now(ctx, "SubmitProof", [&] {
    witness_spool spool(core_.incoming_dir());  // the witnesses go to files as they arrive
    pb::SubmitProofRequest r;
    parse_raw(req, r, spool);
    *resp = to_byte_buffer(core_.submit(r, &spool));
  });
}

grpc::ServerUnaryReactor* proving_service::start_await(grpc::CallbackServerContext* ctx, const char* method,
                                                       const std::string& job_id, std::uint64_t timeout_ms,
                                                       pb::AwaitProofResponse* resp, grpc::ByteBuffer* raw) {
  auto* reactor = new await_reactor(core_, resp, raw);
  auto held = reactor->hold();
  std::uint64_t handle = 0;
  auto st = guarded(ctx, method, [&] {
    handle = core_.await_async(job_id, await_deadline(ctx, timeout_ms),
                               [reactor](pb::AwaitProofResponse r) { reactor->answer(std::move(r)); });
  });
  if (!st.ok()) reactor->fail(st);
  else if (handle != 0) reactor->waiting(handle);
  held.unlock();
  return reactor;
}

grpc::ServerUnaryReactor* proving_service::AwaitProof(grpc::CallbackServerContext* ctx, const pb::AwaitProofRequest* req,
                                                      pb::AwaitProofResponse* resp) {
  return start_await(ctx, "AwaitProof", req->job_id(), req->timeout_ms(), resp);
}

grpc::ServerUnaryReactor* proving_service::Prove(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* req,
                                                 grpc::ByteBuffer* resp) {
  pb::SubmitProofResponse submitted;
  std::uint64_t timeout_ms = 0;
  auto st = guarded(ctx, "Prove", [&] {
    witness_spool spool(core_.incoming_dir());  // the witnesses go to files as they arrive
    pb::ProveRequest r;  // dropped once submitted: the witnesses are in the job's files by then
    parse_raw(req, r, spool);
    timeout_ms = r.timeout_ms();
    submitted = core_.submit(r.submit(), &spool);
  });
  if (!st.ok()) {
    auto* reactor = ctx->DefaultReactor();
    reactor->Finish(st);
    return reactor;
  }
  return start_await(ctx, "Prove", submitted.job_id(), timeout_ms, nullptr, resp);
}

proving_service::reactor* proving_service::CancelProof(context* ctx, const pb::CancelProofRequest* req,
                                                       pb::CancelProofResponse* resp) {
  return answer_now(ctx, "CancelProof", [&] { *resp = core_.cancel(req->job_id()); });
}

proving_service::reactor* proving_service::GetStatus(context* ctx, const pb::GetStatusRequest*,
                                                     pb::GetStatusResponse* resp) {
  return answer_now(ctx, "GetStatus", [&] { *resp = core_.status(); });
}

proving_service::reactor* proving_service::GetMetrics(context* ctx, const pb::GetMetricsRequest*,
                                                      pb::GetMetricsResponse* resp) {
  return answer_now(ctx, "GetMetrics", [&] { resp->set_prometheus_text(core_.prometheus_metrics()); });
}

proving_service::reactor* proving_service::PreloadSRS(context* ctx, const pb::PreloadSrsRequest* req,
                                                      pb::PreloadSrsResponse* resp) {
  return answer_now(ctx, "PreloadSRS", [&] { *resp = core_.preload(req->circuit_id()); });
}

proving_service::reactor* proving_service::EvictSRS(context* ctx, const pb::EvictSrsRequest* req,
                                                    pb::EvictSrsResponse* resp) {
  return answer_now(ctx, "EvictSRS", [&] { *resp = core_.evict(req->circuit_id()); });
}

proving_service::reactor* proving_service::Chaos(context* ctx, const pb::ChaosRequest* req, pb::ChaosResponse* resp) {
  return answer_now(ctx, "Chaos", [&] { *resp = core_.chaos(*req); });
}

}  // namespace cuzk::daemon
