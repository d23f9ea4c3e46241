// The receiver's lifecycle: listen on the data ports and the sync port (Windows dialect: the
// token ports, and the base port with -sp), wait for a sender's start (or the first connection
// with -N; every thread's connection with -ns), measure on its own clock, report; again with -H.
#include <fmt/format.h>

#include <mutex>
#include <thread>
#include <utility>

#include "engine/control/port_assignment.hh"
#include "engine/control/sync_server.hh"
#include "engine/control/token_exchange.hh"
#include "engine/control/windows_token.hh"
#include "engine/count_mode.hh"
#include "engine/net/socket_setup.hh"
#include "engine/report/log.hh"
#include "engine/report/native_json.hh"
#include "engine/run/hello.hh"
#include "engine/run/publish.hh"
#include "engine/run/result_builder.hh"
#include "engine/run/run_setup.hh"
#include "engine/run/run.hh"
#include "engine/run/start_gate.hh"
#include "engine/run/timeline.hh"
#include "engine/run/worker_pool.hh"
#include "engine/stats/system_probe.hh"
#include "engine/udp/udp_result.hh"

namespace xttcp {

namespace {

using std::chrono::seconds;

// Results that native (xttcp) senders send at their end, filled on the sync thread. Each native
// sender of the test owes one; a test waits for the ones it is owed.
class PeerResults {
 public:
  // A test starts whose senders include `native_senders` xttcp senders.
  void expect(int native_senders) {
    std::lock_guard lock(mutex_);
    owed_ = native_senders;
    results_.clear();
  }
  void add(Result result) {
    {
      std::lock_guard lock(mutex_);
      results_.push_back(std::move(result));
    }
    changed_.notify_all();
  }
  // A sender's result frame could not be read: it owes nothing more.
  void unreadable() {
    {
      std::lock_guard lock(mutex_);
      if (owed_ > 0) --owed_;
    }
    changed_.notify_all();
  }
  // Every result owed by the native senders of this test (-M: several), waiting up to `timeout`
  // for them. What has not come by then is written off (that sender died), so later tests do
  // not wait for it.
  std::vector<Result> take_all(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, timeout, [this] { return results_.size() >= static_cast<size_t>(owed_); });
    owed_ = 0;
    return std::exchange(results_, {});
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int owed_ = 0;
  std::vector<Result> results_;
};

// When the measured window is expected to end, so a lost sender can be told from a finished one.
class WindowWatch {
 public:
  void begin(SteadyClock::time_point measure_end) {
    std::lock_guard lock(mutex_);
    measure_end_ = measure_end;
    active_ = true;
  }
  void end() {
    std::lock_guard lock(mutex_);
    active_ = false;
  }
  // True if "now" is well inside the measured window.
  bool well_inside() const {
    std::lock_guard lock(mutex_);
    return active_ && SteadyClock::now() + std::chrono::milliseconds(500) < measure_end_;
  }
  // True once the measured window is over and the test is in its cool-down.
  bool cooling_down() const {
    std::lock_guard lock(mutex_);
    return active_ && SteadyClock::now() >= measure_end_;
  }

 private:
  mutable std::mutex mutex_;
  SteadyClock::time_point measure_end_{};
  bool active_ = false;
};

// NTttcp for Windows' receiver-side control plane on its own thread: the -sp port hand-out,
// then the token handshake; the gate opens once every thread has exchanged its token. Each
// thread's token listener is on its mapping's host (plan.hosts, resolved in `locals`).
class WindowsHandshakeServer {
 public:
  // Listens now (busy ports are reported before anything starts); nothing to do = no thread.
  static Expected<std::unique_ptr<WindowsHandshakeServer>> listen(
      const TestSpec& spec, const Plan& plan, const std::vector<SocketAddress>& locals) {
    auto server = std::make_unique<WindowsHandshakeServer>();
    server->first_data_port_ = windows_token::first_data_port(spec);
    server->threads_ = spec.ports;
    if (spec.dialect == Dialect::windows && spec.windows.sync_port) {
      // One host (check_windows_dialect_supported): the original hands out every port there.
      SocketAddress base = locals.front();
      base.set_port(spec.base_port);
      auto listener = listen_tcp(base, static_cast<int>(spec.ports));
      if (!listener) return fail("-sp: " + listener.error().message);
      server->port_listener_ = std::move(*listener);
    }
    if (windows_token::uses_tokens(spec)) {
      std::vector<SocketAddress> endpoints;
      for (const windows_token::TokenTarget& target : windows_token::token_targets(plan)) {
        endpoints.push_back(locals[target.host]);
        endpoints.back().set_port(target.port);
      }
      auto listeners = listen_token_ports(endpoints);
      if (!listeners) return listeners.error();
      server->token_listeners_ = std::move(*listeners);
    }
    return server;
  }
  ~WindowsHandshakeServer() { stop(); }

