#include "engine/iperf3/server_run.hh"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>
#include <thread>

#include "engine/iperf3/console.hh"
#include "engine/iperf3/errors.hh"
#include "engine/iperf3/server_session.hh"
#include "engine/net/os_socket.hh"
#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"
#include "engine/report/log.hh"
#include "engine/run/result_builder.hh"
#include "engine/run/run_setup.hh"
#include "engine/run/timeline.hh"
#include "engine/run/worker_pool.hh"
#include "engine/stats/system_probe.hh"

namespace xttcp::iperf3 {

namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Every wait on a peer is bounded (3.12 waits for ever on a cookie or a message: one silent
// connection stops its server).
constexpr seconds message_wait{10};  // the cookie, the parameters, the results, IPERF_DONE
constexpr seconds streams_wait{10};  // every stream of the test, from CREATE_STREAMS
// 3.12's server gives a test 40 s beyond its time and omit before it gives up on TEST_END.
constexpr uint32_t end_grace_s = 40;
constexpr milliseconds poll_step{100};  // how soon a wait sees Ctrl+C
// Data connections that connected but have not sent their cookie yet, at most: beyond them a
// connection is refused at once (a flood of silent connections holds nothing).
constexpr std::size_t max_pending_streams = 64;
// Connections taken from the listener at most per turn: a flood of them never starves the
// turn's other work (its deadline, the control connection, the end of the test).
constexpr int accepts_per_turn = 64;
// A test whose data and control connection both stay silent this long is ended (3.12: 120 s
// by default, "idle timeout for receiving data"; only while it receives).
constexpr seconds idle_limit{60};

bool interrupted(const RunEnv& env) { return user_interrupted(env); }

// An error line as 3.12's server prints it, on stderr ("iperf3: error - ..."); the ends of a
// client's test it prints without "error -" (reference 6.5).
void complain(Log& log, const std::string& message) {
  const bool plain = message == "the client has unexpectedly closed the connection" ||
                     message == "the client has terminated";
  log.raw_error(plain ? "iperf3: " + message : "iperf3: error - " + message);
}

bool would_block(int error) {
  const SocketError kind = classify_socket_error(error);
  return kind == SocketError::would_block || kind == SocketError::interrupted;
}

// Writes all of `bytes`, bounded by `deadline`.
Status write_all(NativeSocket socket, std::string_view bytes, SteadyClock::time_point deadline) {
  while (!bytes.empty()) {
    const SocketTransfer sent = send_some(socket, bytes.data(), bytes.size());
    if (sent.bytes > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(sent.bytes));
      continue;
    }
    if (sent.bytes < 0 && !would_block(sent.error))
      return fail("cannot write to the client: " + socket_error_text(sent.error));
    if (wait_socket(socket, WaitFor::write, deadline) <= 0)
      return fail("the client did not read its control connection in time");
  }
  return ok();
}

// The control connection of one test: its bytes through the session, bounded waits.
class Control {
 public:
  Control(UniqueSocket socket, const RunEnv& env) : socket_(std::move(socket)), env_(env) {}
  NativeSocket socket() const { return socket_.get(); }
  Status write(std::string_view bytes) {
    return write_all(socket_.get(), bytes, SteadyClock::now() + message_wait);
  }
  // The session's next event, reading as needed until `deadline`, `stop` or Ctrl+C
  // (Event::none then; a deadline already past still reads what has come). A peer that is gone
  // is Event::failed.
  ServerStep next(ServerSession& session, SteadyClock::time_point deadline,
                  const std::atomic<bool>* stop = nullptr) {
    for (ServerStep step = session.on_control({});; step = session.on_control({})) {
      if (step.event != ServerStep::Event::none) return step;
      for (;;) {
        if (interrupted(env_) || (stop != nullptr && stop->load())) return {};
        const int ready = wait_socket(socket_.get(), WaitFor::read,
                                      std::min(deadline, SteadyClock::now() + poll_step));
        if (ready > 0) break;
        if (ready < 0) return session.on_control_closed();
        if (SteadyClock::now() >= deadline) return {};
      }
      char buffer[4096];
      const SocketTransfer got = receive_some(socket_.get(), buffer, sizeof buffer);
      if (got.bytes == 0 || (got.bytes < 0 && !would_block(got.error)))
        return session.on_control_closed();
      if (got.bytes > 0) {
        step = session.on_control(std::span<const unsigned char>(
            reinterpret_cast<const unsigned char*>(buffer), static_cast<std::size_t>(got.bytes)));
        if (step.event != ServerStep::Event::none) return step;
      }
    }
  }

