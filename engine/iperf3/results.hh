// The results message each end sends the other after EXCHANGE_RESULTS, the client first
// (tests/reference/iperf3-3.12/README.md 3.3): its CPU use and each of its streams' totals,
// matched by stream id. Read within bounds, with 3.12's required keys; written as 3.12 writes
// it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hh"

namespace xttcp::iperf3 {

struct StreamTotals {
  int32_t id = 1;                  // 1, 3, 4, ... (stream_id)
  uint64_t bytes = 0;              // sent, or received, after the omit period
  int64_t retransmits = -1;        // a TCP sender's (TCP_INFO); -1: none known
  double jitter_s = 0;             // a UDP receiver's, in seconds
  int64_t errors = 0;              // a UDP receiver's lost datagrams
  int64_t packets = 0;             // UDP: datagrams sent, or the highest sequence number seen
  double start_time = 0;           // always 0 in 3.12
  std::optional<double> end_time;  // s from the stream's start to its last sample

  bool operator==(const StreamTotals&) const = default;
};

struct Results {
  double cpu_total = 0;  // % of one CPU over the test, and its user and system parts
  double cpu_user = 0;
  double cpu_system = 0;
  // 1: a TCP sender whose retransmits are known; 0: a sender without them (UDP); -1: a pure
  // receiver.
  int32_t sender_has_retransmits = -1;
  std::optional<std::string> congestion_used;
  std::optional<std::string> server_output_text;  // a server asked for its output, not -J
  std::optional<std::string> server_output_json;  // ... and -J: its document, as JSON text
  std::vector<StreamTotals> streams;

  bool operator==(const Results&) const = default;
};

// At most this many streams a message may hold: --bidir with 3.12's 128 streams each way.
inline constexpr std::size_t max_result_streams = 256;

// Reads the message's JSON text (at most `max_bytes`: max_results_bytes, or with the server's
// output asked for, max_results_with_output_bytes): the results, or one line naming what is
// wrong ("iperf3 results: streams[2] has no 'bytes'"). Unknown keys are ignored.
Expected<Results> read_results(std::string_view json, std::size_t max_bytes);

// The message as 3.12 writes it, but -1 as -1 (3.12 writes 18446744073709551615; it reads both).
std::string write_results(const Results& results);

}  // namespace xttcp::iperf3
