// The sender's lifecycle as a script of steps: prepare (plan, hosts, source), agree with the
// receiver through the control plane (control_plane/sender_control.hh), connect every flow,
// start, warm-up / measure / cool-down, tell the receiver, report (both sides' results when the
// receiver is xttcp).
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "engine/control/windows_token.hh"
#include "engine/count_mode.hh"
#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"
#include "engine/report/interval_sink.hh"
#include "engine/report/interval_stream.hh"
#include "engine/report/linux_console.hh"
#include "engine/report/log.hh"
#include "engine/rss/spread_check.hh"
#include "engine/rss/spread_flows.hh"
#include "engine/run/control_plane/sender_control.hh"
#include "engine/run/hello.hh"
#include "engine/run/publish.hh"
#include "engine/run/result_builder.hh"
#include "engine/run/result_checks.hh"
#include "engine/run/reverse_roles.hh"
#include "engine/run/run_setup.hh"
#include "engine/run/second_direction.hh"
#include "engine/run/run.hh"
#include "engine/run/timeline.hh"
#include "engine/run/worker_pool.hh"
#include "engine/stats/system_probe.hh"

namespace xttcp {

namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// What a sender needs before it talks to anyone: the backend and plan, every host resolved.
struct SenderSetup {
  RunSetup run;
  std::vector<SocketAddress> receivers;  // plan.hosts resolved; the first is the control peer
  SocketAddress local;                   // -a, or any address
  std::optional<SocketAddress> source;   // -a when given
};

// `failure`: the exit code if it fails (a bad plan is a usage error; a host, a run failure).
Expected<SenderSetup> prepare_sender(const TestSpec& spec, Backend& backend, int* failure) {
  *failure = exit_code::usage;
  // -sp (Windows dialect): the data ports start one above the base port.
  TestSpec data_spec = spec;
  data_spec.layout.base_port = windows_token::first_data_port(spec);
  auto setup = prepare_run(data_spec, backend);
  if (!setup) return setup.error();
  *failure = exit_code::run_failed;
  auto receivers = resolve_hosts(spec, setup->plan, "-s");
  if (!receivers) return receivers.error();
  auto local = resolve(spec.layout.source_address, 0, spec.layout.ipv6);
  if (!local) return fail("-a: " + local.error().message);
  SenderSetup sender{std::move(*setup), std::move(*receivers), *local, std::nullopt};
  if (!spec.layout.source_address.empty()) sender.source = *local;
  return sender;
}

// Count mode: the run ends once every flow has sent its N buffers (or, when the backend counts
// connections, once every flow is done or its receiver closed it: NTttcp's receiver stops after
// N receive calls, which short reads reach before N buffers came).
class CountModeEnd {
 public:
  CountModeEnd(const TestSpec& spec, const Plan& plan, PhaseClock& clock)
      : flows_(plan.flow_count), buffers_(spec.workload.buffer_count.value_or(0)), clock_(clock) {}
  std::function<void()> on_flow_done() {
    return [this] {
      if (done_.fetch_add(1) + 1 == flows_)
        clock_.finish(StopCause::flows_done,
                      fmt::format("count mode: every thread sent its {} buffers", buffers_));
    };
  }
  // Reported, not an error: NTttcp's sender ends so too.
  void check_closed(int64_t closed) {
    if (closed > 0 && done_.load() + static_cast<uint64_t>(closed) >= flows_)
      clock_.finish(StopCause::flows_done,
                    fmt::format("count mode: every thread sent its {} buffers or its receiver "
                                "closed its connection ({} closed early)",
                                buffers_, closed));
  }

