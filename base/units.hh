// Sizes, rates and their text forms, as NTttcp users write and read them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.hh"

namespace xttcp {

// "64k", "1m", "131072", "1.5k": suffix k/m/g (either case) = 1024-based (NTTTCP-for-Linux -b).
Expected<uint64_t> parse_size(std::string_view text);
// "10g", "500m", "1000": suffix k/m/g = 1000-based bits/s (NTTTCP-for-Linux -B).
Expected<uint64_t> parse_rate(std::string_view text);
// Non-negative decimal integer with no sign, suffix or junk; fails above `max`.
Expected<uint64_t> parse_count(std::string_view text, uint64_t max);
// Seconds, possibly fractional ("0.5"), > 0 unless allow_zero.
Expected<double> parse_seconds(std::string_view text, bool allow_zero);

// NTTTCP-for-Linux console form: 1000-based steps up to Gbps, two decimals: "13.20Gbps".
std::string format_bps(double bits_per_second);

}  // namespace xttcp
