// JSON from files a user names or a peer sends, read as a DOM (nlohmann::json) with two bounds:
// the file's size (read_file_capped: a regular file, at most what its format can hold) and the
// nesting depth. nlohmann's parser keeps its own stack on the heap, but a DOM's copy, comparison
// and our walks over it recurse: a 200,000-deep array ("[[[[...") overflows the stack. No format
// read here nests deeper than a few levels.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace cuzk::zk::io {

constexpr int json_max_depth = 64;

// Throws input_error "<name>: not valid JSON (...)" or "<name>: nested deeper than 64 levels".
nlohmann::json parse_json_bounded(std::string_view text, const std::string& name);
// The same keeping the objects' key order (a file rewritten with entries merged in).
nlohmann::ordered_json parse_ordered_json_bounded(std::string_view text, const std::string& name);

// read_file_capped(path, max_bytes, what), then parse_json_bounded.
nlohmann::json read_json_file(const std::string& path, std::uint64_t max_bytes, std::string_view what);

}  // namespace cuzk::zk::io
