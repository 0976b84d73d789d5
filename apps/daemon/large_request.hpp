// Requests that carry witnesses (SubmitProof, Prove) are parsed here rather than by gRPC's
// generated code, because the generated path holds several copies of a large witness at once:
// gRPC's received slices, and protobuf's string for the bytes field, which protobuf reserves only
// up to 50 MB and then grows by doubling (the old and the new buffer coexist at each step); the
// daemon's own parse then copied it twice more. A 128 MiB request raised the daemon's peak
// memory by 4.0x its size; with this parse (and the witness checked in place) by 2.0x.
//
// The trick: take the request as raw bytes (a raw callback method), hand gRPC's slices to a
// stream that lets go of each slice once it is read, and parse with protobuf's reflection,
// except that a bytes field is read straight into a string sized once, from its length prefix.
// Every other field goes through protobuf's own parser (copied aside and merged), so fields
// added to the messages later parse as before. What remains is 2x: gRPC's received bytes and
// the parsed strings (the slices are dropped as they are read, yet the peak shows both copies:
// gRPC's transport may keep its read buffers longer; not investigated). Streaming each witness
// to its job file while parsing would remove the second copy.
#pragma once

#include <grpcpp/support/byte_buffer.h>

#include <cstdint>
#include <string>

#include <google/protobuf/message.h>

namespace cuzk::daemon {

// Parses `in` into `out`, releasing `in`'s slices as it goes (`in` is left empty). Returns
// false, with `why` set, for bytes that are not a valid encoding of `out`'s message type.
// `limit`: the most bytes one request may have (the server's max_message_size).
bool parse_large_request(grpc::ByteBuffer& in, google::protobuf::Message& out, std::uint64_t limit,
                         std::string& why);

// `msg`'s encoding, as a response for a raw method.
grpc::ByteBuffer to_byte_buffer(const google::protobuf::Message& msg);

}  // namespace cuzk::daemon