  bool has_work() const { return port_listener_.valid() || !token_listeners_.empty(); }
  bool opens_gate() const { return !token_listeners_.empty(); }

  // done(ok) once every port was handed out and every token exchanged, or done(error).
  void start(std::function<void(Status)> done) {
    thread_ = std::thread([this, done = std::move(done)] {
      if (port_listener_.valid()) {
        Status served = serve_assigned_ports(std::move(port_listener_), first_data_port_,
                                             threads_, stop_);
        if (!served) return done(served);
      }
      if (!token_listeners_.empty()) done(serve_tokens(std::move(token_listeners_), stop_));
    });
  }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  bool stopped() const { return stop_.load(); }

 private:
  uint16_t first_data_port_ = 0;
  uint32_t threads_ = 0;
  UniqueSocket port_listener_;
  std::vector<UniqueSocket> token_listeners_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace

int run_receiver(const TestSpec& spec, RunEnv& env) {
  Log& log = env.log;
  // -sp (Windows dialect): the data ports start one above the base port.
  TestSpec data_spec = spec;
  data_spec.base_port = windows_token::first_data_port(spec);
  auto setup = prepare_run(data_spec);
  if (!setup) {
    log.error(setup.error().message);
    return exit_code::usage;
  }
  const Plan& plan = setup->plan;
  // Every address the flows listen on, resolved once; the first also serves the control plane.
  auto locals = resolve_hosts(spec, plan, "-r");
  if (!locals) {
    log.error(locals.error().message);
    return exit_code::usage;
  }
  const char* named_by = spec.dialect == Dialect::windows ? "-m" : "-r";
  for (const SocketAddress& address : *locals) {
    // A raw-frame backend (dpdk) owns its address on its own port, unknown to the kernel.
    if ((setup->backend->capabilities() & cap_raw_frames) == 0 && !is_local_address(address)) {
      log.error(fmt::format("{}: cannot listen on {}: it is not an address of this host", named_by,
                            address.host()));
      return exit_code::usage;
    }
  }
  SocketAddress local = locals->front();
  local.set_port(spec.base_port);
  log.debug(fmt::format("{} worker thread(s) serve {} port(s): {}", plan.workers.size(),
                        spec.ports, plan.describe_cpus()));

  StartGate gate;
  const CancelHook wake_gate = env.clock.add_cancel_hook([&gate, &env] {
    if (user_interrupted(env)) gate.interrupt();
  });
  std::function<void()> on_accept;
  std::atomic<uint32_t> accepted{0};
  // When the first thread's connection (UDP: datagram) came: count mode's window starts there.
  std::atomic<SteadyClock::rep> first_accept{0};
  if (spec.no_sync && spec.dialect == Dialect::windows) {
    // NTttcp for Windows -ns: the clock starts once every thread has its connection.
    on_accept = [&gate, &accepted, &first_accept, threads = spec.ports, cycle = spec.cycle_s()] {
      SteadyClock::rep none = 0;
      first_accept.compare_exchange_strong(none, SteadyClock::now().time_since_epoch().count());
      if (accepted.fetch_add(1) + 1 == threads) gate.open(cycle);
    };
  } else if (spec.no_sync) {
    on_accept = [&gate, cycle = spec.cycle_s()] { gate.open(cycle); };
  }

  SystemProbe probe(spec);
  const HostInfo host = read_host_info();
  // Count mode: the run ends once every thread's connection was closed by its sender (UDP:
  // every sender flow's end marker arrived).
  std::atomic<uint32_t> flows_done{0};
  std::function<void()> on_flow_done;
  if (count_mode(spec))
    on_flow_done = [&flows_done, &env, threads = spec.ports, udp = spec.protocol == Protocol::udp] {
      if (flows_done.fetch_add(1) + 1 == threads)
        env.clock.finish(StopCause::flows_done,
                         udp ? "count mode: every sender thread's end marker arrived"
                             : "count mode: every sender thread closed its connection");
    };
  WorkerPool pool(*setup->backend, spec, plan, local, local, on_accept, on_flow_done, *locals);
  pool.set_notice_log(&log);
  if (Status opened = pool.open_all(seconds(10)); !opened) {
    log.error(opened.error().message);
    return exit_code::run_failed;
  }

  auto windows_handshake = WindowsHandshakeServer::listen(spec, plan, *locals);
  if (!windows_handshake) {
    log.error(windows_handshake.error().message);
    return exit_code::run_failed;
  }
  std::atomic<bool> handshake_failed{false};
  if ((*windows_handshake)->has_work()) {
    const bool opens_gate = (*windows_handshake)->opens_gate();
    (*windows_handshake)->start([&, opens_gate](Status done) {
      if (done && opens_gate) return gate.open(spec.cycle_s());
      if (done || (*windows_handshake)->stopped()) return;
      log.error(done.error().message);
      handshake_failed = true;
      gate.interrupt();
    });
  }

  PeerResults peers;
  WindowWatch watch;
  std::unique_ptr<SyncServer> server;
  if (!spec.no_sync && spec.dialect != Dialect::windows) {
    SyncServerHooks hooks;
    hooks.native_hello = [&](const std::string&) { return hello_json(spec); };
    hooks.start = [&gate, &peers, &pool](uint32_t cycle_s, int native_senders) {
      peers.expect(native_senders);
      gate.open(cycle_s, pool.snapshot());
    };
    hooks.early_exit = [&env] {
      env.clock.cancel(StopCause::sender_stopped, "test exited because sender side was interrupted");
    };
    hooks.peer_result = [&peers, &log](const std::string& frame) {
      auto result = parse_peer_result(frame, Role::sender);
      if (!result) {
        log.error("sync: the sender's result is ignored: " + result.error().message);
        return peers.unreadable();
      }
      peers.add(std::move(*result));
    };
    hooks.peer_closed = [&](ReceiverSync::Departure departure) {
      if (!departure.left_running_test) return;
      if (watch.well_inside())
        env.clock.cancel(StopCause::sender_left,
                         "the sender closed its sync connection during the test");
      else if (departure.no_sender_left && watch.cooling_down())
        env.clock.finish(StopCause::senders_gone, "every sender has left: cool-down ended");
    };
    hooks.log = [&log](std::string_view line, bool is_error) {
      is_error ? log.error(line) : log.info(line);
    };
    SocketAddress sync_address = local;
    sync_address.set_port(spec.sync_port());
    auto listening = SyncServer::listen(
        sync_address, {spec.multi_clients, spec.duration_s, spec.cycle_s()}, hooks);
    if (!listening) {
      log.error(listening.error().message);
      return exit_code::run_failed;
    }
    server = std::move(*listening);
    server->start();
  }
  log.info(fmt::format("{} threads created", spec.ports + (server ? 1 : 0)));
  const std::vector<CounterSnapshot> before_release = pool.snapshot();  // count mode's window start
  pool.release();
  if (env.on_listening) env.on_listening();

  int code = exit_code::success;
  Timeline timeline(env.clock, pool, probe, log, spec.interval_s);
  for (;;) {
    if (user_interrupted(env)) break;
    env.clock.reset();
    // -H: this test's flows are those active from here (before the gate: with -N the first
    // datagram opens it and must count).
    const std::vector<udp::FlowRecord> udp_at_start = pool.udp_snapshot();
    const std::optional<uint32_t> cycle = gate.wait(seconds(spec.wait_timeout_s));
    if (!cycle) {
      if (handshake_failed) {
        code = exit_code::run_failed;
      } else if (!gate.interrupted()) {
        log.error(fmt::format("no sender started a test within {} s (--wait-timeout)",
                              spec.wait_timeout_s));
        code = exit_code::run_failed;
      }
      break;
    }
    if (spec.no_sync || spec.dialect == Dialect::windows) log.info("Network activity progressing...");
    StartGate::Opening opening = gate.take_opening();
    const auto start = opening.counts.empty() ? SteadyClock::now() : opening.at;
    if (!opening.counts.empty()) timeline.begin_from(std::move(opening.counts));
    // Continuous mode (-t 0) has no window: a sender leaving never ends it (Ctrl+C does).
    if (spec.duration_s != 0) watch.begin(start + seconds(spec.warmup_s + spec.duration_s));
    if (count_mode(spec)) {
      std::optional<SteadyClock::time_point> since;
      if (const SteadyClock::rep first = first_accept.exchange(0); first != 0)
        since = SteadyClock::time_point(SteadyClock::duration(first));
      timeline.begin_from(before_release, since);
    }
    const MeasuredWindow window =
        timeline.run({spec.warmup_s, spec.duration_s, *cycle, spec.windows.sample_s}, start);
    watch.end();
    if (server) server->test_finished();
    gate.finished();
    const bool interrupted_by_user = user_interrupted(env);
    // UDP: the workers go on receiving until every native sender's result (its sent counts)
    // has come, plus a moment for the datagrams still in flight, so loss is counted exactly.
    std::vector<Result> early_peer_results;
    std::vector<UdpFlowResult> udp_senders;
    const bool sender_gone = env.clock.cause() == StopCause::sender_left;
    if (spec.protocol == Protocol::udp && server && window.measured && !interrupted_by_user &&
        !sender_gone) {
      early_peer_results = peers.take_all(seconds(5 + spec.cooldown_s));
      for (const Result& sender : early_peer_results)
        for (UdpFlowResult& flow : udp::sent_flows_in(sender)) udp_senders.push_back(flow);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    // With -H the workers go on serving; their reports come at the very end.
    const std::vector<WorkerReport> reports =
        spec.hold ? std::vector<WorkerReport>{} : pool.stop_and_join();
    for (const WorkerReport& report : reports)
      if (report.errors > 0) {
        log.error(fmt::format("{} I/O error(s); first: {}", report.errors, report.first_error));
        code = exit_code::run_failed;
      }
    if (!window.measured) {
      if (!interrupted_by_user && spec.duration_s != 0) {
        log.error("the test ended before its measured window began: " +
                  env.clock.reason().message);
        code = exit_code::run_failed;
      }
      if (!spec.hold || interrupted_by_user) break;
      continue;
    }

    RunFacts facts{&spec, &plan, std::string(setup->backend->name()), host, *cycle,
                   spec.ports + (server ? 1 : 0),
                   udp::active_since(pool.udp_snapshot(), udp_at_start), std::move(udp_senders),
                   pool.udp_gro(), pool.udp_gso_segments()};
    Result result = build_result(facts, window, reports);
    if (server) {
      server->publish_result(render_peer_frame(result));
      // A sender that went away owes nothing worth waiting for.
      std::vector<Result> results = std::move(early_peer_results);
      if (results.empty()) results = peers.take_all(sender_gone ? seconds(0) : seconds(5));
      if (!results.empty()) result.peer = std::make_shared<const Result>(std::move(results.front()));
    }
    const bool sender_lost = window.cut_short && sender_gone;
    if (window.cut_short) log.info("test was cut short: " + env.clock.reason().message);
    if (env.result_out) *env.result_out = result;
    if (env.print_results && !publish_result(result, log)) code = exit_code::run_failed;
    if (sender_lost) {
      log.error(fmt::format("the sender went away {:.2f} s into a {} s test",
                            window.seconds, spec.duration_s));
      code = exit_code::run_failed;
    }
    if (!spec.hold || interrupted_by_user) break;
  }
  if (server) server->stop();
  (*windows_handshake)->stop();
  for (const WorkerReport& report : pool.stop_and_join())
    if (report.errors > 0 && spec.hold) {
      log.error(fmt::format("{} I/O error(s); first: {}", report.errors, report.first_error));
      code = exit_code::run_failed;
    }
  return code;
}

}  // namespace xttcp