 private:
  UniqueSocket socket_;
  const RunEnv& env_;
};

// A connection that came while no stream is awaited: 3.12 writes 0xFF and closes it without
// reading.
void turn_away(UniqueSocket socket) {
  const std::string busy = ServerSession::busy();
  (void)send_some(socket.get(), busy.data(), busy.size());
}

// One accepted data connection, its cookie still coming.
struct PendingStream {
  UniqueSocket socket;
  std::string cookie;
  SteadyClock::time_point deadline;
};

// The streams of the test, by stream index (= flow slot), once each brought the cookie.
struct AcceptedStreams {
  std::vector<UniqueSocket> sockets;
  std::vector<int> ids;     // each one's socket number, as 3.12 prints it
  std::string start_bytes;  // TEST_START and TEST_RUNNING, for the control connection
};

// The next event is `wanted`, within message_wait; else false and the line why.
bool expect(Control& control, ServerSession& session, ServerStep::Event wanted, ServerStep& step,
            Log& log, std::string_view what, const RunEnv& env) {
  step = control.next(session, SteadyClock::now() + message_wait);
  if (step.event == wanted) return true;
  if (step.event == ServerStep::Event::none && interrupted(env)) return false;  // said at the end
  if (step.event == ServerStep::Event::none)
    complain(log, fmt::format("the client sent no {} within {} s", what, message_wait.count()));
  else
    complain(log, step.message);
  return false;
}

// The test's settings as the engine runs them: this server's spec with what the client asked.
TestSpec test_spec(const TestSpec& server, const Parameters& p) {
  TestSpec t = server;
  t.role = p.reverse ? Role::sender : Role::receiver;
  t.workload.protocol = xttcp::Protocol::tcp;
  t.layout.one_port = true;
  t.layout.ports = p.parallel;
  t.layout.threads_per_port = 1;
  t.layout.conns_per_thread = 1;
  t.control.no_sync = true;
  t.workload.warmup_s = p.omit_s;
  // The client ends the test (TEST_END); this server's own end is 3.12's grace after it.
  t.workload.duration_s = (p.time_s > 0 ? p.time_s : max_time_s) + end_grace_s;
  t.workload.cooldown_s = 0;
  const uint32_t length = p.length > 0 ? p.length : 131072;
  t.workload.send_buffer = length;
  t.workload.recv_buffer = length;
  if (p.window > 0) t.io.socket_recv_buffer = t.io.socket_send_buffer = p.window;
  t.io.no_delay = p.nodelay;
  t.io.congestion = p.congestion;
  // -b and --fq-rate are per stream in iperf3, xttcp's over every stream; they pace the sending
  // end: this server only with -R (a client that sends paces itself).
  if (p.reverse) {
    auto times_streams = [&](uint64_t rate) {  // saturating: an absurd rate is no rate
      return rate > UINT64_MAX / p.parallel ? 0 : rate * p.parallel;
    };
    t.workload.rate_limit_bps = times_streams(p.rate_bps);
    t.workload.fq_rate_limit_bps = times_streams(p.fq_rate_bps);
  }
  return t;
}

// Why this server cannot run what the client asked: an iperf3 error code for its client.
std::optional<int32_t> unsupported(const Parameters& p) {
  if (p.protocol == Protocol::sctp) return error_no_sctp;
  if (p.protocol == Protocol::udp || p.bidirectional || p.mss > 0 || p.authenticated)
    return error_not_implemented;
  return std::nullopt;
}

std::string what_was_refused(const Parameters& p) {
  if (p.protocol == Protocol::sctp) return "SCTP";
  if (p.protocol == Protocol::udp) return "UDP (-u) is not served yet";
  if (p.bidirectional) return "--bidir is not served yet";
  if (p.mss > 0) return "-M is not served yet";
  return "authentication (--username) is not served";
}

class Server {
 public:
  Server(const TestSpec& spec, RunEnv& env, UniqueSocket listener)
      : spec_(spec), env_(env), listener_(std::move(listener)) {}

  // Serves the test on `control`: true when it ran to the end of its protocol.
  void serve(UniqueSocket control_socket, const SocketAddress& peer);

 private:
  void say(const std::string& line) {
    if (!spec_.iperf3.json) env_.log.raw(line);
  }
  std::optional<AcceptedStreams> accept_streams(ServerSession& session, Control& control);
  void refuse_strangers();
  void run_test(ServerSession& session, Control& control, const TestSpec& t, const Plan& plan,
                AcceptedStreams streams);

