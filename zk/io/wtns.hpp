// A witness in circom's .wtns format (BLS12-381 only), validated on load.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "zk/bls12_381/fields.hpp"

namespace cuzk::zk::io {

struct witness {
  // Normal-form (canonical) values, each < r; values[0] == 1. Wire order: 1, public outputs,
  // public inputs, private inputs, internal wires.
  std::vector<bigint<4>> values;
  std::string path;  // as given to load (or the name given to parse): used in messages

  static witness load(const std::string& path);  // throws input_error naming the file and field
  static witness parse(std::span<const std::uint8_t> bytes, std::string name);  // reads `bytes` in place
  // Every check parse makes, storing nothing: the number of values. For a service that keeps
  // the bytes (to write them to a file) and has no use for a second copy of a large witness.
  static std::uint32_t check(std::span<const std::uint8_t> bytes, std::string name);
  // The same check on a file, holding at most a window of it resident (its pages are let go as
  // they are read): for a service that streamed a large witness to disk. Errors name `name`.
  static std::uint32_t check_file(const std::string& path, std::string name);
};

}  // namespace cuzk::zk::io
