#include "engine/iperf3/server_run.hh"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>
#include <thread>
#include <tuple>

#include "engine/iperf3/console.hh"
#include "engine/iperf3/control_connection.hh"
#include "engine/iperf3/directions.hh"
#include "engine/iperf3/errors.hh"
#include "engine/iperf3/group_run.hh"
#include "engine/iperf3/json_document.hh"
#include "engine/iperf3/server_output.hh"
#include "engine/iperf3/server_session.hh"
#include "engine/iperf3/server_test.hh"
#include "engine/iperf3/test_results.hh"
#include "engine/iperf3/udp_streams.hh"
#include "engine/net/os_socket.hh"
#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"
#include "engine/report/log.hh"
#include "engine/run/result_builder.hh"
#include "engine/run/run_setup.hh"
#include "engine/run/timeline.hh"

namespace xttcp::iperf3 {

namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr seconds streams_wait{10};  // every stream of the test, from CREATE_STREAMS
// Data connections that connected but have not sent their cookie yet, at most: beyond them a
// connection is refused at once (a flood of silent connections holds nothing).
constexpr std::size_t max_pending_streams = 64;
// Connections taken from the listener at most per turn: a flood of them never starves the
// turn's other work (its deadline, the control connection, the end of the test).
constexpr int accepts_per_turn = 64;

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

// The streams of the test, in stream order (directions.hh), once each brought the cookie.
struct AcceptedStreams {
  std::vector<UniqueSocket> sockets;
  std::vector<int> ids;     // each one's socket number, as 3.12 prints it
  std::string start_bytes;  // TEST_START and TEST_RUNNING, for the control connection
};

class Server {
 public:
  Server(const TestSpec& spec, RunEnv& env, UniqueSocket listener)
      : spec_(spec), env_(env), listener_(std::move(listener)) {}

  // Serves the test on `control`: true when it ran to the end of its protocol.
  void serve(UniqueSocket control_socket, const SocketAddress& peer);

 private:
  void say(const std::string& line) {
    if (spec_.iperf3.json) return;
    env_.log.raw(line);
    output_.add(line);
  }
  // The test failed: 3.12's line on stderr, and with -J in the test's document ("error").
  void fail(const std::string& message) {
    complain(env_.log, message);
    if (json_) json_->set_error(message);
  }
  std::optional<AcceptedStreams> accept_streams(ServerSession& session, ServerControl& control);
  std::optional<AcceptedStreams> accept_udp_streams(ServerSession& session, ServerControl& control,
                                                    const SocketAddress& peer, UdpHelloDesk desk);
  // The server's summary: each group's own direction of each stream.
  std::vector<std::string> our_summary(const std::vector<StreamGroup>& groups,
                                       const std::vector<Results>& ours,
                                       const std::vector<int>& ids,
                                       const std::vector<MeasuredWindow>& windows, bool udp,
                                       bool separator_first) const;
  // While the streams are awaited: false when the control connection ended the test.
  bool control_still_on(ServerSession& session, ServerControl& control);
  void refuse_strangers();
  // After the cookie: the rest of the test, its lines said (and with -J put in its document).
  void serve_test(ServerControl& control, ServerSession& session, ServerStep& step,
                  const SocketAddress& peer);
  void run_test(ServerSession& session, ServerControl& control, std::vector<Plan> plans,
                AcceptedStreams streams, const SocketAddress& peer);
  DocumentStart document_start(const ServerSession& session, const AcceptedStreams& streams,
                               const SocketAddress& peer);

