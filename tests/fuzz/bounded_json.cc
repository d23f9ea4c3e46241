// The gate every JSON from outside passes before nlohmann builds anything (parse_bounded_json):
// its depth count must agree with the document's real nesting, so nothing deeper than the
// limit is ever parsed. Input: byte 0 = the depth limit (0-31), the rest the JSON text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/report/bounded_json.hh"
#include "tests/fuzz/fuzz_check.hh"

namespace {

size_t depth_of(const nlohmann::ordered_json& value) {
  size_t deepest = 0;
  if (value.is_object() || value.is_array()) {
    for (const auto& child : value) {
      const size_t depth = depth_of(child);
      if (depth > deepest) deepest = depth;
    }
    return deepest + 1;
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t limit = data[0] & 31;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const size_t counted = xttcp::json_nesting_depth(text, limit);
  FUZZ_CHECK(counted <= limit + 1);
  auto doc = xttcp::parse_bounded_json(text, {1024 * 1024, limit}, "fuzz input");
  if (!doc) return 0;
  FUZZ_CHECK(counted <= limit);
  // The count is the document's own nesting: never less, so nothing deeper is parsed. nlohmann
  // stops at a NUL byte, where the count goes on over the rest: then it may be more.
  const size_t depth = depth_of(*doc);
  FUZZ_CHECK(depth <= counted);
  if (text.find('\0') == std::string_view::npos) FUZZ_CHECK(depth == counted);
  return 0;
}
