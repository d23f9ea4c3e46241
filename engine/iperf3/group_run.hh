// The running test's streams (client_run.cc, server_run.cc): a worker pool and a timeline per
// group (directions.hh), all on the test's one clock. One group is the usual test; --bidir's two
// run side by side, each measured by its own timeline (on its own thread) over the same phases,
// so each direction's figures are its own and the two windows are one span of time.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.hh"
#include "engine/backend/backend.hh"
#include "engine/iperf3/directions.hh"
#include "engine/iperf3/paired_intervals.hh"
#include "engine/net/unique_socket.hh"
#include "engine/run/phase_clock.hh"
#include "engine/run/timeline.hh"
#include "engine/run/worker_pool.hh"
#include "engine/stats/system_probe.hh"

namespace xttcp {
class Log;
}

namespace xttcp::iperf3 {

class GroupRun {
 public:
  GroupRun(Backend& backend, Log& log, PhaseClock& clock)
      : backend_(backend), log_(log), clock_(clock) {}
  GroupRun(const GroupRun&) = delete;
  GroupRun& operator=(const GroupRun&) = delete;
  ~GroupRun();

  // Every group's workers: group g's run by specs[g] (its role the group's direction, one flow
  // per stream of it) on plans[g] (prepare_run()'s for specs[g], made before the test's clock
  // starts: it reads the host's topology), over its streams of `sockets` (the test's, in stream
  // order). Once, before open_all().
  void add(const std::vector<StreamGroup>& groups, const std::vector<TestSpec>& specs,
           std::vector<Plan> plans, std::vector<UniqueSocket> sockets);
  // Opens every group's workers; then each timeline watches its bytes moving (IdleWatch, `peer`
  // named) and hands its intervals, paired up across the groups, to `renderer` (nullptr: none;
  // it outlives run()).
  Status open_all(std::chrono::milliseconds timeout, const std::string& peer,
                  GroupIntervals* renderer, double interval_s);

  // Counts every group's window from now (their bytes before the release included), releases
  // the workers and runs the phases on every timeline. Returns when every timeline ended and
  // the renderer had every interval.
  void run(const Phases& phases);

  // The groups' windows, once run() returned, in group order.
  const MeasuredWindow& window(std::size_t g) const { return groups_[g]->window; }
  // A group's window carried on to now (3.12 counts up to TEST_END): its end counts taken again,
  // its time stretched by `extra_s`.
  MeasuredWindow window_to_now(std::size_t g, double extra_s) const;
  // Stops the workers of the groups sending (`sending`) or receiving, and keeps their reports.
  void stop(bool sending);
  void stop_all() {
    stop(true);
    stop(false);
  }
  const std::vector<WorkerReport>& reports(std::size_t g) const { return groups_[g]->reports; }
  std::vector<std::vector<WorkerReport>> all_reports() const;

  std::size_t size() const { return groups_.size(); }
  const StreamGroup& group(std::size_t g) const { return groups_[g]->group; }
  bool is_udp() const { return !groups_.empty() && groups_.front()->pool->is_udp(); }
  // The most bytes and send/receive calls one group moved so far (-n, -k: 3.12 ends a test once
  // its bytes sent or received reach them).
  uint64_t most_bytes() const;
  uint64_t most_operations() const;

 private:
  struct Group {
    StreamGroup group;
    TestSpec spec;  // the pool holds these two by reference: a Group never moves
    Plan plan;
    std::unique_ptr<WorkerPool> pool;
    std::unique_ptr<SystemProbe> probe;
    std::unique_ptr<Timeline> timeline;
    MeasuredWindow window;
    std::vector<WorkerReport> reports;
    bool stopped = false;
  };

  Backend& backend_;
  Log& log_;
  PhaseClock& clock_;
  std::vector<std::unique_ptr<Group>> groups_;
  std::unique_ptr<PairedIntervals> paired_;  // with a renderer
};

}  // namespace xttcp::iperf3
