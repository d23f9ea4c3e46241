#include "engine/run/timeline.hh"

#include <algorithm>

#include "engine/report/log.hh"

namespace xttcp {

namespace {

using Seconds = std::chrono::duration<double>;

SteadyClock::duration to_duration(double s) {
  return std::chrono::duration_cast<SteadyClock::duration>(Seconds(s));
}

// Everything read at one edge of a window or a -sam sample.
struct EdgeSnapshots {
  std::vector<CounterSnapshot> counters;
  std::vector<udp::FlowRecord> udp;
  SystemSnapshot system;
  std::optional<DeviceSnapshot> device;
};

}  // namespace

MeasuredWindow Timeline::run(const Phases& phases, SteadyClock::time_point start) {
  MeasuredWindow window;
  const bool continuous = phases.duration_s == 0;
  const auto measure_begin = start + std::chrono::seconds(phases.warmup_s);
  const auto measure_end = measure_begin + std::chrono::seconds(phases.duration_s);
  const auto cycle_end = start + std::chrono::seconds(std::max(
      phases.cycle_s, phases.warmup_s + phases.duration_s));
  const auto interval = std::max(to_duration(interval_s_), SteadyClock::duration(std::chrono::milliseconds(1)));

  enum class Stage { warmup, measure, cooldown } stage = Stage::warmup;
  auto window_start = measure_begin;

  // The current interval sample: from sample_start, counting from sample_bytes.
  auto sample_start = start;
  uint64_t sample_bytes = pool_.total_bytes();
  const bool udp_run = pool_.is_udp();
  std::vector<udp::FlowRecord> sample_udp = pool_.udp_snapshot();
  auto close_sample = [&](SteadyClock::time_point now, bool print) {
    const uint64_t bytes = pool_.total_bytes();
    const double length = Seconds(now - sample_start).count();
    std::vector<udp::FlowRecord> flows;
    if (udp_run) flows = pool_.udp_snapshot();
    if (length > 0) {
      if (print) log_.realtime(static_cast<double>(bytes - sample_bytes) * 8.0 / length);
      if (stage == Stage::measure) {
        IntervalSample sample{Seconds(sample_start - window_start).count(), length,
                              bytes - sample_bytes};
        if (udp_run) {
          const udp::UdpFlowSnapshot d = udp::sum(udp::delta(flows, sample_udp));
          sample.datagrams = d.datagrams;
          sample.lost = d.lost();
          sample.reordered = d.reordered;
          sample.jitter_ns = d.jitter_ns;
        }
        window.intervals.push_back(sample);
      }
    }
    sample_start = now;
    sample_bytes = bytes;
    if (udp_run) sample_udp = std::move(flows);
  };
  // -sam: the sample being measured, from sample_open; the next one begins samples_begun x
  // sample_s after the window's start (the last one at the window's end).
  const bool sampling = phases.sample_s > 0 && !continuous;
  MeasuredWindow current_sample;
  auto sample_open = start;
  int samples_begun = 0;
  auto next_sample_edge = [&] {
    return std::min(window_start + std::chrono::seconds(phases.sample_s) * samples_begun,
                    measure_end);
  };
  auto begin_sample = [&](SteadyClock::time_point now, const EdgeSnapshots& edge) {
    current_sample = MeasuredWindow{};
    current_sample.begin = edge.counters;
    current_sample.udp_begin = edge.udp;
    current_sample.system_begin = edge.system;
    current_sample.device_begin = edge.device;
    current_sample.started_at = std::chrono::system_clock::now();
    sample_open = now;
    ++samples_begun;
  };
  auto end_sample = [&](SteadyClock::time_point now, const EdgeSnapshots& edge, bool cut_short) {
    current_sample.end = edge.counters;
    current_sample.udp_end = edge.udp;
    current_sample.system_end = edge.system;
    current_sample.device_end = edge.device;
    current_sample.seconds = Seconds(now - sample_open).count();
    current_sample.cut_short = cut_short;
    current_sample.measured = true;
    window.samples.push_back(std::move(current_sample));
  };
  auto split_sample = [&](SteadyClock::time_point now) {
    const EdgeSnapshots edge{pool_.snapshot(), pool_.udp_snapshot(), probe_.take(),
                             pool_.device_snapshot()};
    end_sample(now, edge, false);
    begin_sample(now, edge);
  };

  auto open_window = [&](SteadyClock::time_point now) {
    window.begin = pool_.snapshot();
    const bool from_earlier = begin_from_ && phases.warmup_s == 0;
    if (from_earlier) window.begin = std::move(*begin_from_);
    begin_from_.reset();
    window.udp_begin = pool_.udp_snapshot();
    window.system_begin = probe_.take();
    window.device_begin = pool_.device_snapshot();
    window.started_at = std::chrono::system_clock::now();
    if (from_earlier && begin_since_ && *begin_since_ < now) {
      window.started_at -= std::chrono::duration_cast<std::chrono::system_clock::duration>(
          now - *begin_since_);
      now = *begin_since_;
    }
    begin_since_.reset();
    window_start = now;
    sample_start = now;
    sample_bytes = 0;
    for (const CounterSnapshot& flow : window.begin) sample_bytes += flow.bytes;
    stage = Stage::measure;
    if (sampling) {  // the window's begin is the first sample's
      begin_sample(now, {window.begin, window.udp_begin, window.system_begin, window.device_begin});
      current_sample.started_at = window.started_at;
    }
  };
  auto close_window = [&](SteadyClock::time_point now, bool cut_short) {
    close_sample(now, false);
    window.end = pool_.snapshot();
    window.udp_end = pool_.udp_snapshot();
    window.system_end = probe_.take();
    window.device_end = pool_.device_snapshot();
    window.seconds = Seconds(now - window_start).count();
    window.cut_short = cut_short;
    window.measured = true;
    if (sampling)  // the window's end is the last sample's
      end_sample(now, {window.end, window.udp_end, window.system_end, window.device_end},
                 cut_short);
    stage = Stage::cooldown;
    log_.end_realtime();
    log_.info("Test run completed.");
  };

  if (phases.warmup_s == 0) open_window(start);
  auto tick = start + interval;

  for (;;) {
    const auto measure_edge = sampling ? next_sample_edge() : measure_end;
    SteadyClock::time_point edge =
        stage == Stage::warmup ? measure_begin : stage == Stage::measure ? measure_edge : cycle_end;
    if (continuous) edge = SteadyClock::time_point::max();
    const bool at_edge = edge <= tick;
    const bool on_time = clock_.wait_until(at_edge ? edge : tick);
    const auto now = SteadyClock::now();

    if (!on_time && clock_.finished() && !clock_.cancelled()) {  // count mode: all done
      if (stage == Stage::measure) close_window(now, false);
      log_.info(clock_.reason().message);
      break;
    }
    if (!on_time) {  // cancelled: close the window here if it was open
      if (stage == Stage::measure && !continuous) close_window(now, true);
      break;
    }
    if (!at_edge) {  // an interval: real-time line, sample, and the peer watch
      close_sample(now, true);
      if (watch_ && stage != Stage::cooldown)
        if (std::optional<StopReason> lost = watch_()) clock_.cancel(lost->cause, lost->message);
      tick += interval;
      if (tick <= now) tick = now + interval;  // fell behind (a slow machine): skip, never burst
      continue;
    }
    if (stage == Stage::measure && edge < measure_end) {  // -sam: one sample ends, the next begins
      split_sample(now);
      continue;  // the interval ticks go on as they were
    }
    if (stage == Stage::warmup) {
      log_.info("Test warmup completed.");
      close_sample(now, false);
      open_window(now);
    } else if (stage == Stage::measure) {
      close_window(now, false);
      if (cycle_end > now + std::chrono::milliseconds(1)) log_.info("Test cooldown is in progress...");
    } else {
      break;
    }
    tick = now + interval;  // samples line up with the phase that just began
  }
  log_.end_realtime();
  log_.info("Test cycle finished.");
  window.stop = clock_.reason();
  return window;
}

}  // namespace xttcp
