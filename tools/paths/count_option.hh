// A whole-number option of a subcommand's own grammar (compare-paths, calibrate), checked
// against its range in one line: "calibrate: -t: '0' is not a whole number from 1 to 60".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "base/status.hh"
#include "base/units.hh"

namespace xttcp {

inline Expected<uint64_t> count_option(std::string_view command, const std::string& option,
                                       const std::string& text, uint64_t low, uint64_t high) {
  auto value = parse_count(text, high);
  if (!value || *value < low)
    return fail(fmt::format("{}: {}: '{}' is not a whole number from {} to {}", command, option,
                            text, low, high));
  return *value;
}

}  // namespace xttcp
