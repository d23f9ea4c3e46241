#include "base/units.hh"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace xttcp {

namespace {

Expected<uint64_t> parse_scaled(std::string_view text, uint64_t base, const char* what) {
  if (text.empty()) return fail(fmt::format("empty {}", what));
  uint64_t multiplier = 1;
  switch (text.back()) {
    case 'k':
    case 'K': multiplier = base; break;
    case 'm':
    case 'M': multiplier = base * base; break;
    case 'g':
    case 'G': multiplier = base * base * base; break;
    default: break;
  }
  std::string_view digits = multiplier == 1 ? text : text.substr(0, text.size() - 1);
  // NTTTCP-for-Linux reads these with atof, so "2.5g" is a valid rate; junk is not.
  double value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value,
                                   std::chars_format::fixed);
  if (digits.empty() || digits.front() == '-' || digits.front() == '+' || ec != std::errc() ||
      end != digits.data() + digits.size() || !std::isfinite(value))
    return fail(
        fmt::format("'{}' is not a {} (a number with an optional k, m or g suffix)", text, what));
  const double scaled = value * static_cast<double>(multiplier);
  if (scaled >= 18446744073709551615.0) return fail(fmt::format("'{}' is too large", text));
  return static_cast<uint64_t>(scaled);
}

}  // namespace

Expected<uint64_t> parse_size(std::string_view text) { return parse_scaled(text, 1024, "size"); }
Expected<uint64_t> parse_rate(std::string_view text) { return parse_scaled(text, 1000, "rate"); }

Expected<uint64_t> parse_count(std::string_view text, uint64_t max) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec == std::errc::result_out_of_range)
    return fail(fmt::format("'{}' is not a whole number up to {}", text, max));
  if (ec != std::errc() || end != text.data() + text.size())
    return fail(fmt::format("'{}' is not a whole number", text));
  if (value > max) return fail(fmt::format("{} is above the maximum of {}", text, max));
  return value;
}

Expected<double> parse_seconds(std::string_view text, bool allow_zero) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value))
    return fail(fmt::format("'{}' is not a number of seconds", text));
  if (value < 0 || (!allow_zero && value == 0))
    return fail(allow_zero ? "seconds must be >= 0" : "seconds must be > 0");
  if (value > 86400.0 * 365) return fail(fmt::format("'{}' seconds is more than a year", text));
  return value;
}

std::string format_bps(double bps) {
  // Exactly NTTTCP-for-Linux's steps (strictly above 1000, at most Gbps): automation parses it.
  static constexpr const char* units[] = {"bps", "Kbps", "Mbps", "Gbps"};
  int unit = 0;
  while (bps > 1000.0 && unit < 3) {
    bps /= 1000.0;
    ++unit;
  }
  return fmt::format("{:.2f}{}", bps, units[unit]);
}

}  // namespace xttcp