  const TestSpec& spec_;
  RunEnv& env_;
  UniqueSocket listener_;
  std::optional<JsonDocument> json_;  // -J: the running test's document
  ServerOutput output_;               // the running test's lines, for --get-server-output
};

std::optional<AcceptedStreams> Server::accept_streams(ServerSession& session,
                                                      ServerControl& control) {
  AcceptedStreams streams;
  streams.sockets.resize(session.streams_expected());
  streams.ids.resize(session.streams_expected());
  std::vector<PendingStream> pending;
  const auto deadline = SteadyClock::now() + streams_wait;
  uint32_t accepted = 0;
  while (accepted < session.streams_expected()) {
    if (interrupted(env_)) return std::nullopt;
    if (SteadyClock::now() >= deadline) {
      fail(fmt::format("the client opened {} of its {} streams in {} s", accepted,
                       session.streams_expected(), streams_wait.count()));
      return std::nullopt;
    }
    std::vector<SocketPoll> polls{{listener_.get()}, {control.socket()}};
    for (const PendingStream& p : pending) polls.push_back({p.socket.get()});
    if (poll_sockets(polls, static_cast<int>(poll_step.count())) < 0) continue;
    if ((polls[1].readable || polls[1].hung_up) && !control_still_on(session, control))
      return std::nullopt;
    // In accept order: a stream's place (its id, and with --bidir its direction) is the order
    // its connection came in, as 3.12 numbers them (the client sends each cookie before it
    // opens the next stream). A silent connection holds no later one up: it may be a stranger.
    for (std::size_t i = 0, poll = 2; i < pending.size(); ++poll) {
      PendingStream& p = pending[i];
      if (polls[poll].readable) {
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
      } else {
        ++i;
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

bool Server::control_still_on(ServerSession& session, ServerControl& control) {
  // Only CLIENT_TERMINATE or the connection's end can come now.
  ServerStep step = control.next(session, SteadyClock::now());
  if (step.event != ServerStep::Event::failed && step.event != ServerStep::Event::client_terminated)
    return true;
  fail(step.message);
  return false;
}

// UDP: each stream is a hello the desk took (udp_streams.hh), while the control connection is
// read all along, as for TCP.
std::optional<AcceptedStreams> Server::accept_udp_streams(ServerSession& session,
                                                          ServerControl& control,
                                                          const SocketAddress& peer,
                                                          UdpHelloDesk desk) {
  AcceptedStreams streams;
  const auto deadline = SteadyClock::now() + streams_wait;
  while (streams.sockets.size() < session.streams_expected()) {
    if (interrupted(env_)) return std::nullopt;
    if (SteadyClock::now() >= deadline) {
      fail(fmt::format(
          "the client opened {} of its {} UDP streams in {} s{}", streams.sockets.size(),
          session.streams_expected(), streams_wait.count(),
          desk.ignored() ? fmt::format(" ({} other datagrams ignored)", desk.ignored()) : ""));
      return std::nullopt;
    }
    std::vector<SocketPoll> polls{{desk.socket()}, {control.socket()}};
    if (poll_sockets(polls, static_cast<int>(poll_step.count())) < 0) continue;
    if ((polls[1].readable || polls[1].hung_up) && !control_still_on(session, control))
      return std::nullopt;
    if (!polls[0].readable) continue;
    auto stream = desk.take(peer.host(), accepts_per_turn);
    if (!stream) {
      fail(stream.error().message);
      return std::nullopt;
    }
    if (!*stream) continue;
    const StreamAdmission admission = session.on_udp_stream();
    streams.ids.push_back(static_cast<int>((*stream)->get()));
    streams.sockets.push_back(std::move(**stream));
    streams.start_bytes += admission.control_write;
  }
  if (desk.ignored() > 0)
    env_.log.debug(fmt::format("iperf3: {} datagrams that were no hello of the client's, ignored",
                               desk.ignored()));
  return streams;
}

std::vector<std::string> Server::our_summary(const std::vector<StreamGroup>& groups,
                                             const std::vector<Results>& ours,
                                             const std::vector<int>& ids,
                                             const std::vector<MeasuredWindow>& windows, bool udp,
                                             bool separator_first) const {
  std::vector<SummaryGroup<UdpSummaryStream>> udp_groups;
  std::vector<SummaryGroup<SummaryStream>> tcp_groups;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const StreamGroup& group = groups[g];
    const std::vector<int64_t> disordered = out_of_order(windows[g]);
    const double window_s = windows[g].seconds;
    SummaryGroup<UdpSummaryStream> u{group.sending, group.role, {}};
    SummaryGroup<SummaryStream> t{group.sending, group.role, {}};
    for (std::size_t i = 0; i < ours[g].streams.size(); ++i) {
      const StreamTotals& s = ours[g].streams[i];
      const int id = group.first + i < ids.size() ? ids[group.first + i] : s.id;
      u.streams.push_back({id, s.bytes, window_s, s.jitter_s * 1000, s.errors, s.packets,
                           !group.sending && i < disordered.size() ? disordered[i] : 0});
      t.streams.push_back({id, s.bytes, window_s,
                           group.sending ? std::optional<int64_t>(s.retransmits) : std::nullopt});
    }
    udp_groups.push_back(std::move(u));
    tcp_groups.push_back(std::move(t));
  }
  return udp ? udp_summary_lines(udp_groups, spec_.iperf3.format, separator_first)
             : summary_lines(tcp_groups, spec_.iperf3.format, separator_first);
}

void Server::refuse_strangers() {
  for (int taken = 0; taken < accepts_per_turn; ++taken) {
    SocketAddress peer;
    auto socket = accept_connection(listener_.get(), &peer);
    if (!socket || !*socket) return;
    turn_away(std::move(**socket));
  }
}

// -J's start: the streams as connected, the client's control connection, the test it asked.
DocumentStart Server::document_start(const ServerSession& session, const AcceptedStreams& streams,
                                     const SocketAddress& peer) {
  json_->set_groups(stream_groups(false, session.parameters()));
  json_->set_sockets(streams.ids);
  DocumentStart start;
  for (std::size_t i = 0; i < streams.sockets.size(); ++i) {
    auto local = local_address_of(streams.sockets[i].get());
    auto remote = peer_address_of(streams.sockets[i].get());
    if (local && remote)
      start.connected.push_back(
          {streams.ids[i], local->host(), local->port(), remote->host(), remote->port()});
  }
  start.system_info = system_info();
  start.time = std::chrono::system_clock::now();
  start.client = false;
  start.peer_host = peer.host();
  start.peer_port = peer.port();
  const Cookie& cookie = session.cookie();
  start.cookie.assign(cookie.begin(), std::find(cookie.begin(), cookie.end(), '\0'));
  start.tcp_mss_default = 0;  // as 3.12's server writes it
  if (!streams.sockets.empty())
    std::tie(start.sndbuf_actual, start.rcvbuf_actual) =
        socket_buffer_sizes(streams.sockets.front().get());
  start.test = session.parameters();
  return start;
}

void Server::serve(UniqueSocket control_socket, const SocketAddress& peer) {
  set_no_delay(control_socket.get());
  json_.reset();
  output_ = ServerOutput();
  ServerControl control(std::move(control_socket), env_, "the client",
                        [this](const std::string& line) { fail(line); });
  ServerSession session;
  ServerStep step;
  // A connection that never brings a cookie is no client's test: it leaves no line (a port
  // scan or a flood of them would otherwise fill the log), but with -V.
  step = control.next(session, SteadyClock::now() + message_wait);
  if (step.event != ServerStep::Event::cookie) {
    env_.log.debug(
        fmt::format("iperf3: a connection from {} sent no cookie; closed", peer.to_string()));
    if (interrupted(env_)) (void)control.write(session.terminate());
    return;
  }
  say(accepted_line(peer.host(), peer.port()));
  // -J: a document for each test that began, printed when it ends, however it ends.
  if (spec_.iperf3.json) json_.emplace();
  serve_test(control, session, step, peer);
  if (json_) {
    if (interrupted(env_)) json_->set_error("interrupt - the server has terminated");
    env_.log.raw(json_->text());
  }
}

void Server::serve_test(ServerControl& control, ServerSession& session, ServerStep& step,
                        const SocketAddress& peer) {
  if (Status sent = control.write(step.write); !sent) return fail(sent.error().message);
  if (!control.expect(session, ServerStep::Event::parameters, step, "parameters")) {
    if (interrupted(env_)) (void)control.write(session.terminate());
    return;
  }
  if (std::optional<Refusal> refused = refusal(step.parameters)) {
    fail("the client asked for what this server does not run: " + refused->why);
    (void)control.write(session.refuse(refused->code, 0));
    return;
  }
  if (!session.parameters().get_server_output) output_.stop();
  // Each direction's plan (--bidir: two), before the client opens its streams.
  std::vector<Plan> plans;
  for (const StreamGroup& group : stream_groups(false, session.parameters())) {
    auto setup =
        prepare_run(test_spec(spec_, session.parameters(), group.sending), env_.choice.backend);
    if (!setup) {
      fail(setup.error().message);
      (void)control.write(session.refuse(error_not_implemented, 0));
      return;
    }
    plans.push_back(std::move(setup->plan));
  }
  const bool udp = session.parameters().protocol == Protocol::udp;
  // UDP: the desk is open before CREATE_STREAMS goes out (the client sends its hello at once).
  std::optional<Expected<UdpHelloDesk>> hellos;
  if (udp) {
    auto port = local_address_of(listener_.get());
    hellos.emplace(port ? UdpHelloDesk::open(*port) : Expected<UdpHelloDesk>(port.error()));
  }
  if (hellos && !*hellos) {
    fail(hellos->error().message);
    (void)control.write(session.refuse(error_not_implemented, 0));
    return;
  }
  if (Status sent = control.write(session.accept_parameters()); !sent)
    return fail(sent.error().message);
  std::optional<AcceptedStreams> streams =
      udp ? accept_udp_streams(session, control, peer, std::move(**hellos))
          : accept_streams(session, control);
  if (streams) run_test(session, control, std::move(plans), std::move(*streams), peer);
  // Ctrl+C: the client is told, as 3.12's server tells it (it prints "the server has
  // terminated").
  if (interrupted(env_)) (void)control.write(session.terminate());
}

void Server::run_test(ServerSession& session, ServerControl& control, std::vector<Plan> plans,
                      AcceptedStreams streams, const SocketAddress& peer) {
  for (std::size_t i = 0; i < streams.sockets.size(); ++i) {
    auto local = local_address_of(streams.sockets[i].get());
    auto remote = peer_address_of(streams.sockets[i].get());
    if (local && remote)
      say(connected_line(streams.ids[i], local->host(), local->port(), remote->host(),
                         remote->port()));
  }
  if (json_) json_->set_start(document_start(session, streams, peer));
  const std::vector<StreamGroup> groups = stream_groups(false, session.parameters());
  // The first group's spec stands for the test's phases and intervals (every group's alike).
  const TestSpec t = test_spec(spec_, session.parameters(), groups.front().sending);
  PhaseClock clock;
  const CancelHook on_interrupt =
      env_.clock.add_cancel_hook([&clock] { clock.cancel(StopCause::interrupted, "interrupted"); });
  GroupRun runs(env_.choice.backend, env_.log, clock);
  std::vector<TestSpec> specs;
  for (const StreamGroup& group : groups)
    specs.push_back(test_spec(spec_, session.parameters(), group.sending));
  runs.add(groups, specs, std::move(plans), std::move(streams.sockets));
  LiveReport live(streams.ids, groups, spec_.iperf3.format, t.output.interval_s,
                  [this](const std::string& line) { say(line); });
  // -J: the document; else the console's rows (-i 0: none).
  GroupIntervals* renderer = json_                    ? static_cast<GroupIntervals*>(&*json_)
                             : spec_.iperf3.intervals ? &live
                                                      : nullptr;
  if (Status opened = runs.open_all(seconds(10), "the client", renderer, t.output.interval_s);
      !opened) {
    fail(opened.error().message);
    (void)control.write(session.refuse(error_not_implemented, 0));
    return;
  }
  if (Status sent = control.write(streams.start_bytes); !sent) return fail(sent.error().message);
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
  runs.run({t.workload.warmup_s, t.workload.duration_s, t.cycle_s(), 0});
  if (interrupted(env_)) {
    // Ctrl+C: the client is told before its streams close under it, and given a moment (until
    // it closes its control connection, at most a second) to leave on its own.
    stop_watch.store(true);
    watch.join();
    (void)control.write(session.terminate());
    (void)wait_socket(control.socket(), WaitFor::read, SteadyClock::now() + seconds(1));
    runs.stop_all();
    return;
  }
  runs.stop_all();
  stop_watch.store(true);
  if (watch.joinable()) watch.join();
  const std::vector<std::vector<WorkerReport>> reports = runs.all_reports();
  for (const std::vector<WorkerReport>& group_reports : reports)
    (void)log_worker_errors(group_reports, env_.log);  // however the test ended
  if (ending.event != ServerStep::Event::test_end) {
    if (!ending.message.empty())
      fail(ending.message);
    else if (clock.cancelled())
      fail(clock.reason().message);
    else
      fail(fmt::format("the client did not end its test within {} s of its time", end_grace_s));
    return;
  }
  std::vector<MeasuredWindow> windows;
  for (std::size_t g = 0; g < runs.size(); ++g) windows.push_back(runs.window(g));
  const OurResults ours = our_results(groups, windows, reports);
  for (const std::string& line : our_summary(groups, ours.by_group, streams.ids, windows,
                                             runs.is_udp(), !live.ended_with_separator()))
    say(line);
  if (Status sent = control.write(session.results_wanted()); !sent)
    return fail(sent.error().message);
  ServerStep step;
  if (!control.expect(session, ServerStep::Event::client_results, step, "results")) return;
  if (json_) json_->set_end({windows.front().seconds, ours.all, step.results, ours.out_of_order});
  Results sent_results = ours.all;
  if (session.parameters().get_server_output) output_.attach(json_, sent_results);
  if (Status sent = control.write(session.send_results(sent_results)); !sent)
    return fail(sent.error().message);
  (void)control.expect(session, ServerStep::Event::done, step, "IPERF_DONE");
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