 private:
  uint64_t flows_;
  uint64_t buffers_;
  PhaseClock& clock_;
  std::atomic<uint64_t> done_{0};
};

// Opens every flow's connection: an error line and false when one could not be made.
bool connect_flows(const TestSpec& spec, WorkerPool& pool, Log& log) {
  const auto connect_start = SteadyClock::now();
  Status opened = pool.open_all(seconds(spec.control.connect_timeout_s + 5));
  log.info(fmt::format("{} threads created", spec.sender_threads()));
  if (!opened) {
    log.error(opened.error().message);
    return false;
  }
  if (log.verbose() && spec.dialect == Dialect::linux)  // -V: the original's line per connection
    for (const OpenedConnection& c : pool.opened_connections())
      log.debug(linux_connection_line(c.udp ? SenderSocket::udp_data : SenderSocket::tcp_data,
                                      c.local_port, c.socket, c.remote.host(), c.remote.port()));
  log.info(fmt::format(
      "{} connections created in {} microseconds", spec.sender_connections(),
      std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - connect_start)
          .count()));
  return true;
}

// --reverse: every flow's connection, made here to the receiver's one port with the session's
// preamble, in slot order; the receiver sends on them and this end's workers receive. One line
// naming the flow when one cannot be made.
// --bidir: the return connections take ephemeral source ports (the plan's, fixed by -f or
// spread over the receiver's RSS queues, are the forward connections': the same four-tuple
// twice cannot connect).
Expected<std::vector<NativeSocket>> connect_reverse_streams(
    const TestSpec& spec, const Plan& plan, const std::vector<SocketAddress>& receivers,
    const SocketAddress& local, const std::vector<unsigned char>& preamble) {
  const std::string option = reverse_option(spec);
  const bool plan_ports = !spec.workload.bidir;
  std::vector<const FlowPlan*> flows(plan.flow_count, nullptr);
  for (const WorkerPlan& worker : plan.workers)
    for (const FlowPlan& flow : worker.flows) flows.at(flow.slot) = &flow;
  std::vector<UniqueSocket> made;
  for (const FlowPlan* flow : flows) {
    SocketAddress remote = receivers.at(flow->host);
    remote.set_port(spec.layout.base_port);
    ConnectOptions options;
    options.no_delay = spec.io.no_delay;
    const uint16_t source_port = plan_ports ? flow->source_port : uint16_t{0};
    if (!spec.layout.source_address.empty() || source_port != 0) {
      SocketAddress source = local;
      source.set_port(source_port);
      options.source = source;
    }
    auto socket = connect_tcp(remote, options, seconds(spec.control.connect_timeout_s));
    if (!socket)
      return fail(fmt::format("{}: connection {} to {}: {}", option, flow->slot + 1,
                              remote.to_string(), socket.error().message));
    const SocketTransfer sent =
        send_some(socket->get(), reinterpret_cast<const char*>(preamble.data()), preamble.size());
    if (sent.bytes != static_cast<int64_t>(preamble.size()))
      return fail(fmt::format("{}: connection {} to {}: cannot send its preamble", option,
                              flow->slot + 1, remote.to_string()));
    made.push_back(std::move(*socket));
  }
  std::vector<NativeSocket> by_slot;
  for (UniqueSocket& socket : made) by_slot.push_back(socket.release());
  return by_slot;
}

// Every connection's ends in flow-slot order, for the live report (the iperf2 dialect's -y C
// interval rows).
std::vector<StreamEnds> stream_ends(const WorkerPool& pool) {
  std::vector<OpenedConnection> opened = pool.opened_connections();
  std::stable_sort(
      opened.begin(), opened.end(),
      [](const OpenedConnection& a, const OpenedConnection& b) { return a.slot < b.slot; });
  std::vector<StreamEnds> ends;
  for (const OpenedConnection& c : opened) {
    auto local = local_address_of(static_cast<NativeSocket>(c.socket));
    ends.push_back({local ? local->to_string() : std::string(), c.remote.to_string()});
  }
  return ends;
}

