// WorkerPool: one OS thread per WorkerPlan, each pinned to its CPU, owning its backend worker.
// The engine opens them all (listen or connect), releases them into their data loop, stops and
// joins them, and reads their counters at any time without stopping them.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/backend/backend.hh"
#include "engine/plan.hh"
#include "engine/report/line_budget.hh"
#include "engine/udp/flow_registry.hh"

namespace xttcp {

class Log;

class WorkerPool {
 public:
  // `hosts`: plan.hosts resolved (WorkerContext::hosts); empty = every flow uses `remote`
  // (sender) or `local` (receiver).
  WorkerPool(Backend& backend, const TestSpec& spec, const Plan& plan, SocketAddress local,
             SocketAddress remote, std::function<void()> on_accept = {},
             std::function<void()> on_flow_done = {}, std::vector<SocketAddress> hosts = {});
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Where the workers' notices go (WorkerContext::on_notice), as log lines, at most
  // notice_lines per notice_period (then one line says how many were held back). Before
  // open_all(); without it notices are dropped.
  static constexpr uint32_t notice_lines = 10;
  static constexpr std::chrono::seconds notice_period{10};
  void set_notice_log(Log* log) { notice_log_ = log; }
  // Says how many notices the budget held back, now (a test's end, the pool's stop): no later
  // notice may come to say it.
  void say_held_back_notices();
  // Receivers: who is served (WorkerContext::admission). Before open_all(); outlives the pool.
  void set_admission(PeerAdmission* admission) {
    for (WorkerContext& context : contexts_) context.admission = admission;
  }
  // TCP receivers: told of each data connection, its peer and data port
  // (WorkerContext::on_data_connection). Before open_all(); empty = not wanted.
  void set_data_connection_hook(std::function<void(const SocketAddress&, uint16_t)> hook) {
    for (WorkerContext& context : contexts_) context.on_data_connection = hook;
  }
  // UDP senders: the base of the flow ids (base | slot) and the token the workers put in their
  // headers, picked before the pool to be declared in the hello (pick_udp_flow_base(),
  // pick_udp_flow_token()); by default both are picked here. Before open_all().
  static uint32_t pick_udp_flow_base();
  static uint16_t pick_udp_flow_token();
  void set_udp_flow_ids(uint32_t base, uint16_t token) {
    for (WorkerContext& context : contexts_) {
      context.udp_flow_base = base;
      context.udp_flow_token = token;
    }
  }
  // Senders: what ends their connecting at once (Ctrl+C; WorkerContext::interrupted). Before
  // open_all(); outlives the pool.
  void set_interrupt(const std::atomic<bool>* interrupted) {
    for (WorkerContext& context : contexts_) context.interrupted = interrupted;
  }
  // Senders with --auth-key: the bytes every TCP connection opens with (sync_auth.hh's
  // preamble). Before open_all().
  void set_connection_preamble(const std::vector<unsigned char>& preamble) {
    for (WorkerContext& context : contexts_) context.connection_preamble = preamble;
  }
  // UDP receivers: which flows are a test's (udp/flow_admission.hh). Before open_all();
  // outlives the pool.
  void set_flow_admission(const udp::FlowAdmission* admission) {
    if (udp_flows_) udp_flows_->set_admission(admission);
  }

  // layout.one_port: the connections the control plane made, by flow slot (one per slot), for
  // the workers to serve (WorkerContext::adopted). The pool owns them from here: a worker
  // takes its own over when it is made; those of a worker never made are closed here. Before
  // open_all().
  void adopt(const std::vector<NativeSocket>& by_slot);

  // layout.one_port, receivers: each worker gets an inbox (WorkerContext::inbox) instead of
  // listeners. Before open_all().
  Status open_inboxes();
  // Hands a data connection the sync listener admitted for `session` (its sender's sync
  // connection) to the next flow in turn (round-robin over the plan's flows, so the workers
  // share them); closed once the workers are stopped. Any thread.
  void hand_over(UniqueSocket socket, int session);
  // The workers close the connections of `sessions` (`all_but`: of every other session). Any
  // thread.
  void close_sessions(std::vector<int> sessions, bool all_but);

  // Starts the threads and waits until every worker has opened its sockets (or failed).
  Status open_all(std::chrono::milliseconds timeout);
  // Lets every worker enter its data loop.
  void release();
  // Asks every worker to leave its loop and collects their reports (idempotent).
  std::vector<WorkerReport> stop_and_join();

