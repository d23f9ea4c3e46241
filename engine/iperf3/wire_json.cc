#include "engine/iperf3/wire_json.hh"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>

namespace xttcp::iperf3 {

std::optional<int64_t> wire_integer(const nlohmann::ordered_json& value) {
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    return u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? int64_t{-1}
                                                                          : static_cast<int64_t>(u);
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (!std::isfinite(d)) return std::nullopt;
    if (d >= 9.2e18 || d <= -9.2e18)
      return d > 0 ? int64_t{-1} : std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(std::trunc(d));
  }
  return std::nullopt;
}

std::optional<double> wire_double(const nlohmann::ordered_json& value) {
  if (!value.is_number()) return std::nullopt;
  const double d = value.get<double>();
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

std::string format_integer(int64_t value) { return fmt::format("{}", value); }

std::string format_number(double value) {
  if (!std::isfinite(value)) return "0";
  if (value == std::trunc(value) && std::fabs(value) < 9.2e18)
    return format_integer(static_cast<int64_t>(value));
  std::string text = fmt::format("{:.15g}", value);
  if (std::strtod(text.c_str(), nullptr) != value) text = fmt::format("{:.17g}", value);
  return text;
}

std::string json_string(std::string_view text) {
  return nlohmann::ordered_json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace xttcp::iperf3
