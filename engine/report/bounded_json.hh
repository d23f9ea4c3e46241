// JSON from outside the process (a peer's frames, result files read back) is parsed only within
// bounds: its size and its nesting depth are checked before nlohmann builds anything, so a
// document nested a million deep cannot exhaust memory or the stack.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

#include "base/status.hh"

namespace xttcp {

struct JsonLimits {
  size_t max_bytes;
  size_t max_depth;  // arrays and objects inside one another; 1 = a flat object
};

// xttcp's native result nests at most 6 deep (result > samples[] > sample > udp > flows[] >
// flow), two more with --bidir's other direction and its peer's result inside, one more in a
// set of runs: 16 leaves room for a newer schema.
inline constexpr JsonLimits native_result_limits{16u * 1024 * 1024, 16};

// Deepest nesting of arrays and objects in `text`, counted outside strings; stops counting
// (and returns limit + 1) once `limit` is passed.
size_t json_nesting_depth(std::string_view text, size_t limit);

// Parses `text` if it is within `limits`; else one line naming the limit that was passed.
// `what` names the document in the message ("native result").
Expected<nlohmann::ordered_json> parse_bounded_json(std::string_view text, const JsonLimits& limits,
                                                    std::string_view what);

}  // namespace xttcp