  uint32_t worker_count() const { return static_cast<uint32_t>(contexts_.size()); }
  Role role() const { return spec_.role; }
  const TestSpec& spec() const { return spec_; }
  // Per-slot counters, read without stopping the workers. With -lm each snapshot also ends the
  // current latency period (its calls are in the snapshot) and begins the next, so the snapshot
  // that ends a window holds exactly the calls timed since the one that began it.
  std::vector<CounterSnapshot> snapshot() const;
  // Per-slot bytes and calls alone, read without stopping the workers; -lm's periods untouched.
  std::vector<CounterSnapshot> flow_counts() const;
  uint64_t total_bytes() const;
  uint64_t total_operations() const;  // send/receive calls of every flow
  // --rr: every flow's round-trip histogram so far, by slot (empty without --rr).
  std::vector<HistogramCounts> rr_snapshot() const;
  // --rr: every flow's round trips so far in one histogram (empty without --rr).
  HistogramCounts rr_total() const;
  // UDP runs: every flow's datagram counters so far (empty for TCP).
  std::vector<udp::FlowRecord> udp_snapshot() const;
  // UDP receivers: the flows their workers named (the iperf2 dialect's streams), in order.
  std::vector<udp::FlowEnds> udp_flow_ends() const {
    return udp_flows_ ? udp_flows_->described() : std::vector<udp::FlowEnds>{};
  }
  bool is_udp() const { return udp_flows_ != nullptr; }
  // UDP: what the workers' sockets use (GRO on a receiver, datagrams per GSO send on a sender).
  bool udp_gro() const { return udp_flows_ && udp_flows_->gro.load(); }
  uint32_t udp_gso_segments() const { return udp_flows_ ? udp_flows_->gso_segments.load() : 0; }
  // TCP streams: the connections whose TCP_INFO is read at every interval; null otherwise.
  ConnectionWatch* connection_watch() const { return connection_watch_.get(); }
  // Sender connections still open (backends that count them; see WorkerContext).
  int64_t open_connections() const { return open_connections_.load(); }
  // The backend's own device counters (dpdk), for the phase edges; nullopt for kernel backends.
  std::optional<DeviceSnapshot> device_snapshot() const { return backend_.device_snapshot(); }
  // True when the backend counts its connections (some were counted once they opened).
  bool counts_connections() const { return counts_connections_; }
  // A TCP receiver whose workers count each connection's receives (io.count_reads): the
  // connection watch's readings carry them.
  bool counts_reads() const {
    return connection_watch_ && spec_.io.count_reads && spec_.role == Role::receiver;
  }
  // Every connection the workers opened, worker by worker (sender; -V prints them). Empty
  // unless open_all() succeeded.
  std::vector<OpenedConnection> opened_connections() const;

 private:
  void worker_main(uint32_t index);
  void notice(std::string_view line, bool error);

  Backend& backend_;
  const TestSpec& spec_;
  const Plan& plan_;
  std::unique_ptr<FlowCounter[]> counters_;
  std::unique_ptr<udp::UdpFlowRegistry> udp_flows_;    // UDP runs only
  std::unique_ptr<LatencyHistogram[]> rr_histograms_;  // --rr only, one per flow slot
  std::unique_ptr<ConnectionWatch> connection_watch_;  // TCP streams only
  std::vector<WorkerContext> contexts_;
  std::vector<std::thread> threads_;
  std::vector<WorkerReport> reports_;
  std::vector<std::vector<OpenedConnection>> opened_lists_;  // one list per worker (WorkerContext)
  // Per worker: its adopted sockets are still the pool's to close (no worker took them over).
  std::vector<char> adopted_unclaimed_;  // char, not bool: each worker writes its own
  std::vector<std::unique_ptr<ConnectionInbox>> inboxes_;  // one port: one per worker
  struct HandTarget {
    uint32_t worker;
    uint32_t slot;
  };
  std::vector<HandTarget> hand_order_;  // every flow once, in slot order
  std::atomic<uint64_t> next_hand_{0};
  void close_unclaimed(uint32_t index);
  bool all_opened_ = false;

  std::atomic<bool> stop_{false};
  std::atomic<int64_t> open_connections_{0};
  std::atomic<bool> refusal_said_{false};  // WorkerContext::refusal_said
  // -lm: the latency period the workers time calls into (FlowCounter). Mutable: moving to the
  // next period is part of reading the counters (snapshot() const).
  mutable std::atomic<uint64_t> latency_period_{1};
  bool counts_connections_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
  uint32_t opened_ = 0;
  bool released_ = false;
  bool joined_ = false;
  std::string first_error_;
  Log* notice_log_ = nullptr;
  std::mutex notice_mutex_;
  LineBudget notice_budget_{notice_lines, notice_period};
};

// Logs each worker's I/O errors (a count and the first one); false if there were any.
bool log_worker_errors(const std::vector<WorkerReport>& reports, Log& log);

}  // namespace xttcp
