// The figures NTttcp for Windows 5.40 prints (PrintOutput in ntttcp.c), computed once from a
// Result so that its console tables and its XML agree. Units are the original's: KB = 1024 B,
// MB = 2^20 B, mbps = 10^6 bits/s.
//
// Unavailable figures: a figure this OS or this run did not measure (DPCs on Linux, packets
// when the engine did not read the transport counters, per-thread completions, CPU when no
// ticks were read) is nullopt here. The console prints "NA" in its place, never a false 0; the
// XML file writes 0 there, as NTttcp 5.40 writes 0.000 for a counter it could not read: the
// tools that read the file (VirtualClient, PerfKitBenchmarker) convert every one of these
// elements to a number and drop the whole result on a word. The native JSON (--json) keeps
// them null.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

// The NTttcp-for-Windows version whose formats the Windows renderers reproduce; the XML root
// carries it as version="5.40" so that tools keyed on it accept the file. xttcp's own version
// is in the console banner and in the native JSON.
inline constexpr const char* windows_ntttcp_version = "5.40";

// Printed on the console for an unavailable figure (see above).
inline constexpr const char* windows_unavailable = "NA";

struct WindowsThreadFigures {
  uint32_t index = 0;
  double seconds = 0;                  // the thread's own measured time
  double console_kilobytes_per_s = 0;  // bytes / own time / 1024: the console's column
  // bytes / the run's time, as the original's XML computes them (not the thread's own time).
  double kilobytes_per_s = 0, megabytes_per_s = 0, megabits_per_s = 0, bytes_per_s = 0;
  std::optional<double> avg_bytes_per_completion;
  std::optional<IoLatency> latency;
};

struct WindowsFigures {
  bool sender = false;
  bool hide_per_thread = false;      // -hpt
  bool latency_measurement = false;  // -lm
  std::string computername;
  std::vector<WindowsThreadFigures> threads;

  double seconds = 0;  // the run's measured time
  double total_megabytes = 0;
  double bytes_per_s = 0, megabytes_per_s = 0, megabits_per_s = 0;
  std::optional<double> avg_bytes_per_completion;          // all bytes / all completions
  std::optional<double> threads_avg_bytes_per_completion;  // mean of the threads' averages
  std::optional<double> avg_frame_size;  // bytes / packets sent (sender) or received (receiver)
  double total_buffers = 0, buffers_per_s = 0;  // bytes / buffer length
  std::optional<IoLatency> latency;             // -lm: over all calls of all threads

  std::optional<double> dpcs_per_s, packets_per_dpc;
  std::optional<double> interrupts_per_s, packets_per_interrupt;
  std::optional<double> cycles_per_byte;
  std::optional<uint64_t> packets_sent, packets_received, errors;
  uint64_t retransmits = 0;           // TCP RetransSegs; 0 for UDP, as the original
  std::optional<double> cpu_percent;  // busy % averaged over processors

  uint32_t num_processors = 0;
  uint64_t buffer_count = 0;  // -n, or INT64_MAX in time mode (the original's MAXLONGLONG)
  uint32_t buffer_length = 0;
  uint32_t outstanding_io = 0;  // -a n; the original prints its default 2 in sync mode too
};

WindowsFigures windows_figures(const Result& result);

// NTttcp-for-Windows thread count of a spec: the -m mappings' threads, or for a spec from the
// Linux grammar one per receiver port (receiver) or per sender thread (sender).
uint64_t windows_thread_count(const TestSpec& spec);

}  // namespace xttcp
