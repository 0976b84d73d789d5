// Errors raised by readers and validators. The message is one line naming the file, section or field
// and what was expected, because it is what an operator reads (CLI: printed, exit code 2).
#pragma once

#include <stdexcept>
#include <string>

namespace cuzk::zk {

// Input that cannot be used: malformed, truncated, wrong curve, inconsistent with another file.
class input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cuzk::zk
