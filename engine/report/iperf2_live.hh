// The iperf2 dialect's interval lines as each -i interval ends (iperf 2 prints them so, and
// scripts follow them live): the "[ ID] Interval ..." header before the first, then each
// interval's lines (each stream's, then [SUM] with several), on the console (standard output);
// with -y C the interval rows, one per stream, each with its stream's ends (a server learns them
// as each stream begins). The report of the finished test then leaves them out
// (iperf2_report_lines(result, true)).
#pragma once

#include <map>
#include <vector>

#include "engine/report/interval_sink.hh"
#include "engine/report/iperf2_streams.hh"
#include "engine/spec.hh"

namespace xttcp {

class Log;

class Iperf2LiveReport final : public IntervalSink {
 public:
  Iperf2LiveReport(const TestSpec& spec, Log& log) : spec_(spec), log_(log) {}

  // Whether a run of `spec` prints its interval lines live (and the report leaves them out).
  static bool prints(const TestSpec& spec);

  bool wants_streams() const override { return true; }
  void connected(const std::vector<StreamEnds>& streams) override;
  void stream_began(uint64_t key, const StreamEnds& ends) override { ends_[key] = ends; }
  void interval(Role role, std::chrono::system_clock::time_point window_start,
                const IntervalSample& sample, bool udp) override;

 private:
  std::vector<std::string> csv_rows(Role role, std::chrono::system_clock::time_point window_start,
                                    bool several, const Iperf2Interval& i, bool udp) const;

  // Each stream's ends by key (StreamInterval::key): a client's from connected(), a server's as
  // they begin.
  std::map<uint64_t, StreamEnds> ends_;
  const TestSpec& spec_;
  Log& log_;
  std::chrono::system_clock::time_point window_;  // the window of the intervals counted
  uint64_t count_ = 0;                            // intervals of that window so far
  Iperf2StreamNumbers numbers_;                   // that window's streams
};

}  // namespace xttcp
