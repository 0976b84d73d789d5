#include "service.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <mutex>

#include "large_request.hpp"
#include "witness_spool.hpp"
#include "zk/error.hpp"
#include "zk/io/sha256.hpp"

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

// How a reactor ends with its answer: a unary one finishes (the response object is gRPC's), a
// generic one (SubmitProof, Prove: large_call) writes the encoded answer and finishes.
void finish_ok(grpc::ServerUnaryReactor& r, grpc::ByteBuffer*) { r.Finish(grpc::Status::OK); }
void finish_ok(grpc::ServerGenericBidiReactor& r, grpc::ByteBuffer* out) {
  r.StartWriteAndFinish(out, grpc::WriteOptions(), grpc::Status::OK);
}

// One await in flight: answered once, by the core (result, timeout, drain) or by the client's
// cancellation, whichever comes first; deletes itself when gRPC is done with it (OnDone).
// OnDone may run on a gRPC thread as soon as Finish is called from another thread (the
// completion thread's answer): nothing of this object, its mutex included, may be touched after
// such a Finish, so answer() lets go of the lock first. Inside the method handler (start_await)
// and inside OnCancel, gRPC does not run OnDone before they return.
// Base: ServerUnaryReactor (AwaitProof: the answer goes to `resp`) or ServerGenericBidiReactor
// (Prove: the answer is written as ProveResponse{result}).
template <class Base>
class await_reactor : public Base {
 public:
  explicit await_reactor(core& c, pb::AwaitProofResponse* resp = nullptr) : core_(c), resp_(resp) {}
  // Held while the waiter is registered: an answer from the completion thread waits until the
  // reactor knows its handle (an inline answer, on this thread, goes through: the lock is recursive).
  std::unique_lock<std::recursive_mutex> hold() { return std::unique_lock(mu_); }
  void answer(pb::AwaitProofResponse r) {
    std::unique_lock lock(mu_);
    if (finished_) return;
    finished_ = true;
    if (!resp_) {  // Prove: the answer inside ProveResponse{result}, as the contract has it
      pb::ProveResponse wrapped;
      *wrapped.mutable_result() = std::move(r);
      out_ = to_byte_buffer(wrapped);
    } else {
      *resp_ = std::move(r);
    }
    lock.unlock();
    finish_ok(*this, &out_);  // `this` may be gone from here on
  }
  void fail(const grpc::Status& st) {  // in the method handler
    finished_ = true;
    this->Finish(st);
  }
  void waiting(std::uint64_t handle) {  // called with hold(), in the method handler
    handle_ = handle;
    if (cancelled_ && !finished_ && core_.cancel_await(handle_)) {
      finished_ = true;
      this->Finish(grpc::Status::CANCELLED);
    }
  }
  void OnCancel() override {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    if (handle_ != 0 && !finished_ && core_.cancel_await(handle_)) {
      finished_ = true;
      this->Finish(grpc::Status::CANCELLED);
    }
  }
  void OnDone() override { delete this; }

 protected:
  core& core_;
  pb::AwaitProofResponse* resp_;
  grpc::ByteBuffer out_;
  std::recursive_mutex mu_;
  std::uint64_t handle_ = 0;
  bool cancelled_ = false, finished_ = false;
};

// Registers `r`'s await of `job_id` (until `deadline`), answered by the core; a refusal (unknown
// job) finishes it with that status.
template <class Reactor, class Guard>
void start_await(core& c, Reactor* r, const std::string& job_id, std::chrono::steady_clock::time_point deadline,
                 Guard&& guarded) {
  auto held = r->hold();
  std::uint64_t handle = 0;
  auto st = guarded([&] { handle = c.await_async(job_id, deadline, [r](pb::AwaitProofResponse a) { r->answer(std::move(a)); }); });
  if (!st.ok()) r->fail(st);
  else if (handle != 0) r->waiting(handle);
  held.unlock();
}

// gRPC's name of a status code, for the log (a client sees the code itself).
const char* code_name(int code) {
  static const char* const names[] = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
                                      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
                                      "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
                                      "UNAUTHENTICATED"};
  return code >= 0 && code < int(std::size(names)) ? names[code] : "UNKNOWN";
}

}  // namespace

grpc::Status proving_service::authorize(grpc::ServerContextBase* ctx) const {
  if (token_.empty()) return grpc::Status::OK;
  const auto md = ctx->client_metadata();
  const auto it = md.find("authorization");
  if (it == md.end() || !zk::io::equal_constant_time(std::string_view(it->second.data(), it->second.size()), "Bearer " + token_))
    return {grpc::StatusCode::UNAUTHENTICATED, "authorization: missing or wrong token (send 'Bearer TOKEN')"};
  return grpc::Status::OK;
}

