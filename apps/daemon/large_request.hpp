// Requests that carry witnesses (SubmitProof, Prove) are parsed here rather than by gRPC's
// generated code, because the generated path holds several copies of a large witness at once:
// gRPC's received slices, and protobuf's string for the bytes field, which protobuf reserves only
// up to 50 MB and then grows by doubling (the old and the new buffer coexist at each step); the
// daemon's own parse then copied it twice more. A 128 MiB request raised the daemon's peak
// memory by 4.0x its size; with this parse (and the witness checked in place) by 2.0x; with the
// witnesses streamed to files as they are parsed (a field_sink), by 1.0x.
//
// The trick: take the request as raw bytes (a raw callback method), hand gRPC's slices to a
// stream that lets go of each slice once it is read, and parse with protobuf's reflection,
// except that a bytes field is read straight into a string sized once, from its length prefix,
// or, when a field_sink claims the field, handed to the sink piece by piece straight from gRPC's
// slices (the daemon writes each witness to a file: no second copy in memory at all). Every
// other field goes through protobuf's own parser (copied aside and merged), so fields added to
// the messages later parse as before. gRPC's received bytes stay resident until the call
// ends even though the slices are dropped as they are read (measured: the peak is the same with
// or without the drop), so the one full copy left is gRPC's own receive buffer.
#pragma once

#include <grpcpp/support/byte_buffer.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

namespace cuzk::daemon {

// Where a claimed bytes field goes instead of into the message: begin, then its bytes in pieces
// (write), then end, once per occurrence on the wire (a field repeated on the wire: protobuf
// keeps the last, and so must the sink). May throw; the exception leaves parse_large_request.
class field_sink {
 public:
  virtual ~field_sink() = default;
  virtual bool claims(const google::protobuf::FieldDescriptor& field) const = 0;
  // `msg` is the message the field belongs to (its address identifies it after the parse).
  virtual void begin(const google::protobuf::Message& msg, const google::protobuf::FieldDescriptor& field,
                     std::uint64_t length) = 0;
  virtual void write(const void* data, std::size_t n) = 0;
  virtual void end() = 0;
};

// Parses `in` into `out`, releasing `in`'s slices as it goes (`in` is left empty). Returns
// false, with `why` set, for bytes that are not a valid encoding of `out`'s message type.
// `limit`: the most bytes one request may have (the server's max_message_size). Fields `sink`
// claims (singular bytes fields) go to it and stay empty in `out`.
bool parse_large_request(grpc::ByteBuffer& in, google::protobuf::Message& out, std::uint64_t limit,
                         std::string& why, field_sink* sink = nullptr);

// `msg`'s encoding, as a response for a raw method.
grpc::ByteBuffer to_byte_buffer(const google::protobuf::Message& msg);

}  // namespace cuzk::daemon
