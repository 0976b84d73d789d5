#include "zk/io/json_bounded.hpp"

#include "zk/error.hpp"
#include "zk/io/binfile.hpp"

namespace cuzk::zk::io {

namespace {

struct too_deep {};

template <class json>
json parse_bounded(std::string_view text, const std::string& name) {
  // The callback sees every object and array start with the depth of its parent: it stops the
  // parse before the deep part is built.
  const typename json::parser_callback_t bound = [](int depth, typename json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= json_max_depth)
      throw too_deep{};
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), bound);
  } catch (const too_deep&) {
    throw input_error(name + ": nested deeper than " + std::to_string(json_max_depth) + " levels");
  } catch (const typename json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
    throw input_error(name + ": not valid JSON (" + std::string(e.what()).substr(0, 160) + ")");
  }
}

}  // namespace

nlohmann::json parse_json_bounded(std::string_view text, const std::string& name) {
  return parse_bounded<nlohmann::json>(text, name);
}
nlohmann::ordered_json parse_ordered_json_bounded(std::string_view text, const std::string& name) {
  return parse_bounded<nlohmann::ordered_json>(text, name);
}

nlohmann::json read_json_file(const std::string& path, std::uint64_t max_bytes, std::string_view what) {
  return parse_json_bounded(read_file_capped(path, max_bytes, what), path);
}

}  // namespace cuzk::zk::io
