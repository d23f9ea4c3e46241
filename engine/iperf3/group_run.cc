#include "engine/iperf3/group_run.hh"

#include <algorithm>
#include <thread>

#include "engine/iperf3/idle_watch.hh"

namespace xttcp::iperf3 {

GroupRun::~GroupRun() { stop_all(); }

void GroupRun::add(const std::vector<StreamGroup>& groups, const std::vector<TestSpec>& specs,
                   std::vector<Plan> plans, std::vector<UniqueSocket> sockets) {
  for (std::size_t i = 0; i < groups.size() && i < specs.size() && i < plans.size(); ++i) {
    auto g = std::make_unique<Group>();
    g->group = groups[i];
    g->spec = specs[i];
    g->plan = std::move(plans[i]);
    g->pool =
        std::make_unique<WorkerPool>(backend_, g->spec, g->plan, SocketAddress{}, SocketAddress{});
    std::vector<NativeSocket> by_slot;
    for (std::size_t s = g->group.first; s < g->group.first + g->group.count; ++s)
      if (s < sockets.size()) by_slot.push_back(sockets[s].release());
    g->pool->adopt(by_slot);
    g->pool->set_notice_log(&log_);
    g->probe = std::make_unique<SystemProbe>(g->spec);
    groups_.push_back(std::move(g));
  }
}

Status GroupRun::open_all(std::chrono::milliseconds timeout, const std::string& peer,
                          GroupIntervals* renderer, double interval_s) {
  if (renderer) {
    std::vector<bool> sending;
    for (const auto& g : groups_) sending.push_back(g->group.sending);
    paired_ = std::make_unique<PairedIntervals>(std::move(sending), interval_s, *renderer);
  }
  for (const auto& g : groups_) {
    if (Status opened = g->pool->open_all(timeout); !opened) return opened;
    g->timeline = std::make_unique<Timeline>(clock_, *g->pool, *g->probe, log_, interval_s);
    g->timeline->set_watch(IdleWatch(*g->pool, peer), true);
    if (paired_) g->timeline->add_sink(paired_.get(), g->spec.role);
  }
  return ok();
}

void GroupRun::run(const Phases& phases) {
  for (const auto& g : groups_) g->timeline->begin_now();
  const auto start = SteadyClock::now();
  for (const auto& g : groups_) g->pool->release();
  std::vector<std::thread> others;
  for (std::size_t i = 1; i < groups_.size(); ++i)
    others.emplace_back([&, i] { groups_[i]->window = groups_[i]->timeline->run(phases, start); });
  if (!groups_.empty()) groups_.front()->window = groups_.front()->timeline->run(phases, start);
  for (std::thread& t : others) t.join();
  if (paired_) paired_->flush();
}

MeasuredWindow GroupRun::window_to_now(std::size_t g, double extra_s) const {
  MeasuredWindow to_now = groups_[g]->window;
  to_now.end = groups_[g]->pool->snapshot();
  if (groups_[g]->pool->is_udp()) to_now.udp_end = groups_[g]->pool->udp_snapshot();
  to_now.seconds += extra_s;
  return to_now;
}

void GroupRun::stop(bool sending) {
  for (const auto& g : groups_)
    if (g->group.sending == sending && !g->stopped) {
      g->reports = g->pool->stop_and_join();
      g->stopped = true;
    }
}

std::vector<std::vector<WorkerReport>> GroupRun::all_reports() const {
  std::vector<std::vector<WorkerReport>> all;
  for (const auto& g : groups_) all.push_back(g->reports);
  return all;
}

uint64_t GroupRun::most_bytes() const {
  uint64_t most = 0;
  for (const auto& g : groups_) most = std::max(most, g->pool->total_bytes());
  return most;
}

uint64_t GroupRun::most_operations() const {
  uint64_t most = 0;
  for (const auto& g : groups_) most = std::max(most, g->pool->total_operations());
  return most;
}

}  // namespace xttcp::iperf3
