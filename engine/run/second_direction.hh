// A --bidir test's second direction at either end: its own worker pool, measured by its own
// quiet timeline on its own thread over the same phases of the test's one clock (the first
// direction's timeline says the phases and the live lines), so each direction's figures are its
// own and the two windows are one span of time.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/result.hh"
#include "engine/run/timeline.hh"
#include "engine/run/worker_pool.hh"
#include "engine/stats/system_probe.hh"

namespace xttcp {

class Log;

struct SecondDirection {
  TestSpec spec;  // the pool holds spec and plan by reference: never moved once it exists
  Plan plan;
  std::unique_ptr<WorkerPool> pool;
  std::unique_ptr<SystemProbe> probe;
  std::unique_ptr<Timeline> timeline;
  MeasuredWindow window;
  std::jthread runner;  // joins on every path, an early return's included

  // Counts the window from now, releases the workers and runs `phases` from `start` on the
  // clock, on its own thread. Once, after pool->open_all().
  void start(PhaseClock& clock, Log& log, const Phases& phases, SteadyClock::time_point start);
  // Once the test's own window ended: waits for the timeline, stops the workers, their reports.
  std::vector<WorkerReport> finish();
  // Its result from finish()'s reports; an error (one line) when its window never opened
  // (cancelled as the test's own opened: that thread saw it open, this one not).
  Expected<Result> result(const std::string& backend, const HostInfo& host, uint32_t cycle_s,
                          const std::vector<WorkerReport>& reports) const;
};

// --bidir: the other end's result for the second direction, which came inside its result as
// its other direction, taken out of `peer` (nothing stays in it) and given to `own` as its
// peer; a line when it sent none, or one no run can produce (then `own` has no peer).
std::optional<std::string> take_second_peer(Result& peer, Result& own);

// Not --bidir: a peer's result holds no other direction (one it sent anyway is dropped, never
// shown or written).
void drop_other_direction(Result& peer);

}  // namespace xttcp