  const TestSpec& spec_;
  RunEnv& env_;
  UniqueSocket listener_;
};

std::optional<AcceptedStreams> Server::accept_streams(ServerSession& session, Control& control) {
  AcceptedStreams streams;
  streams.sockets.resize(session.streams_expected());
  streams.ids.resize(session.streams_expected());
  std::vector<PendingStream> pending;
  const auto deadline = SteadyClock::now() + streams_wait;
  uint32_t accepted = 0;
  while (accepted < session.streams_expected()) {
    if (interrupted(env_)) return std::nullopt;
    if (SteadyClock::now() >= deadline) {
      complain(env_.log, fmt::format("the client opened {} of its {} streams in {} s", accepted,
                                     session.streams_expected(), streams_wait.count()));
      return std::nullopt;
    }
    std::vector<SocketPoll> polls{{listener_.get()}, {control.socket()}};
    for (const PendingStream& p : pending) polls.push_back({p.socket.get()});
    if (poll_sockets(polls, static_cast<int>(poll_step.count())) < 0) continue;
    if (polls[1].readable || polls[1].hung_up) {  // only CLIENT_TERMINATE or its end can come
      ServerStep step = control.next(session, SteadyClock::now());
      if (step.event == ServerStep::Event::failed ||
          step.event == ServerStep::Event::client_terminated) {
        complain(env_.log, step.message);
        return std::nullopt;
      }
    }
    for (std::size_t i = pending.size(); i-- > 0;) {
      PendingStream& p = pending[i];
      if (polls[2 + i].readable) {
        char buffer[cookie_size];
        const SocketTransfer got =
            receive_some(p.socket.get(), buffer, cookie_size - p.cookie.size());
        if (got.bytes > 0) p.cookie.append(buffer, static_cast<std::size_t>(got.bytes));
        if (got.bytes == 0 || (got.bytes < 0 && !would_block(got.error))) {
          pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
          continue;
        }
      }
      if (p.cookie.size() == cookie_size) {
        const StreamAdmission admission =
            session.on_stream(std::span<const unsigned char, cookie_size>(
                reinterpret_cast<const unsigned char*>(p.cookie.data()), cookie_size));
        if (admission.stream) {
          const auto index = static_cast<std::size_t>(accepted++);
          streams.ids[index] = static_cast<int>(p.socket.get());
          streams.sockets[index] = std::move(p.socket);
          streams.start_bytes += admission.control_write;
        } else {
          turn_away(std::move(p.socket));
        }
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (SteadyClock::now() >= p.deadline) {
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));  // silent: dropped
      }
    }
    if (!polls[0].readable) continue;
    for (int taken = 0; taken < accepts_per_turn; ++taken) {
      SocketAddress peer;
      auto socket = accept_connection(listener_.get(), &peer);
      if (!socket || !*socket) break;
      if (pending.size() >= max_pending_streams) {
        turn_away(std::move(**socket));
        continue;
      }
      pending.push_back({std::move(**socket), {}, SteadyClock::now() + message_wait});
    }
  }
  return streams;
}

void Server::refuse_strangers() {
  for (int taken = 0; taken < accepts_per_turn; ++taken) {
    SocketAddress peer;
    auto socket = accept_connection(listener_.get(), &peer);
    if (!socket || !*socket) return;
    turn_away(std::move(**socket));
  }
}

void Server::serve(UniqueSocket control_socket, const SocketAddress& peer) {
  set_no_delay(control_socket.get());
  Control control(std::move(control_socket), env_);
  ServerSession session;
  ServerStep step;
  if (!expect(control, session, ServerStep::Event::cookie, step, env_.log, "cookie", env_)) {
    if (interrupted(env_)) (void)control.write(session.terminate());
    return;
  }
  say(accepted_line(peer.host(), peer.port()));
  if (Status sent = control.write(step.write); !sent)
    return complain(env_.log, sent.error().message);
  if (!expect(control, session, ServerStep::Event::parameters, step, env_.log, "parameters",
              env_)) {
    if (interrupted(env_)) (void)control.write(session.terminate());
    return;
  }
  if (std::optional<int32_t> code = unsupported(step.parameters)) {
    complain(env_.log, "the client asked for what this server does not run: " +
                           what_was_refused(step.parameters));
    (void)control.write(session.refuse(*code, 0));
    return;
  }
  const TestSpec t = test_spec(spec_, session.parameters());
  auto setup = prepare_run(t, env_.choice.backend);
  if (!setup) {
    complain(env_.log, setup.error().message);
    (void)control.write(session.refuse(error_not_implemented, 0));
    return;
  }
  if (Status sent = control.write(session.accept_parameters()); !sent)
    return complain(env_.log, sent.error().message);
  std::optional<AcceptedStreams> streams = accept_streams(session, control);
  if (streams) run_test(session, control, t, setup->plan, std::move(*streams));
  // Ctrl+C: the client is told, as 3.12's server tells it (it prints "the server has
  // terminated").
  if (interrupted(env_)) (void)control.write(session.terminate());
}

