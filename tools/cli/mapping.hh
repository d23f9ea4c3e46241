// NTTTCP-for-Linux's -m PORTS,CPU,ADDR (one Windows-style mapping). Every field may be missing:
// "4", "4,*", ",,10.0.0.1". How the fields combine with -P, -n, -r and -s is the dialect's rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.hh"

namespace xttcp {

struct Mapping {
  std::optional<uint64_t> ports;  // receiver ports; not clamped here
  std::optional<int> cpu;         // nullopt = '*' or missing
  std::string address;            // "" = '*' or missing
};

// Errors omit "-m: " (the caller names the option), e.g. "CPU 'x' is not '*' or a CPU id".
// `cpu_count` is the number of configured CPUs; ids from 0 to cpu_count - 1 are accepted.
Expected<Mapping> parse_mapping(std::string_view text, unsigned cpu_count);

}  // namespace xttcp
