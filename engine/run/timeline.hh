// Timeline: warm-up, measure, cool-down on the run's one clock. Counters and system probes are
// read exactly at the phase edges (timer-based, no polling overshoot); a sample is taken every
// interval for the real-time line and the per-interval report. With -sam (NTttcp for Windows) the
// window is also split into samples, each with its own snapshots at its edges.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/result.hh"
#include "engine/run/phase_clock.hh"
#include "engine/run/worker_pool.hh"
#include "engine/stats/system_probe.hh"
#include "engine/udp/flow_registry.hh"

namespace xttcp {

class IntervalSink;
class Log;

struct Phases {
  uint32_t warmup_s = 0;
  uint32_t duration_s = 0;  // 0 = continuous: run until cancelled, no window
  uint32_t cycle_s = 0;     // total (negotiated); >= warmup + duration when not continuous
  uint32_t sample_s = 0;    // -sam: samples of this length (the last one may be shorter); 0 = none
};

struct MeasuredWindow {
  bool measured = false;   // false: cancelled before the window began, or continuous mode
  bool cut_short = false;  // the window ended before its duration (cancelled)
  StopReason stop;         // why the test ended before its cycle (cause none: on time)
  double seconds = 0;
  // How much later than asked the clock woke this process inside the window, summed: time the
  // host did not run it (overloaded or paused), which the figures include.
  double late_s = 0;
  std::vector<CounterSnapshot> begin, end;          // per flow slot
  std::vector<udp::FlowRecord> udp_begin, udp_end;  // UDP runs: every flow's datagram counts
  // --rr: every flow's round-trip histogram (the whole window only; empty begin = all zero).
  std::vector<HistogramCounts> rr_begin, rr_end;
  SystemSnapshot system_begin, system_end;
  std::optional<DeviceSnapshot> device_begin, device_end;  // a backend's own device (dpdk)
  std::vector<IntervalSample> intervals;
  // TCP: who the intervals' connections are (those read in the window), and how many connections
  // opened in the run while the watch was full.
  std::vector<WatchedConnection> watched;
  uint64_t not_watched = 0;
  std::chrono::system_clock::time_point started_at;
  // -sam: the window split at every sample_s seconds from its start, in order, each with its own
  // snapshots (one sample's end is the next one's begin); empty without -sam. A sample has no
  // intervals and no samples of its own. The window cut short cuts its last sample short.
  std::vector<MeasuredWindow> samples;
};

class Timeline {
 public:
  Timeline(PhaseClock& clock, const WorkerPool& pool, const SystemProbe& probe, Log& log,
           double interval_s)
      : clock_(clock), pool_(pool), probe_(probe), log_(log), interval_s_(interval_s) {}

  // Runs the phases from `start` (the instant the light went on) and returns the window.
  MeasuredWindow run(const Phases& phases, SteadyClock::time_point start);

  // Asked at every interval while the window is open (and through the cool-down too with
  // `in_cooldown`): a reason to end the test now (the peer is gone), or nothing. The clock is
  // then cancelled with that reason.
  void set_watch(std::function<std::optional<StopReason>()> watch, bool in_cooldown = false) {
    watch_ = std::move(watch);
    watch_in_cooldown_ = in_cooldown;
  }

  // Each measured interval, as it ends, for `role`, to each sink added (--json-stream, the
  // iperf2 dialect's live lines); nullptr is no sink. A sink that wants each stream's share
  // (IntervalSink::wants_streams) has the samples carry it (IntervalSample::per_stream).
  void add_sink(IntervalSink* sink, Role role);

  // The streams of the test, for each interval sample (IntervalSample::streams); without it, a
  // TCP sample counts the connections open, a UDP one the flows seen.
  void count_streams(std::function<uint32_t()> streams) { count_streams_ = std::move(streams); }

  // A window opened at the start (no warm-up) begins from these counts, taken at the start's
  // instant by whoever saw it (count mode (-n): before the workers were released, so it holds
  // every buffer, and the clock's finish() then ends the window normally, not cut short; a
  // sync'd receiver: when its light went on, before the sender heard 'R'). `since`: when those
  // buffers began to arrive, if before the start (NTttcp -ns: the first thread's data comes before
  // the last thread connects); the window's time then starts there too, so its rate is not
  // inflated.
  void begin_from(std::vector<CounterSnapshot> counts,
                  std::optional<SteadyClock::time_point> since = std::nullopt) {
    begin_from_ = std::move(counts);
    begin_since_ = since;
  }
  // begin_from() with the pool's counters now, its UDP datagram counts with them: a window
  // whose bytes start before the workers' release counts their datagrams from there too.
  void begin_now();

  // A timeline beside the test's own on the same clock (--bidir's direction back) says nothing
  // on the console: the test's own says the phases, and one real-time line is enough.
  void keep_quiet() { quiet_ = true; }
  bool says_anything() const { return !quiet_; }

 private:
  class Run;  // one run of the phases (timeline.cc)

  PhaseClock& clock_;
  const WorkerPool& pool_;
  const SystemProbe& probe_;
  Log& log_;
  double interval_s_;
  std::function<std::optional<StopReason>()> watch_;
  bool watch_in_cooldown_ = false;
  uint32_t next_new_connection_ = 0;  // ConnectionWatch ids below it were seen (they only grow)
  std::function<uint32_t()> count_streams_;
  std::vector<IntervalSink*> sinks_;
  Role sink_role_ = Role::receiver;
  bool per_stream_ = false;     // a sink wants IntervalSample::per_stream
  bool omitted_sinks_ = false;  // a sink wants the warm-up's intervals (wants_omitted)
  std::optional<std::vector<CounterSnapshot>> begin_from_;
  std::optional<std::vector<udp::FlowRecord>> begin_udp_from_;  // begin_now()'s
  std::optional<SteadyClock::time_point> begin_since_;
  bool quiet_ = false;
};

}  // namespace xttcp
