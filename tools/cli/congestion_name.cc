#include "tools/cli/congestion_name.hh"

#include <algorithm>
#include <string>

#include <fmt/format.h>

namespace xttcp {

Status check_congestion_name(std::string_view name) {
  const bool well_formed =
      !name.empty() && name.size() <= 15 && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
      });
  if (!well_formed)
    return fail(fmt::format(
        "'{}' is not an algorithm name (1..15 letters, digits, '_' or '-', e.g. cubic, bbr)",
        name));
  return ok();
}

}  // namespace xttcp
