// --json-stream FILE|-: one JSON object per line (NDJSON) as each measured interval ends, and a
// last one when the test has ended, for dashboards that follow a run live (docs/native-json.md,
// "The interval stream"). A live stream, not a result file: written as it goes (a FIFO or a pipe
// works), never replaced; a reader that falls behind loses lines (counted), never stalls the
// test's clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "base/status.hh"
#include "engine/report/interval_sink.hh"
#include "engine/result.hh"

namespace xttcp {

class IntervalStream final : public IntervalSink {
 public:
  // `path` "-" is standard output. Error: "--json-stream: cannot write PATH: REASON".
  static Expected<std::unique_ptr<IntervalStream>> open(const std::string& path);
  ~IntervalStream() override;
  IntervalStream(const IntervalStream&) = delete;
  IntervalStream& operator=(const IntervalStream&) = delete;

  // {"type":"interval","role":...,"window_start":ISO,"start_s":...,"seconds":...,"bytes":...,
  //  "throughput_bps":...} (+ "datagrams","lost","reordered","jitter_ms" for UDP).
  void interval(Role role, std::chrono::system_clock::time_point window_start,
                const IntervalSample& sample, bool udp) override;
  // {"type":"end","role":...,"window_start":...,"duration_s":...,"total_bytes":...,
  //  "throughput_bps":...,"cut_short":...,"cause":...,"dropped_lines":N}
  void end(const Result& result);

  uint64_t dropped() const { return dropped_; }

 private:
  IntervalStream(std::FILE* file, bool owned) : file_(file), owned_(owned) {}
  void write_line(const std::string& line);

  std::FILE* file_;
  bool owned_;  // fclose at the end (not standard output)
  uint64_t dropped_ = 0;
};

// Before the test: can `path` be opened for the stream? "-" always; a directory, or a file in a
// missing directory, is refused in one line naming the option.
Status check_stream_path(const std::string& path);

}  // namespace xttcp
