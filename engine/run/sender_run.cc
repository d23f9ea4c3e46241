// The sender's lifecycle: sync (busy check, cycle negotiation, native hello; in the Windows
// dialect the -sp port hand-out and the token handshake instead), connect every flow, start,
// warm-up / measure / cool-down, early-exit notice, results (both sides' when the receiver is
// xttcp).
#include <fmt/format.h>

#include "engine/control/port_assignment.hh"
#include "engine/control/sync_client.hh"
#include "engine/control/sync_codes.hh"
#include "engine/control/token_exchange.hh"
#include "engine/control/windows_token.hh"
#include "engine/count_mode.hh"
#include "engine/net/socket_io.hh"
#include "engine/report/linux_console.hh"
#include "engine/report/log.hh"
#include "engine/report/native_json.hh"
#include "engine/run/hello.hh"
#include "engine/run/publish.hh"
#include "engine/run/result_builder.hh"
#include "engine/run/run_setup.hh"
#include "engine/run/run.hh"
#include "engine/run/timeline.hh"
#include "engine/run/worker_pool.hh"
#include "engine/stats/system_probe.hh"
#include "xttcp_config.h"

namespace xttcp {

namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// What the control plane agreed with the receiver.
struct Agreement {
  std::optional<SyncClient> sync;
  bool native = false;
  uint32_t cycle_s = 0;
};

Expected<Agreement> agree_with_receiver(const TestSpec& spec, const SocketAddress& receiver,
                                        const std::optional<SocketAddress>& source, Log& log) {
  Agreement agreement;
  agreement.cycle_s = spec.cycle_s();
  if (spec.no_sync) {
    log.info("Starting sender activity (no sync) ...");
    return agreement;
  }
  if (spec.dialect == Dialect::windows) return agreement;  // tokens, after the connections
  const milliseconds timeout = seconds(spec.connect_timeout_s);
  SocketAddress sync_address = receiver;
  sync_address.set_port(spec.sync_port());
  auto sync = SyncClient::connect(sync_address, source, timeout);
  if (!sync) return sync.error();
  auto local = local_address_of(sync->fd());
  log.debug(linux_connection_line(SenderSocket::sync, local ? local->port() : uint16_t{0},
                                  static_cast<int64_t>(sync->fd()), sync_address.host(),
                                  sync_address.port()));

  auto native = sync->try_native_hello(timeout);
  if (!native) return native.error();
  agreement.native = *native;
  if (agreement.native) {
    if (Status sent = sync->send_frame(hello_json(spec)); !sent) return sent.error();
    auto peer_hello = sync->read_frame(timeout);
    if (!peer_hello) return peer_hello.error();
    log.debug("receiver is xttcp: results will be exchanged at the end");
  }

  auto state = sync->exchange(sync_code::kQueryState, timeout);
  if (!state) return state.error();
  if (*state == sync_code::kStateRunning) return fail("sender: receiver is busy with another test");

  std::string note;
  const uint32_t proposal = safe_cycle_proposal(spec.cycle_s(), &note);
  if (!note.empty()) log.info(note);
  auto cycle = sync->exchange(static_cast<int32_t>(proposal), timeout);
  if (!cycle) return cycle.error();
  if (*cycle < 0) return fail("sync: receiver answered an invalid test cycle (" + std::to_string(*cycle) + ")");
  if (static_cast<uint32_t>(*cycle) != spec.duration_s) {
    if (*cycle == 0)
      log.info("test is negotiated to run with continuous mode");
    else
      log.info(fmt::format("Test cycle time negotiated is: {} seconds", *cycle));
  }
  agreement.cycle_s = static_cast<uint32_t>(*cycle);
  agreement.sync = std::move(*sync);
  return agreement;
}

Status request_start(const TestSpec& spec, SyncClient& sync, Log& log) {
  const milliseconds timeout = seconds(spec.connect_timeout_s);
  auto reply = sync.exchange(spec.last_client ? sync_code::kLastClientStart : sync_code::kStart,
                             timeout);
  if (!reply) return reply.error();
  if (*reply == sync_code::kPleaseWait) {
    // -M: parked until the -L sender arrives; bounded by --wait-timeout (default 10 minutes).
    const uint32_t wait_s = spec.wait_timeout_s > 0 ? spec.wait_timeout_s : 600;
    log.info(fmt::format("receiver is waiting for the last sender (-L); waiting up to {} s", wait_s));
    reply = sync.read_int(seconds(wait_s));
    if (!reply) return reply.error();
  }
  if (*reply != sync_code::kStart)
    return fail(fmt::format("sender: receiver refused to start the test (replied {})", *reply));
  return ok();
}

// NTttcp for Windows' control plane, both halves of it a sender speaks. Each thread talks to
// its own mapping's host (plan.hosts, resolved in `receivers`).
class WindowsHandshake {
 public:
  WindowsHandshake(const TestSpec& spec, const Plan& plan,
                   const std::vector<SocketAddress>& receivers,
                   const std::optional<SocketAddress>& source, const RunEnv& env)
      : spec_(spec), plan_(plan), receivers_(receivers), source_(source),
        cancel_(env.interrupted != nullptr ? *env.interrupted : never_),
        // The original retries its connects 100 times 100 ms apart: at least 10 s.
        timeout_(seconds(std::max<uint32_t>(spec.connect_timeout_s, 10))) {}