// The window, from `start`: the instant the receiver said go, as its own window starts when it
// says so (NTTTCP: the sender's clock starts on reading 'R'). It begins from the counters taken
// before the workers are released, so a slow start on a loaded host is the same dead time in
// both windows, not bytes one end counts and the other does not. A receiver that dies mid-test
// shows as its connections closing (or its control connection hanging up); near the end of the
// window that is just the receiver finishing first.
MeasuredWindow measure(const TestSpec& spec, uint32_t cycle_s, SteadyClock::time_point start,
                       WorkerPool& pool, SenderControl& control, CountModeEnd& count_end,
                       const SystemProbe& probe, SecondDirection* back, RunEnv& env) {
  Timeline timeline(env.clock, pool, probe, env.log, spec.output.interval_s);
  timeline.add_sink(env.intervals, spec.role);
  timeline.add_sink(env.live_report, spec.role);
  const Phases phases{spec.workload.warmup_s, spec.workload.duration_s, cycle_s,
                      spec.output.sample_s};
  timeline.begin_now();
  const int64_t connections_at_start = pool.open_connections();
  pool.release();
  if (back != nullptr) back->start(env.clock, env.log, phases, start);  // --bidir
  const auto lost_deadline =
      start + seconds(spec.workload.warmup_s + spec.workload.duration_s) - milliseconds(500);
  timeline.set_watch([&]() -> std::optional<StopReason> {
    if (count_mode(spec) && pool.counts_connections()) {
      count_end.check_closed(connections_at_start - pool.open_connections());
      return std::nullopt;
    }
    if (SteadyClock::now() >= lost_deadline) return std::nullopt;
    if (pool.counts_connections() && pool.open_connections() <= 0)
      return StopReason{StopCause::receiver_left, "the receiver closed every connection"};
    return control.receiver_gone();
  });
  return timeline.run(phases, start);
}

// Our result (with --bidir, both directions') and, from an xttcp receiver, its result; printed
// and written. `code` so far.
int report(const RunFacts& facts, const MeasuredWindow& window,
           const std::vector<WorkerReport>& reports, std::optional<Result> back,
           const SourcePortSpread& source_ports, SenderControl& control, bool receiver_lost,
           RunEnv& env, int code) {
  Result result = build_result(facts, window, reports);
  result.source_ports = source_ports;
  if (back) {
    share_cpu_between_directions(result, *back);
    result.other_direction = std::make_shared<const Result>(*back);
  }
  if (auto peer = control.exchange_results(result); !peer) {
    env.log.error(peer.error().message);
    code = exit_code::run_failed;
  } else if (*peer) {
    if (std::optional<std::string> refused = refused_peer_result(**peer)) {
      env.log.error(*refused);
      result.notes.push_back(*refused);
      code = exit_code::run_failed;
    } else {
      Result& theirs = **peer;
      // --bidir: the receiver's result for the direction back came inside its own.
      if (!back)
        drop_other_direction(theirs);
      else if (std::optional<std::string> unusable = take_second_peer(theirs, *back)) {
        env.log.error(*unusable);
        back->notes.push_back(*unusable);
        code = exit_code::run_failed;
      }
      result.peer = std::make_shared<const Result>(std::move(theirs));
    }
  }
  std::optional<std::string> back_mismatch;
  if (back) {
    // The receiver sent, this end received.
    if (back->peer && (back_mismatch = count_mismatch(*back->peer, *back)))
      back->notes.push_back(*back_mismatch);
    result.other_direction = std::make_shared<const Result>(std::move(*back));
  }
  if (result.peer && source_ports.spread)
    result.spread_check = check_spread(
        source_ports, result.peer->queue_window ? &*result.peer->queue_window : nullptr);
  // --reverse: the peer sent, this end received.
  const std::optional<std::string> mismatch =
      !result.peer ? std::nullopt
      : result.spec.workload.reverse && result.role == Role::receiver
          ? count_mismatch(*result.peer, result)
          : count_mismatch(result, *result.peer);
  if (mismatch) result.notes.push_back(*mismatch);
  if (env.result_out) *env.result_out = result;
  if (env.intervals) env.intervals->end(result);
  if (env.print_results && !publish_result(result, env.log)) code = exit_code::run_failed;
  if (receiver_lost) {
    env.log.error(fmt::format("{} {:.2f} s into a {} s test", env.clock.reason().message,
                              window.seconds, facts.spec->workload.duration_s));
    code = exit_code::run_failed;
  }
  if (mismatch) {
    env.log.error(*mismatch);
    code = exit_code::run_failed;
  }
  if (back_mismatch) {
    env.log.error("--bidir, the direction back: " + *back_mismatch);
    code = exit_code::run_failed;
  }
  return code;
}

}  // namespace