// Our results for the client: this end's CPU and each stream's bytes, as 3.12 sends them.
Results our_results(const Parameters& p, const MeasuredWindow& window,
                    const std::vector<WorkerReport>& reports) {
  Results r;
  const double busy_s = (window.system_end.process_user_s - window.system_begin.process_user_s) +
                        (window.system_end.process_system_s - window.system_begin.process_system_s);
  const double wall = window.seconds > 0 ? window.seconds : 1;
  r.cpu_user =
      100.0 * (window.system_end.process_user_s - window.system_begin.process_user_s) / wall;
  r.cpu_system =
      100.0 * (window.system_end.process_system_s - window.system_begin.process_system_s) / wall;
  r.cpu_total = 100.0 * busy_s / wall;
  const bool sender = p.reverse;
  r.sender_has_retransmits = sender ? 1 : -1;
  std::vector<int64_t> retransmits(window.end.size(), 0);
  for (const WorkerReport& report : reports)
    for (const ConnectionStats& c : report.connection_stats) {
      if (c.stream && *c.stream < retransmits.size()) retransmits[*c.stream] = c.total_retrans;
      if (!c.congestion.empty()) r.congestion_used = c.congestion;
    }
  for (std::size_t slot = 0; slot < window.end.size(); ++slot) {
    StreamTotals s;
    s.id = slot == 0 ? 1 : static_cast<int32_t>(slot) + 2;
    s.bytes = window.end[slot].bytes - (slot < window.begin.size() ? window.begin[slot].bytes : 0);
    s.retransmits = sender ? retransmits[slot] : -1;
    s.end_time = window.seconds;
    r.streams.push_back(s);
  }
  return r;
}

