// The derived figures NTTTCP-for-Linux writes into its XML and JSON files, computed from a
// Result the way process_test_results() computes them (util.c), so both renderers agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

struct NtttcpThreadFigures {
  uint32_t index = 0;
  double seconds = 0;
  double kilobytes_per_s = 0;  // 1000-based
  double megabytes_per_s = 0;
  double megabits_per_s = 0;
};

struct NtttcpFigures {
  bool sender = false;
  bool verbose = false;
  bool tcp = false;
  std::string computername;
  std::string os;  // "Unknown" when the host did not say
  std::vector<NtttcpThreadFigures> threads;

  double seconds = 0;
  double total_megabytes = 0;  // bytes / 1e6
  double megabytes_per_s = 0;
  double megabits_per_s = 0;
  double bytes_per_s = 0;

  uint64_t packets_sent = 0, packets_received = 0;
  uint64_t total_interrupts = 0;
  double interrupts_per_s = 0;
  double packets_per_interrupt = 0;

  uint64_t retrans_segs = 0;
  // Per-second rates, in the order of the original's 7 "tcp retransmit" lines.
  double retrans_segs_per_s = 0, lost_retrans_per_s = 0, syn_retrans_per_s = 0,
         fast_retrans_per_s = 0, forward_retrans_per_s = 0, slow_start_retrans_per_s = 0,
         retrans_fail_per_s = 0;

  bool has_rtt = false;  // -V, TCP sender, and an RTT was measured
  uint32_t average_rtt_us = 0;
};

NtttcpFigures ntttcp_figures(const Result& result);

// "True"/"False", the Windows-style booleans of both files.
inline const char* ntttcp_bool(bool value) { return value ? "True" : "False"; }

// The fixed-point figures of both files: "%.2f", "%.3f", "%.6f".
std::string fixed2(double value);
std::string fixed3(double value);
std::string fixed6(double value);

}  // namespace xttcp