  // -sp: every thread asks its host's base port for its data port before connecting. Each host
  // hands out its own, base + 1 upwards, as the original's receivers do (the plan numbers the
  // data ports per host to match).
  Status fetch_data_ports(Log& log) const {
    if (spec_.dialect != Dialect::windows || !spec_.windows.sync_port) return ok();
    const std::vector<uint32_t> threads = windows_token::threads_per_host(plan_);
    for (size_t h = 0; h < receivers_.size(); ++h) {
      SocketAddress base = receivers_[h];
      base.set_port(spec_.base_port);
      auto ports = fetch_assigned_ports(base, threads[h], source_, timeout_, cancel_);
      if (!ports) return ports.error();
      if (Status expected =
              windows_token::check_assigned_ports(*ports, spec_.base_port, threads[h]);
          !expected)
        return fail(fmt::format("{} (from {})", expected.error().message, base.host()));
      log.debug(fmt::format("-sp: {} handed out data ports {}..{}", base.host(),
                            spec_.base_port + 1, spec_.base_port + threads[h]));
    }
    return ok();
  }

  // The token handshake, once every data connection is up (skipped with -ns): each thread's
  // token goes to its host on its data port + 1000.
  Status exchange_tokens(Log& log) const {
    if (!windows_token::uses_tokens(spec_)) return ok();
    std::vector<SocketAddress> endpoints;
    for (const windows_token::TokenTarget& target : windows_token::token_targets(plan_)) {
      endpoints.push_back(receivers_[target.host]);
      endpoints.back().set_port(target.port);
    }
    log.debug(fmt::format("token sync on ports {}..{} ({} host(s))", endpoints.front().port(),
                          endpoints.back().port(), receivers_.size()));
    return exchange_tokens_as_sender(endpoints, source_, timeout_, cancel_);
  }

 private:
  const TestSpec& spec_;
  const Plan& plan_;
  const std::vector<SocketAddress>& receivers_;
  const std::optional<SocketAddress>& source_;
  const std::atomic<bool> never_{false};
  const std::atomic<bool>& cancel_;
  milliseconds timeout_;
};

}  // namespace

// --udp-payload auto: native unless the receiver is known to be NTTTCP (it answered the sync
// protocol without xttcp's hello); without sync nobody knows, and native is read by xttcp and
// ignored by NTTTCP alike.
TestSpec settle_udp_payload(const TestSpec& spec, bool native_peer, Log& log) {
  TestSpec settled = spec;
  if (spec.protocol != Protocol::udp || spec.udp_payload != UdpPayload::automatic) return settled;
  settled.udp_payload = native_peer || spec.no_sync ? UdpPayload::native : UdpPayload::compat;
  if (settled.udp_payload == UdpPayload::compat)
    log.info("UDP: the receiver is not xttcp; sending NTTTCP's payload (no loss accounting)");
  return settled;
}

