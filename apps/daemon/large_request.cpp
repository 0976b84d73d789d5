#include "large_request.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <limits>
#include <vector>

namespace cuzk::daemon {

namespace {

namespace gp = google::protobuf;
using gp::internal::WireFormatLite;

// gRPC's slices as a protobuf input stream; a slice is dropped once the stream has moved past
// it (protobuf may not use a chunk after the next call to Next or Skip), so the request's memory
// goes as the parse proceeds.
class slice_stream final : public gp::io::ZeroCopyInputStream {
 public:
  explicit slice_stream(std::vector<grpc::Slice> s) : slices_(std::move(s)) {}

  bool Next(const void** data, int* size) override {
    while (i_ < slices_.size() && off_ == slices_[i_].size()) advance();
    if (i_ >= slices_.size()) return false;
    std::size_t n = std::min<std::size_t>(slices_[i_].size() - off_, std::numeric_limits<int>::max());
    *data = slices_[i_].begin() + off_;
    *size = int(n);
    off_ += n;
    count_ += std::int64_t(n);
    return true;
  }
  void BackUp(int count) override {  // only into the chunk Next returned last
    off_ -= std::size_t(count);
    count_ -= count;
  }
  bool Skip(int count) override {
    while (count > 0) {
      if (i_ >= slices_.size()) return false;
      std::size_t avail = slices_[i_].size() - off_;
      std::size_t step = std::min<std::size_t>(avail, std::size_t(count));
      off_ += step;
      count_ += std::int64_t(step);
      count -= int(step);
      if (off_ == slices_[i_].size()) advance();
    }
    return true;
  }
  std::int64_t ByteCount() const override { return count_; }

 private:
  void advance() {
    slices_[i_] = grpc::Slice();  // let go of the bytes read
    ++i_;
    off_ = 0;
  }
  std::vector<grpc::Slice> slices_;
  std::size_t i_ = 0, off_ = 0;
  std::int64_t count_ = 0;
};

bool parse_message(gp::io::CodedInputStream& in, gp::Message& msg, int depth, std::string& why, field_sink* sink) {
  if (depth > 16) {
    why = "messages nested too deeply";
    return false;
  }
  const auto* desc = msg.GetDescriptor();
  const auto* refl = msg.GetReflection();
  std::string rest;  // every field not read here, for protobuf's own parser
  {
    gp::io::StringOutputStream sos(&rest);
    gp::io::CodedOutputStream out(&sos);
    for (;;) {
      std::uint32_t tag = in.ReadTag();
      if (tag == 0) break;
      const auto* field = desc->FindFieldByNumber(WireFormatLite::GetTagFieldNumber(tag));
      bool delimited = WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
      bool big_bytes = field && delimited && field->type() == gp::FieldDescriptor::TYPE_BYTES;
      bool sub = field && delimited && field->type() == gp::FieldDescriptor::TYPE_MESSAGE;
      if (!big_bytes && !sub) {
        if (!WireFormatLite::SkipField(&in, tag, &out)) {
          why = std::string(desc->name()) + ": a malformed field";
          return false;
        }
        continue;
      }
      std::uint32_t len = 0;
      if (!in.ReadVarint32(&len) || in.BytesUntilLimit() < 0 || len > std::uint32_t(in.BytesUntilLimit())) {
        why = std::string(desc->name()) + "." + field->name() + ": its length runs past the end of the request";
        return false;
      }
      if (big_bytes && sink && !field->is_repeated() && sink->claims(*field)) {
        // Straight from gRPC's slices to the sink, a buffer at a time.
        sink->begin(msg, *field, len);
        for (std::uint32_t left = len; left > 0;) {
          const void* data = nullptr;
          int size = 0;
          if (!in.GetDirectBufferPointer(&data, &size) || size <= 0) {
            why = std::string(desc->name()) + "." + field->name() + ": truncated";
            return false;
          }
          const auto step = std::min<std::uint32_t>(left, std::uint32_t(size));
          sink->write(data, step);
          in.Skip(int(step));
          left -= step;
        }
        sink->end();
      } else if (big_bytes) {
        std::string value(len, '\0');  // sized once, from the length prefix
        if (len > 0 && !in.ReadRaw(value.data(), int(len))) {
          why = std::string(desc->name()) + "." + field->name() + ": truncated";
          return false;
        }
        if (field->is_repeated()) refl->AddString(&msg, field, std::move(value));
        else refl->SetString(&msg, field, std::move(value));
      } else {
        auto* m = field->is_repeated() ? refl->AddMessage(&msg, field) : refl->MutableMessage(&msg, field);
        auto limit = in.PushLimit(int(len));
        if (!parse_message(in, *m, depth + 1, why, sink)) return false;
        in.PopLimit(limit);
      }
    }
    if (!in.ConsumedEntireMessage()) {
      why = std::string(desc->name()) + ": malformed";
      return false;
    }
  }
  if (!rest.empty() && !msg.MergeFromString(rest)) {
    why = std::string(desc->name()) + ": malformed";
    return false;
  }
  return true;
}

}  // namespace

bool parse_large_request(grpc::ByteBuffer& in, gp::Message& out, std::uint64_t limit, std::string& why,
                         field_sink* sink) {
  const std::uint64_t total = in.Length();
  if (total > limit || total > std::uint64_t(std::numeric_limits<int>::max())) {
    why = "request of " + std::to_string(total) + " bytes is larger than the limit";
    return false;
  }
  std::vector<grpc::Slice> slices;
  if (!in.Dump(&slices).ok()) {
    why = "the request's bytes cannot be read";
    return false;
  }
  in.Clear();  // the slices above hold the only references now
  slice_stream stream(std::move(slices));
  gp::io::CodedInputStream cis(&stream);
  cis.SetTotalBytesLimit(int(total));
  cis.PushLimit(int(total));
  return parse_message(cis, out, 0, why, sink);
}

grpc::ByteBuffer to_byte_buffer(const gp::Message& msg) {
  auto* s = new std::string(msg.SerializeAsString());
  grpc::Slice slice(s->data(), s->size(), [](void* p) { delete static_cast<std::string*>(p); }, s);
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace cuzk::daemon
