#include "engine/report/bounded_json.hh"

#include <fmt/format.h>

namespace xttcp {

size_t json_nesting_depth(std::string_view text, size_t limit) {
  size_t depth = 0;
  size_t deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > deepest) {
          deepest = depth;
          if (deepest > limit) return limit + 1;
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return deepest;
}

Expected<nlohmann::ordered_json> parse_bounded_json(std::string_view text, const JsonLimits& limits,
                                                    std::string_view what) {
  if (text.size() > limits.max_bytes)
    return fail(
        fmt::format("{}: {} bytes, over the limit of {}", what, text.size(), limits.max_bytes));
  if (json_nesting_depth(text, limits.max_depth) > limits.max_depth)
    return fail(fmt::format("{}: nested more than {} deep", what, limits.max_depth));
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text, nullptr, false);
  if (doc.is_discarded()) return fail(fmt::format("{}: not valid JSON", what));
  return doc;
}

}  // namespace xttcp