int run_sender(const TestSpec& requested, RunEnv& env) {
  Log& log = env.log;
  TestSpec spec = requested;
  // -sp (Windows dialect): the data ports start one above the base port.
  TestSpec data_spec = spec;
  data_spec.base_port = windows_token::first_data_port(spec);
  auto setup = prepare_run(data_spec);
  if (!setup) {
    log.error(setup.error().message);
    return exit_code::usage;
  }
  const Plan& plan = setup->plan;
  // Every host the flows go to, resolved once; the first is the control plane's peer.
  auto receivers = resolve_hosts(spec, plan, "-s");
  if (!receivers) {
    log.error(receivers.error().message);
    return exit_code::run_failed;
  }
  SocketAddress receiver = receivers->front();
  receiver.set_port(spec.base_port);
  std::optional<SocketAddress> source;
  auto local = resolve(spec.source_address, 0, spec.ipv6);
  if (!local) {
    log.error("-a: " + local.error().message);
    return exit_code::run_failed;
  }
  if (!spec.source_address.empty()) source = *local;

  log.debug(fmt::format("{} worker thread(s) run {} connection(s): {}", plan.workers.size(),
                        spec.sender_connections(), plan.describe_cpus()));

  auto agreement = agree_with_receiver(spec, receiver, source, log);
  if (!agreement) {
    log.error(agreement.error().message);
    return exit_code::run_failed;
  }
  spec = settle_udp_payload(spec, agreement->native, log);
  const WindowsHandshake windows(spec, plan, *receivers, source, env);
  if (Status ports = windows.fetch_data_ports(log); !ports) {
    log.error(ports.error().message);
    return exit_code::run_failed;
  }

  SystemProbe probe(spec);
  const HostInfo host = read_host_info();
  // Count mode: the run ends once every flow has sent its N buffers.
  std::atomic<uint32_t> flows_done{0};
  std::function<void()> on_flow_done;
  if (count_mode(spec))
    on_flow_done = [&flows_done, &env, flows = plan.flow_count,
                    buffers = *spec.windows.buffer_count] {
      if (flows_done.fetch_add(1) + 1 == flows)
        env.clock.finish(fmt::format("count mode: every thread sent its {} buffers", buffers));
    };
  WorkerPool pool(*setup->backend, spec, plan, *local, receiver, {}, on_flow_done, *receivers);
  const auto connect_start = SteadyClock::now();
  Status opened = pool.open_all(seconds(spec.connect_timeout_s + 5));
  log.info(fmt::format("{} threads created", spec.sender_threads()));
  if (!opened) {
    log.error(opened.error().message);
    return exit_code::run_failed;
  }
  const int64_t connections_at_start = pool.open_connections();
  if (log.verbose() && spec.dialect == Dialect::linux)
    for (const OpenedConnection& c : pool.opened_connections())
      log.debug(linux_connection_line(c.udp ? SenderSocket::udp_data : SenderSocket::tcp_data,
                                      c.local_port, c.socket, c.remote.host(), c.remote.port()));
  log.info(fmt::format("{} connections created in {} microseconds", spec.sender_connections(),
                       std::chrono::duration_cast<std::chrono::microseconds>(
                           SteadyClock::now() - connect_start).count()));

  // Ctrl+C must also end a blocking sync wait (a parked -M sender waits up to minutes).
  SyncClient* sync = agreement->sync ? &*agreement->sync : nullptr;
  const CancelHook unblock_sync = env.clock.add_cancel_hook([sync, &env] {
    if (sync != nullptr && user_interrupted(env)) shutdown_socket(sync->fd());
  });
  if (Status synced = windows.exchange_tokens(log); !synced) {
    log.error(user_interrupted(env) ? std::string("interrupted while waiting to start")
                                    : synced.error().message);
    return exit_code::run_failed;
  }
  if (sync) {
    if (Status started = request_start(spec, *sync, log); !started) {
      log.error(user_interrupted(env) ? std::string("interrupted while waiting to start")
                                      : started.error().message);
      return exit_code::run_failed;
    }
  }
  log.info("Network activity progressing...");
  Timeline timeline(env.clock, pool, probe, log, spec.interval_s);
  if (count_mode(spec)) timeline.begin_from(pool.snapshot());
  const auto start = SteadyClock::now();
  pool.release();

  // A receiver that dies mid-test shows as its connections closing (or its sync connection
  // hanging up); near the end of the window that is just the receiver finishing first.
  const auto lost_deadline =
      start + seconds(spec.warmup_s + spec.duration_s) - milliseconds(500);
  timeline.set_watch([&]() -> std::optional<std::string> {
    if (count_mode(spec) && pool.counts_connections()) {
      // A connection its receiver closed is over too: NTttcp's receiver stops after N receive
      // calls, which short reads reach before N buffers came. Done + closed = every flow ends
      // the run (reported, not an error: NTttcp's sender ends so too).
      const int64_t closed = connections_at_start - pool.open_connections();
      if (closed > 0 && flows_done.load() + static_cast<uint64_t>(closed) >= plan.flow_count)
        env.clock.finish(fmt::format("count mode: every thread sent its {} buffers or its "
                                     "receiver closed its connection ({} closed early)",
                                     *spec.windows.buffer_count, closed));
      return std::nullopt;
    }
    if (SteadyClock::now() >= lost_deadline) return std::nullopt;
    if (pool.counts_connections() && pool.open_connections() <= 0)
      return "the receiver closed every connection";
    if (sync != nullptr && peer_hung_up(sync->fd())) return "the receiver closed the sync connection";
    return std::nullopt;
  });
  const MeasuredWindow window = timeline.run(
      {spec.warmup_s, spec.duration_s, agreement->cycle_s, spec.windows.sample_s}, start);
  const std::vector<WorkerReport> reports = pool.stop_and_join();

  // NTTTCP-for-Linux tells the receiver when it stopped before the agreed cycle; a native peer
  // always hears it, since it then waits for our result.
  int code = exit_code::success;
  const bool receiver_lost = window.cut_short && !user_interrupted(env) &&
                             env.clock.reason().rfind("the receiver", 0) == 0;
  const milliseconds timeout = seconds(spec.connect_timeout_s);
  const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start).count();
  if (sync && !receiver_lost && (agreement->native || elapsed < agreement->cycle_s)) {
    if (auto state = sync->exchange(sync_code::kEarlyExit, timeout); !state) {
      // NTTTCP-for-Linux closes its sync connection as soon as its own window ends; only a
      // native peer, which still owes us its result, must be there (unless Ctrl+C stopped
      // both ends, as it does to a continuous -t 0 run).
      if (agreement->native && !user_interrupted(env)) {
        log.error(state.error().message);
        code = exit_code::run_failed;
      } else {
        log.debug("the receiver had already closed the sync connection: " + state.error().message);
      }
    }
  }

  for (const WorkerReport& report : reports) {
    if (report.errors == 0) continue;
    log.error(fmt::format("{} I/O error(s); first: {}", report.errors, report.first_error));
    code = exit_code::run_failed;
  }
  if (!window.measured) {
    if (spec.duration_s == 0) return code;  // continuous mode never reports
    log.error("the test ended before its measured window began: " + env.clock.reason());
    return exit_code::run_failed;
  }

  RunFacts facts{&spec, &plan, std::string(setup->backend->name()), host, agreement->cycle_s,
                 static_cast<uint32_t>(spec.sender_threads()), pool.udp_snapshot(), {},
                 pool.udp_gro(), pool.udp_gso_segments()};
  Result result = build_result(facts, window, reports);
  if (sync && agreement->native && !receiver_lost) {
    if (Status sent = sync->send_frame(render_native_json(result)); !sent) {
      log.error(sent.error().message);
      code = exit_code::run_failed;
    } else if (auto peer = sync->read_frame(timeout + seconds(spec.cooldown_s + 5)); peer) {
      result.peer_result_json = *peer;
    } else {
      log.error("no result from the receiver: " + peer.error().message);
      code = exit_code::run_failed;
    }
  }
  if (window.cut_short) log.info("test was cut short: " + env.clock.reason());
  if (env.result_out) *env.result_out = result;
  if (env.print_results && !publish_result(result, log)) code = exit_code::run_failed;
  if (receiver_lost) {
    log.error(fmt::format("{} {:.2f} s into a {} s test", env.clock.reason(), window.seconds,
                          spec.duration_s));
    code = exit_code::run_failed;
  }
  return code;
}

}  // namespace xttcp
