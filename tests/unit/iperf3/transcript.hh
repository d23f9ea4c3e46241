// The transcripts of Debian's iperf3 3.12 on loopback (tests/reference/iperf3-3.12/wire-*.txt),
// as the unit tests read them.
#pragma once

#include <string>

namespace xttcp::iperf3 {

// 3.12 writes -1 as 2^64 - 1; xttcp writes -1 (both read either).
inline std::string with_minus_one(std::string text) {
  const std::string big = "18446744073709551615";
  for (std::size_t at; (at = text.find(big)) != std::string::npos;)
    text.replace(at, big.size(), "-1");
  return text;
}

}  // namespace xttcp::iperf3
