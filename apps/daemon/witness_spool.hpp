// The witnesses of a circom request, written to private files as their bytes arrive: the field
// sink that parse_large_request hands each Partition.witness_wtns to, piece by piece, straight
// from gRPC's slices. A large witness is then never a second time in the daemon's memory (the one
// full copy is gRPC's receive buffer); core::submit checks each file in place (a window at a
// time: zk::io::witness::check_file) and moves it into the job's directory once the job is
// accepted. Files not moved are removed with the spool, so a refused request leaves nothing;
// a crash mid-request leaves files in incoming/, which the daemon empties at every start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>

#include "large_request.hpp"

namespace cuzk::daemon {

class witness_spool final : public field_sink {
 public:
  // `dir`: the state directory's incoming/ (private: core::incoming_dir()).
  explicit witness_spool(std::filesystem::path dir);
  ~witness_spool() override;
  witness_spool(const witness_spool&) = delete;
  witness_spool& operator=(const witness_spool&) = delete;

  bool claims(const google::protobuf::FieldDescriptor& field) const override;  // cuzk.v1.Partition.witness_wtns
  void begin(const google::protobuf::Message& msg, const google::protobuf::FieldDescriptor& field,
             std::uint64_t length) override;
  void write(const void* data, std::size_t n) override;  // request_error UNAVAILABLE on a write error
  void end() override;

  // The file holding `partition`'s witness; nullopt when the request carried none for it.
  std::optional<std::filesystem::path> file_of(const google::protobuf::Message& partition) const;
  // Moves `partition`'s file to `to` (the same file system); the spool no longer owns it.
  void move(const google::protobuf::Message& partition, const std::filesystem::path& to);

 private:
  void close_current();
  std::filesystem::path dir_;
  std::map<const google::protobuf::Message*, std::filesystem::path> files_;
  int fd_ = -1;  // the file being written
  std::filesystem::path current_;
};

}  // namespace cuzk::daemon
