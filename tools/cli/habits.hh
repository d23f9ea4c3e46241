// What users of other tools type first (iperf 2, iperf 3, sockperf, NTttcp for Windows) and what
// it means in the NTTTCP-for-Linux dialect, where the same letters often mean something else
// (-c, -l, -n, -b, -C, -B, -O). Each is a hint the dialect's refusal or note ends with, in the
// style of "did you mean": it says what to type here. The tables are in habits.cc.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace xttcp {

// An option the Linux dialect does not have, typed as another tool spells it: "-c", "-R",
// "--client", "--bitrate", or NTttcp for Windows' "-xml", "-wu" (any case). `next_word` is the
// word after it, "" if none (-i 10.0.0.1 is sockperf's address, -i 1 iperf's interval).
std::optional<std::string> option_habit(std::string_view typed, std::string_view next_word);

// A value the option's row refused, read as another tool's meaning of the same letter:
// -l 128k (a buffer length), -n 1G (bytes), -C cubic (congestion), -B 10.0.0.1 (bind),
// -b 100Mbps (a rate). `option` is the short name; nullopt when no habit explains the value.
std::optional<std::string> value_habit(char option, std::string_view value);

// A first word that is another tool's command: sockperf's server, ping-pong, throughput,
// under-load (and their short forms).
std::optional<std::string> command_habit(std::string_view word);

}  // namespace xttcp
