#include "engine/run/timeline.hh"

#include <algorithm>

#include "engine/report/log.hh"

namespace xttcp {

namespace {

using Seconds = std::chrono::duration<double>;

SteadyClock::duration seconds(double s) {
  return std::chrono::duration_cast<SteadyClock::duration>(Seconds(s));
}

}  // namespace

MeasuredWindow Timeline::run(const Phases& phases, SteadyClock::time_point start) {
  MeasuredWindow window;
  const bool continuous = phases.duration_s == 0;
  const auto measure_begin = start + std::chrono::seconds(phases.warmup_s);
  const auto measure_end = measure_begin + std::chrono::seconds(phases.duration_s);
  const auto cycle_end = start + std::chrono::seconds(std::max(
      phases.cycle_s, phases.warmup_s + phases.duration_s));

  enum class Stage { warmup, measure, cooldown } stage = Stage::warmup;
  if (phases.warmup_s == 0) {
    window.begin = pool_.snapshot();
    window.system_begin = probe_.take();
    window.started_at = std::chrono::system_clock::now();
    stage = Stage::measure;
  }

  auto tick = start + seconds(interval_s_);
  auto last_tick = start;
  uint64_t last_bytes = pool_.total_bytes();
  auto window_start_time = measure_begin;

  for (;;) {
    SteadyClock::time_point next_edge =
        stage == Stage::warmup ? measure_begin : stage == Stage::measure ? measure_end : cycle_end;
    if (continuous) next_edge = SteadyClock::time_point::max();
    const bool edge_first = next_edge <= tick;
    const bool on_time = clock_.wait_until(edge_first ? next_edge : tick);
    const auto now = SteadyClock::now();

    if (!on_time) {  // cancelled: close the window here if it was open
      if (stage == Stage::measure && !continuous) {
        window.end = pool_.snapshot();
        window.system_end = probe_.take();
        window.seconds = Seconds(now - window_start_time).count();
        window.cut_short = true;
        window.measured = true;
        log_.end_realtime();
        log_.info("Test run completed.");
      }
      break;
    }

    if (!edge_first) {  // interval sample
      const uint64_t bytes = pool_.total_bytes();
      const double interval = Seconds(now - last_tick).count();
      if (interval > 0) log_.realtime(static_cast<double>(bytes - last_bytes) * 8.0 / interval);
      if (stage == Stage::measure)
        window.intervals.push_back({Seconds(last_tick - window_start_time).count(), interval,
                                    bytes - last_bytes});
      last_bytes = bytes;
      last_tick = now;
      tick += seconds(interval_s_);
      continue;
    }

    if (stage == Stage::warmup) {
      log_.info("Test warmup completed.");
      window.begin = pool_.snapshot();
      window.system_begin = probe_.take();
      window.started_at = std::chrono::system_clock::now();
      window_start_time = now;
      stage = Stage::measure;
    } else if (stage == Stage::measure) {
      window.end = pool_.snapshot();
      window.system_end = probe_.take();
      window.seconds = Seconds(now - window_start_time).count();
      window.measured = true;
      log_.end_realtime();
      log_.info("Test run completed.");
      stage = Stage::cooldown;
      if (cycle_end > now + std::chrono::milliseconds(1)) log_.info("Test cooldown is in progress...");
    } else {
      break;
    }
  }
  log_.end_realtime();
  log_.info("Test cycle finished.");
  return window;
}

}  // namespace xttcp
