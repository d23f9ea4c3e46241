#include "engine/run/second_direction.hh"

#include "engine/run/result_builder.hh"
#include "engine/run/result_checks.hh"

namespace xttcp {

void SecondDirection::start(PhaseClock& clock, Log& log, const Phases& phases,
                            SteadyClock::time_point at) {
  timeline = std::make_unique<Timeline>(clock, *pool, *probe, log, spec.output.interval_s);
  timeline->keep_quiet();
  timeline->begin_now();
  pool->release();
  runner = std::jthread([this, phases, at] { window = timeline->run(phases, at); });
}

std::vector<WorkerReport> SecondDirection::finish() {
  if (runner.joinable()) runner.join();
  return pool->stop_and_join();
}

Expected<Result> SecondDirection::result(const std::string& backend, const HostInfo& host,
                                         uint32_t cycle_s,
                                         const std::vector<WorkerReport>& reports) const {
  if (!window.measured)
    return fail("--bidir: the test ended before the second direction's window began: " +
                window.stop.message);
  const RunFacts facts{&spec, &plan,   backend,
                       host,  cycle_s, static_cast<uint32_t>(plan.flow_count)};
  return build_result(facts, window, reports);
}

std::optional<std::string> take_second_peer(Result& peer, Result& own) {
  std::shared_ptr<const Result> second = std::move(peer.other_direction);
  peer.other_direction.reset();
  if (!second) return std::string("--bidir: the other end sent no result for the second direction");
  if (std::optional<std::string> refused = refused_peer_result(*second)) return refused;
  own.peer = std::move(second);
  return std::nullopt;
}

void drop_other_direction(Result& peer) { peer.other_direction.reset(); }

}  // namespace xttcp