// --udp-payload auto: native unless the receiver is known to be NTTTCP (it answered the sync
// protocol without xttcp's hello); without sync nobody knows, and native is read by xttcp and
// ignored by NTTTCP alike.
TestSpec settle_udp_payload(const TestSpec& spec, bool native_peer, Log& log) {
  TestSpec settled = spec;
  if (spec.workload.protocol != Protocol::udp || spec.workload.udp_payload != UdpPayload::automatic)
    return settled;
  settled.workload.udp_payload =
      native_peer || spec.control.no_sync ? UdpPayload::native : UdpPayload::compat;
  if (settled.workload.udp_payload == UdpPayload::compat)
    log.info("UDP: the receiver is not xttcp; sending NTTTCP's payload (no loss accounting)");
  return settled;
}

int run_sender(const TestSpec& requested, RunEnv& env) {
  Log& log = env.log;
  TestSpec spec = requested;
  int setup_failure = exit_code::usage;
  auto setup = prepare_sender(spec, env.choice.backend, &setup_failure);
  if (!setup) {
    log.error(setup.error().message);
    return setup_failure;
  }
  int code = exit_code::success;
  const Plan& plan = setup->run.plan;  // source ports are settled after agree() (spread_flows)
  log.debug(fmt::format("{} worker thread(s) run {} connection(s): {}", plan.workers.size(),
                        spec.sender_connections(), plan.describe_cpus()));

  const std::atomic<bool> never{false};
  // UDP: the flow ids the workers will use, declared to the receiver before they exist.
  const uint32_t udp_flow_base = WorkerPool::pick_udp_flow_base();
  const uint16_t udp_flow_token = WorkerPool::pick_udp_flow_token();
  std::optional<udp::DeclaredFlows> udp_flows;
  if (declares_udp_flows(spec))
    udp_flows = udp::DeclaredFlows{udp_flow_base, plan.flow_count, udp_flow_token};
  const auto control =
      make_sender_control({spec, plan, setup->receivers, setup->source,
                           env.interrupted != nullptr ? *env.interrupted : never, log, udp_flows});
  auto agreement = control->agree();
  if (!agreement) {
    log.error(agreement.error().message);
    return exit_code::run_failed;
  }
  spec = settle_udp_payload(spec, agreement->native, log);
  // --reverse: the receiver sends, so its RX queues (what source ports spread over) are moot.
  const bool reverse = spec.workload.reverse;
  SourcePortSpread source_ports;
  if (!reverse) {
    source_ports =
        spread_source_ports({spec, agreement->native, agreement->peer_rss, agreement->control_local,
                             setup->receivers.front(), setup->local},
                            setup->run.plan);
    log.debug("source ports: " + source_ports.why);
  }
  // What this end's workers run: the test, or with --reverse its receiving half
  // (reverse_roles.hh), one flow per connection this end makes; --bidir runs both, the
  // receiving half beside.
  const bool bidir = spec.workload.bidir;
  const TestSpec data_spec = reverse ? reverse_receiving_spec(spec) : spec;
  Plan reverse_plan;
  std::unique_ptr<SecondDirection> back;
  if (reverse || bidir) {
    const TestSpec receiving_spec = reverse_receiving_spec(spec);
    auto receiving = replan(receiving_spec, plan, *setup->run.backend);
    if (!receiving) {
      log.error(std::string(reverse_option(spec)) + ": " + receiving.error().message);
      return exit_code::run_failed;
    }
    if (reverse) {
      reverse_plan = std::move(*receiving);
    } else {
      back = std::make_unique<SecondDirection>();
      back->spec = receiving_spec;
      back->plan = std::move(*receiving);
      back->probe = std::make_unique<SystemProbe>(back->spec);
    }
  }
  const Plan& data_plan = reverse ? reverse_plan : plan;

  SystemProbe probe(spec);
  const HostInfo host = read_host_info();
  CountModeEnd count_end(spec, plan, env.clock);
  SocketAddress receiver = setup->receivers.front();
  receiver.set_port(spec.layout.base_port);
  WorkerPool pool(*setup->run.backend, data_spec, data_plan, setup->local, receiver, {},
                  count_mode(spec) ? count_end.on_flow_done() : std::function<void()>{},
                  setup->receivers);
  if (udp_flows) pool.set_udp_flow_ids(udp_flow_base, udp_flow_token);
  if (reverse) {
    auto streams = connect_reverse_streams(spec, plan, setup->receivers, setup->local,
                                           agreement->return_preamble);
    if (!streams) {
      log.error(streams.error().message);
      return exit_code::run_failed;
    }
    pool.adopt(*streams);
  } else {
    pool.set_connection_preamble(agreement->connection_preamble);
  }
  pool.set_interrupt(env.interrupted);
  if (!connect_flows(spec, pool, log)) return exit_code::run_failed;
  if (back) {
    back->pool = std::make_unique<WorkerPool>(*setup->run.backend, back->spec, back->plan,
                                              setup->local, receiver);
    auto streams = connect_reverse_streams(spec, plan, setup->receivers, setup->local,
                                           agreement->return_preamble);
    if (!streams) {
      log.error(streams.error().message);
      return exit_code::run_failed;
    }
    back->pool->adopt(*streams);
    back->pool->set_interrupt(env.interrupted);
    if (Status opened = back->pool->open_all(seconds(spec.control.connect_timeout_s + 5));
        !opened) {
      log.error("--bidir: " + opened.error().message);
      return exit_code::run_failed;
    }
    log.info(fmt::format("--bidir: {} more connections, for the receiver to send on",
                         back->plan.flow_count));
  }
  if (env.live_report) env.live_report->connected(stream_ends(pool));

  // Ctrl+C must also end a blocking wait to start (a parked -M sender waits up to minutes).
  const CancelHook unblock = env.clock.add_cancel_hook([&control, &env] {
    if (user_interrupted(env)) control->interrupt();
  });
  Status started = control->start();
  const auto start = SteadyClock::now();
  if (!started) {
    log.error(user_interrupted(env) ? std::string("interrupted while waiting to start")
                                    : started.error().message);
    return exit_code::run_failed;
  }
  log.info("Network activity progressing...");
  const MeasuredWindow window = measure(data_spec, agreement->cycle_s, start, pool, *control,
                                        count_end, probe, back.get(), env);
  const std::vector<WorkerReport> reports = pool.stop_and_join();
  const std::vector<WorkerReport> back_reports =
      back ? back->finish() : std::vector<WorkerReport>{};

  const bool receiver_lost = window.cut_short && env.clock.cause() == StopCause::receiver_left;
  const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start).count();
  if (Status told = control->stopped(elapsed, receiver_lost); !told) {
    log.error(told.error().message);
    code = exit_code::run_failed;
  }
  const bool forth_ok = log_worker_errors(reports, log);
  if (!log_worker_errors(back_reports, log) || !forth_ok) code = exit_code::run_failed;
  if (!window.measured) {
    if (spec.workload.duration_s == 0) return code;  // continuous mode never reports
    log.error("the test ended before its measured window began: " + env.clock.reason().message);
    return exit_code::run_failed;
  }

  const RunFacts facts{&data_spec,
                       &data_plan,
                       std::string(setup->run.backend->name()),
                       host,
                       agreement->cycle_s,
                       static_cast<uint32_t>(spec.sender_threads()),
                       pool.udp_snapshot(),
                       {},
                       pool.udp_gro(),
                       pool.udp_gso_segments()};
  std::optional<Result> back_result;
  if (back) {
    auto built = back->result(std::string(setup->run.backend->name()), host, agreement->cycle_s,
                              back_reports);
    if (built) {
      back_result = std::move(*built);
    } else {
      log.error(built.error().message);
      code = exit_code::run_failed;
    }
  }
  return report(facts, window, reports, std::move(back_result), source_ports, *control,
                receiver_lost, env, code);
}

}  // namespace xttcp