void Server::run_test(ServerSession& session, Control& control, const TestSpec& t, const Plan& plan,
                      AcceptedStreams streams) {
  const Parameters& p = session.parameters();
  for (std::size_t i = 0; i < streams.sockets.size(); ++i) {
    auto local = local_address_of(streams.sockets[i].get());
    auto remote = peer_address_of(streams.sockets[i].get());
    if (local && remote)
      say(connected_line(streams.ids[i], local->host(), local->port(), remote->host(),
                         remote->port()));
  }
  PhaseClock clock;
  const CancelHook on_interrupt =
      env_.clock.add_cancel_hook([&clock] { clock.cancel(StopCause::interrupted, "interrupted"); });
  WorkerPool pool(env_.choice.backend, t, plan, {}, {});
  std::vector<NativeSocket> by_slot;
  for (UniqueSocket& s : streams.sockets) by_slot.push_back(s.release());
  pool.adopt(by_slot);
  pool.set_notice_log(&env_.log);
  if (Status opened = pool.open_all(seconds(10)); !opened) {
    complain(env_.log, opened.error().message);
    (void)control.write(session.refuse(error_not_implemented, 0));
    return;
  }
  if (Status sent = control.write(streams.start_bytes); !sent)
    return complain(env_.log, sent.error().message);
  // TEST_END (or the client's end) comes on the control connection while the workers run; a
  // connection from anyone else is told the server is busy.
  std::atomic<bool> stop_watch{false};
  ServerStep ending;
  std::thread watch([&] {
    while (!stop_watch.load()) {
      ServerStep step = control.next(session, SteadyClock::now() + poll_step, &stop_watch);
      refuse_strangers();
      if (step.event == ServerStep::Event::none) continue;  // quiet: the rule while it runs
      ending = step;
      if (step.event == ServerStep::Event::test_end)
        clock.finish(StopCause::flows_done, "the client ended the test");
      else
        clock.cancel(StopCause::sender_left, step.message);
      return;
    }
  });
  SystemProbe probe(t);
  Timeline timeline(clock, pool, probe, env_.log, t.output.interval_s);
  // A test whose bytes stopped moving for idle_limit is ended: a client that went quiet (or
  // stopped reading) holds no server for the rest of its -t.
  uint64_t last_bytes = 0;
  auto last_progress = SteadyClock::now();
  timeline.set_watch(
      [&]() -> std::optional<StopReason> {
        const uint64_t bytes = pool.total_bytes();
        const auto now = SteadyClock::now();
        if (bytes != last_bytes) {
          last_bytes = bytes;
          last_progress = now;
          return std::nullopt;
        }
        if (now - last_progress < idle_limit) return std::nullopt;
        return StopReason{
            StopCause::sender_left,
            t.role == Role::receiver
                ? fmt::format("idle timeout for receiving data ({} s)", idle_limit.count())
                : fmt::format("the client read nothing for {} s", idle_limit.count())};
      },
      true);
  LiveReport live(streams.ids, t.role == Role::sender, spec_.iperf3.format, t.output.interval_s,
                  [this](const std::string& line) { say(line); });
  const bool rows = !spec_.iperf3.json && spec_.iperf3.intervals;
  if (rows) timeline.add_sink(&live, t.role);
  timeline.begin_from(pool.snapshot());
  const auto start = SteadyClock::now();
  pool.release();
  const MeasuredWindow window =
      timeline.run({t.workload.warmup_s, t.workload.duration_s, t.cycle_s(), 0}, start);
  if (interrupted(env_)) {
    // Ctrl+C: the client is told before its streams close under it, and given a moment (until
    // it closes its control connection, at most a second) to leave on its own.
    stop_watch.store(true);
    watch.join();
    (void)control.write(session.terminate());
    (void)wait_socket(control.socket(), WaitFor::read, SteadyClock::now() + seconds(1));
    (void)pool.stop_and_join();
    return;
  }
  const std::vector<WorkerReport> reports = pool.stop_and_join();
  stop_watch.store(true);
  if (watch.joinable()) watch.join();
  (void)log_worker_errors(reports, env_.log);
  if (ending.event != ServerStep::Event::test_end) {
    if (!ending.message.empty())
      complain(env_.log, ending.message);
    else if (clock.cancelled())
      complain(env_.log, clock.reason().message);
    else
      complain(env_.log,
               fmt::format("the client did not end its test within {} s of its time", end_grace_s));
    return;
  }
  const Results ours = our_results(p, window, reports);
  std::vector<SummaryStream> summary;
  for (std::size_t i = 0; i < ours.streams.size(); ++i)
    summary.push_back({streams.ids[i], ours.streams[i].bytes, window.seconds,
                       t.role == Role::sender ? std::optional<int64_t>(ours.streams[i].retransmits)
                                              : std::nullopt});
  for (const std::string& line : summary_lines(summary, t.role == Role::sender, spec_.iperf3.format,
                                               !live.ended_with_separator()))
    say(line);
  if (Status sent = control.write(session.results_wanted()); !sent)
    return complain(env_.log, sent.error().message);
  ServerStep step;
  if (!expect(control, session, ServerStep::Event::client_results, step, env_.log, "results", env_))
    return;
  if (Status sent = control.write(session.send_results(ours)); !sent)
    return complain(env_.log, sent.error().message);
  (void)expect(control, session, ServerStep::Event::done, step, env_.log, "IPERF_DONE", env_);
}

}  // namespace

int run_server(const TestSpec& spec, RunEnv& env) {
  auto address = resolve(spec.layout.address, spec.layout.base_port, spec.layout.ipv6);
  if (!address) {
    env.log.error("-B: " + address.error().message);
    return exit_code::usage;
  }
  auto listener = listen_tcp(*address, 128);
  if (!listener) {
    complain(env.log, "unable to start listener for connections: " + listener.error().message);
    return exit_code::run_failed;
  }
  const NativeSocket listening = listener->get();
  Server server(spec, env, std::move(*listener));
  if (env.on_listening) env.on_listening();
  for (uint32_t test = 1; !user_interrupted(env); ++test) {
    if (!spec.iperf3.json)
      for (const std::string& line : banner_lines(spec.layout.base_port, test)) env.log.raw(line);
    std::optional<UniqueSocket> control;
    SocketAddress peer;
    while (!control && !user_interrupted(env)) {
      if (wait_socket(listening, WaitFor::read, SteadyClock::now() + poll_step) <= 0) continue;
      auto accepted = accept_connection(listening, &peer);
      if (accepted && *accepted) control = std::move(**accepted);
    }
    if (!control) break;
    server.serve(std::move(*control), peer);
    if (spec.iperf3.one_off) break;
  }
  // 3.12 says so and exits 1; xttcp's servers exit 0 when stopped as asked (docs/iperf3.md).
  if (user_interrupted(env)) env.log.raw_error("iperf3: interrupt - the server has terminated");
  return exit_code::success;
}

}  // namespace xttcp::iperf3
