// The iperf2 dialect's interval lines as each -i interval ends (iperf 2 prints them so, and
// scripts follow them live): the "[ ID] Interval ..." header before the first, then one line an
// interval, on the console (standard output); with -y C a client's interval rows (a server's
// come with its report: it learns its streams' addresses at the end). The report of the
// finished test then leaves them out (iperf2_report_lines(result, true)).
#pragma once

#include <vector>

#include "engine/report/interval_sink.hh"
#include "engine/spec.hh"

namespace xttcp {

class Log;

class Iperf2LiveReport final : public IntervalSink {
 public:
  Iperf2LiveReport(const TestSpec& spec, Log& log) : spec_(spec), log_(log) {}

  // Whether a run of `spec` prints its interval lines live (and the report leaves them out).
  static bool prints(const TestSpec& spec);

  void connected(const std::vector<StreamEnds>& streams) override { streams_ = streams; }
  void interval(Role role, std::chrono::system_clock::time_point window_start,
                const IntervalSample& sample, bool udp) override;

 private:
  std::string csv_row(std::chrono::system_clock::time_point window_start, bool several, double from,
                      double to, const IntervalSample& sample, bool udp) const;

  std::vector<StreamEnds> streams_;  // a client's, from connected()
  const TestSpec& spec_;
  Log& log_;
  std::chrono::system_clock::time_point window_;  // the window of the intervals counted
  uint64_t count_ = 0;                            // intervals of that window so far
};

}  // namespace xttcp
