// Numbers as iperf3 3.12 writes and reads them in its JSON messages (its patched cJSON,
// tests/reference/iperf3-3.12/README.md 3.1): a whole number is written as an integer, through
// an unsigned 64-bit format (so -1 arrives as 18446744073709551615); any other with 15
// significant digits, or 17 when 15 do not give the same double back.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace xttcp::iperf3 {

// An integer field as 3.12 reads it: a whole number, 2^63 and above (its -1) as -1, a
// fraction cut toward 0; nullopt for what is no number.
std::optional<int64_t> wire_integer(const nlohmann::ordered_json& value);
// A fractional field (cpu, jitter, times); nullopt for what is no number.
std::optional<double> wire_double(const nlohmann::ordered_json& value);

// `value` as 3.12 would write it, but -1 as -1 (which 3.12 reads the same); a value that is
// no finite number as 0.
std::string format_number(double value);
std::string format_integer(int64_t value);

// A JSON string literal, quoted and escaped (UTF-8 kept as it is).
std::string json_string(std::string_view text);

}  // namespace xttcp::iperf3
