#include "engine/run/worker_pool.hh"

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "engine/net/os_socket.hh"
#include "engine/report/log.hh"
#include "engine/stats/rr_clock.hh"

#include "topology/topology.hh"

namespace xttcp {

WorkerPool::WorkerPool(Backend& backend, const TestSpec& spec, const Plan& plan,
                       SocketAddress local, SocketAddress remote, std::function<void()> on_accept,
                       std::function<void()> on_flow_done, std::vector<SocketAddress> hosts)
    : backend_(backend),
      spec_(spec),
      plan_(plan),
      counters_(std::make_unique<FlowCounter[]>(plan.flow_count)) {
  contexts_.resize(plan.workers.size());
  opened_lists_.resize(plan.workers.size());
  uint32_t udp_flow_base = 0;
  uint16_t udp_flow_token = 0;
  if (spec.workload.protocol == Protocol::udp) {
    // A receiver has one socket per flow of its plan; each tracks a bounded number of flows.
    udp_flows_ = std::make_unique<udp::UdpFlowRegistry>(udp::flows_per_socket(plan.flow_count));
    udp_flows_->on_table_full = [this](std::string_view line) { notice(line, true); };
    udp_flow_base = pick_udp_flow_base();
    udp_flow_token = pick_udp_flow_token();
  }
  if (spec.rr.on) {
    rr_histograms_ = std::make_unique<LatencyHistogram[]>(plan.flow_count);
    RrClock::get();  // chosen and calibrated now (20 ms), before any worker stamps with it
  }
  if (spec.workload.protocol == Protocol::tcp && !spec.rr.on)
    connection_watch_ = std::make_unique<ConnectionWatch>(
        limits::watched_connections, spec.io.count_reads && spec.role == Role::receiver);
  for (size_t i = 0; i < plan.workers.size(); ++i) {
    WorkerContext& context = contexts_[i];
    context.spec = &spec_;
    context.plan = &plan_.workers[i];
    context.local = local;
    context.remote = remote;
    context.hosts = hosts;
    context.counters = counters_.get();
    context.on_accept = on_accept;
    context.on_flow_done = on_flow_done;
    context.on_notice = [this](std::string_view line, bool error) { notice(line, error); };
    context.open_connections = &open_connections_;
    context.refusal_said = &refusal_said_;
    context.udp_flows = udp_flows_.get();
    context.udp_flow_base = udp_flow_base;
    context.udp_flow_token = udp_flow_token;
    context.worker_count = static_cast<uint32_t>(plan.workers.size());
    if (spec.io.time_each_call) context.latency_period = &latency_period_;
    context.opened = &opened_lists_[i];
    context.rr_histograms = rr_histograms_.get();
    context.connection_watch = connection_watch_.get();
  }
  reports_.resize(plan.workers.size());
}

WorkerPool::~WorkerPool() {
  stop_and_join();
  for (uint32_t i = 0; i < adopted_unclaimed_.size(); ++i) close_unclaimed(i);
}

void WorkerPool::adopt(const std::vector<NativeSocket>& by_slot) {
  adopted_unclaimed_.assign(contexts_.size(), 1);
  for (uint32_t i = 0; i < contexts_.size(); ++i)
    for (const FlowPlan& flow : plan_.workers[i].flows)
      contexts_[i].adopted.push_back(by_slot.at(flow.slot));
}

Status WorkerPool::open_inboxes() {
  for (uint32_t i = 0; i < contexts_.size(); ++i) {
    auto inbox = ConnectionInbox::create();
    if (!inbox) return inbox.error();
    contexts_[i].inbox = inbox->get();
    inboxes_.push_back(std::move(*inbox));
    for (const FlowPlan& flow : plan_.workers[i].flows) hand_order_.push_back({i, flow.slot});
  }
  // In flow order, as the listeners' ports would spread them: consecutive connections go to
  // different workers.
  std::sort(hand_order_.begin(), hand_order_.end(),
            [](const HandTarget& a, const HandTarget& b) { return a.slot < b.slot; });
  return ok();
}

void WorkerPool::hand_over(UniqueSocket socket, int session) {
  if (hand_order_.empty()) return;  // no inbox: `socket` closes here
  const auto& [worker, slot] = hand_order_[next_hand_.fetch_add(1) % hand_order_.size()];
  inboxes_[worker]->put(std::move(socket), slot, session);
}

void WorkerPool::close_sessions(std::vector<int> sessions, bool all_but) {
  for (auto& inbox : inboxes_) inbox->order({sessions, all_but});
}

void WorkerPool::close_unclaimed(uint32_t index) {
  if (index >= adopted_unclaimed_.size() || !adopted_unclaimed_[index]) return;
  for (NativeSocket socket : contexts_[index].adopted) close_socket(socket);
  adopted_unclaimed_[index] = false;
}

uint32_t WorkerPool::pick_udp_flow_base() {
  // Flow ids are base | slot with slots < 2^20 (limits::max_connections): 12 random bits keep
  // the flows of concurrent senders (-M) apart at one receiver.
  std::random_device random;
  return (1 + random() % 4095) << udp::flow_slot_bits;
}

uint16_t WorkerPool::pick_udp_flow_token() {
  // Never 0, which stands for "no token" (a sender older than tokens).
  std::random_device random;
  return static_cast<uint16_t>(1 + random() % 65535);
}

void WorkerPool::notice(std::string_view line, bool error) {
  std::lock_guard lock(notice_mutex_);
  if (notice_log_ == nullptr) return;
  const LineBudget::Verdict verdict = notice_budget_.take(LineBudget::Clock::now());
  if (verdict.suppressed_before > 0)
    notice_log_->error(fmt::format("({} more such line(s) from the data path were held back)",
                                   verdict.suppressed_before));
  if (verdict.print) error ? notice_log_->error(line) : notice_log_->info(line);
}

void WorkerPool::say_held_back_notices() {
  std::lock_guard lock(notice_mutex_);
  if (notice_log_ == nullptr) return;
  if (const uint64_t held = notice_budget_.take_suppressed(); held > 0)
    notice_log_->error(
        fmt::format("({} more such line(s) from the data path were held back)", held));
}

void WorkerPool::worker_main(uint32_t index) {
  const WorkerContext& context = contexts_[index];
  std::unique_ptr<DataWorker> worker;
  Status status = ok();
  if (context.plan->cpu) {
    status = pin_current_thread(*context.plan->cpu);
  } else if (!context.plan->cpu_set.empty()) {
    status = restrict_current_thread(context.plan->cpu_set);
  }
  if (status) {
    auto made = backend_.make_worker(context);
    if (!made) close_unclaimed(index);
    if (index < adopted_unclaimed_.size()) adopted_unclaimed_[index] = false;  // the worker's now
    if (made) {
      worker = std::move(*made);
      status = worker->open();
    } else {
      status = made.error();
    }
  }
  {
    std::unique_lock lock(mutex_);
    ++opened_;
    if (!status && first_error_.empty()) first_error_ = status.error().message;
    changed_.notify_all();
    changed_.wait(lock, [this] { return released_ || stop_.load(); });
  }
  if (worker == nullptr) return;
  if (!stop_.load()) worker->run(stop_);
  reports_[index] = worker->finish();
}

Status WorkerPool::open_all(std::chrono::milliseconds timeout) {
  for (uint32_t i = 0; i < contexts_.size(); ++i)
    threads_.emplace_back(&WorkerPool::worker_main, this, i);
  std::unique_lock lock(mutex_);
  const bool all = changed_.wait_for(lock, timeout, [this] { return opened_ == contexts_.size(); });
  if (!first_error_.empty()) return fail(first_error_);
  counts_connections_ = open_connections_.load() > 0;
  if (!all)
    return fail("workers did not open their connections within " +
                std::to_string(timeout.count() / 1000) + " s");
  all_opened_ = true;
  return ok();
}

std::vector<OpenedConnection> WorkerPool::opened_connections() const {
  std::vector<OpenedConnection> out;
  if (!all_opened_) return out;  // a worker still opening may be writing its list
  for (const std::vector<OpenedConnection>& list : opened_lists_)
    out.insert(out.end(), list.begin(), list.end());
  return out;
}

void WorkerPool::release() {
  std::lock_guard lock(mutex_);
  released_ = true;
  changed_.notify_all();
}

std::vector<WorkerReport> WorkerPool::stop_and_join() {
  if (joined_) return reports_;
  {
    std::lock_guard lock(mutex_);
    stop_.store(true);
    changed_.notify_all();
  }
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
  for (auto& inbox : inboxes_) inbox->close();  // what comes now has no worker to serve it
  joined_ = true;
  say_held_back_notices();  // no later line will say them
  return reports_;
}

std::vector<CounterSnapshot> WorkerPool::snapshot() const {
  std::vector<CounterSnapshot> out(plan_.flow_count);
  for (uint32_t i = 0; i < plan_.flow_count; ++i) out[i] = read(counters_[i]);
  if (!spec_.io.time_each_call) return out;
  // Read the period's calls first, then move on: a call that ends in between is lost, never
  // counted twice, and never turns another period's figures into this one's.
  const uint64_t period = latency_period_.load();
  for (uint32_t i = 0; i < plan_.flow_count; ++i)
    out[i].latency = read_latency(counters_[i], period);
  latency_period_.fetch_add(1);
  return out;
}

std::vector<CounterSnapshot> WorkerPool::flow_counts() const {
  std::vector<CounterSnapshot> out(plan_.flow_count);
  for (uint32_t i = 0; i < plan_.flow_count; ++i) out[i] = read(counters_[i]);
  return out;
}

uint64_t WorkerPool::total_bytes() const {
  uint64_t sum = 0;
  for (uint32_t i = 0; i < plan_.flow_count; ++i)
    sum += counters_[i].bytes.load(std::memory_order_relaxed);
  return sum;
}

uint64_t WorkerPool::total_operations() const {
  uint64_t sum = 0;
  for (uint32_t i = 0; i < plan_.flow_count; ++i)
    sum += counters_[i].operations.load(std::memory_order_relaxed);
  return sum;
}

std::vector<HistogramCounts> WorkerPool::rr_snapshot() const {
  std::vector<HistogramCounts> out;
  if (!rr_histograms_) return out;
  out.reserve(plan_.flow_count);
  for (uint32_t i = 0; i < plan_.flow_count; ++i) out.push_back(rr_histograms_[i].read());
  return out;
}

HistogramCounts WorkerPool::rr_total() const {
  HistogramCounts total;
  if (rr_histograms_)
    for (uint32_t i = 0; i < plan_.flow_count; ++i) rr_histograms_[i].add_to(total);
  return total;
}

std::vector<udp::FlowRecord> WorkerPool::udp_snapshot() const {
  if (!udp_flows_) return {};
  return udp_flows_->snapshot();
}

bool log_worker_errors(const std::vector<WorkerReport>& reports, Log& log) {
  bool healthy = true;
  for (const WorkerReport& report : reports) {
    if (report.errors == 0) continue;
    log.error(fmt::format("{} I/O error(s); first: {}", report.errors, report.first_error));
    healthy = false;
  }
  return healthy;
}

}  // namespace xttcp