template <class F>
grpc::Status proving_service::guarded(grpc::ServerContextBase* ctx, const char* method, F&& body) {
  if (auto st = authorize(ctx); !st.ok()) return st;
  try {
    body();
    return grpc::Status::OK;
  } catch (const request_error& e) {
    spdlog::info("{}: refused ({}): {}", method, code_name(e.code), e.what());
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
  // The request's buffer is this call's own and read by nobody after this: emptying it lets its
  // memory go as it is parsed.
  std::string why;
  if (!parse_large_request(*const_cast<grpc::ByteBuffer*>(in), out, max_message_bytes_, why, &spool))
    throw request_error(grpc::StatusCode::INVALID_ARGUMENT, "request: " + why);
}

// SubmitProof or Prove (proving_service::large_requests): the token is checked on the call's
// metadata, before its message is read; a refused call never reads it. Then the one request
// message is read and submitted; Prove then awaits the job as AwaitProof does.
class large_call final : public await_reactor<grpc::ServerGenericBidiReactor> {
 public:
  large_call(proving_service& s, grpc::CallbackServerContext* ctx, bool prove)
      : await_reactor(s.core_), s_(s), ctx_(ctx), prove_(prove) {
    if (auto st = s.authorize(ctx); !st.ok()) {
      spdlog::info("{}: refused before reading the request: {}", method(), st.error_message());
      finished_ = true;
      Finish(st);
      return;
    }
    StartRead(&in_);
  }
  void OnReadDone(bool ok) override {
    if (!ok) {  // no request message (the client cancelled or half-closed without one)
      finished_ = true;
      Finish({grpc::StatusCode::INVALID_ARGUMENT, "request: no message"});
      return;
    }
    if (!prove_) {
      auto st = s_.guarded(ctx_, method(), [&] {
        auto charge = core_.charge_request(in_.Length());  // until the request is parsed and submitted
        witness_spool spool(core_.incoming_dir());  // the witnesses go to files as they arrive
        pb::SubmitProofRequest r;
        s_.parse_raw(&in_, r, spool);
        out_ = to_byte_buffer(core_.submit(r, &spool));
      });
      finished_ = true;
      if (st.ok()) StartWriteAndFinish(&out_, grpc::WriteOptions(), grpc::Status::OK);
      else Finish(st);
      return;
    }
    pb::SubmitProofResponse submitted;
    std::uint64_t timeout_ms = 0;
    auto st = s_.guarded(ctx_, method(), [&] {
      auto charge = core_.charge_request(in_.Length());  // not held while the job runs: its partitions need the room
      witness_spool spool(core_.incoming_dir());
      pb::ProveRequest r;  // dropped once submitted: the witnesses are in the job's files by then
      s_.parse_raw(&in_, r, spool);
      timeout_ms = r.timeout_ms();
      submitted = core_.submit(r.submit(), &spool);
    });
    if (!st.ok()) {
      finished_ = true;
      Finish(st);
      return;
    }
    start_await(core_, this, submitted.job_id(), await_deadline(ctx_, timeout_ms),
                [&](auto&& body) { return s_.guarded(ctx_, method(), body); });
  }

 private:
  const char* method() const { return prove_ ? "Prove" : "SubmitProof"; }
  proving_service& s_;
  grpc::CallbackServerContext* ctx_;
  bool prove_;
  grpc::ByteBuffer in_;
};

grpc::ServerGenericBidiReactor* proving_service::large_requests::CreateReactor(grpc::GenericCallbackServerContext* ctx) {
  const std::string& m = ctx->method();
  if (m == "/cuzk.v1.ProvingEngine/SubmitProof" || m == "/cuzk.v1.ProvingEngine/Prove")
    return new large_call(s_, ctx, m.ends_with("/Prove"));
  return grpc::CallbackGenericService::CreateReactor(ctx);  // UNIMPLEMENTED
}

grpc::ServerUnaryReactor* proving_service::AwaitProof(grpc::CallbackServerContext* ctx, const pb::AwaitProofRequest* req,
                                                      pb::AwaitProofResponse* resp) {
  auto* r = new await_reactor<grpc::ServerUnaryReactor>(core_, resp);
  start_await(core_, r, req->job_id(), await_deadline(ctx, req->timeout_ms()),
              [&](auto&& body) { return guarded(ctx, "AwaitProof", body); });
  return r;
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
