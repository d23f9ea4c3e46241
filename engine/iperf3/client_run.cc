#include "engine/iperf3/client_run.hh"

#include <array>
#include <atomic>
#include <fmt/format.h>
#include <random>
#include <thread>
#include <tuple>

#include "engine/iperf3/client_test.hh"
#include "engine/iperf3/console.hh"
#include "engine/iperf3/control_connection.hh"
#include "engine/iperf3/directions.hh"
#include "engine/iperf3/group_run.hh"
#include "engine/iperf3/json_document.hh"
#include "engine/iperf3/test_results.hh"
#include "engine/iperf3/udp_streams.hh"
#include "engine/net/address.hh"
#include "engine/net/os_socket.hh"
#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"
#include "engine/report/log.hh"
#include "engine/run/run_setup.hh"
#include "engine/run/timeline.hh"
#include "engine/stats/tcp_info.hh"

namespace xttcp::iperf3 {

namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Event = ClientStep::Event;

// How often the control watch looks at the byte and block counts (-n, -k), and how soon it
// leaves when the window closed (TEST_END waits for it).
constexpr milliseconds watch_step{10};

Cookie fresh_cookie() {
  std::random_device random;
  std::array<unsigned char, cookie_size - 1> bytes{};
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(random());
  return make_cookie(bytes);
}

// The streams this client opened, in stream order, and the numbers it prints for them (their
// sockets, as 3.12 prints).
struct OpenStreams {
  std::vector<UniqueSocket> sockets;
  std::vector<int> ids;
  std::vector<ConnectedStream> ends;  // -J's start.connected
};

class Client {
 public:
  Client(const TestSpec& spec, RunEnv& env)
      : spec_(spec),
        env_(env),
        asked_(spec),
        groups_(stream_groups(true, client_parameters(spec))),
        test_(client_engine_spec(spec, groups_.front().sending)) {
    if (spec.iperf3.json) json_.emplace(groups_);
  }
  int run();

 private:
  // A console line of the client's, as 3.12's -T prefixes it (none with -J: the document).
  void say(const std::string& line) {
    if (json_) return;
    env_.log.raw(spec_.iperf3.title.empty() ? line : spec_.iperf3.title + ":  " + line);
  }
  // The test ended without its results: 3.12's line why on stderr, and with -J the document
  // with its "error" (3.12 exits 0 then; xttcp 1, as for every failed run).
  int failed(const std::string& message) {
    complain(env_.log, message);
    if (json_) {
      json_->set_error(message);
      env_.log.raw(json_->text());
    }
    return exit_code::run_failed;
  }
  // The next control event is `wanted` (within message_wait), else the test ends here.
  bool expect(ClientControl& control, ClientSession& session, Event wanted, ClientStep& step,
              std::string_view what);
  int ended_early(ClientControl& control, ClientSession& session, const ClientStep& step);
  ConnectOptions connect_options(uint16_t source_port) const;
  // --get-server-output: after the summary, as 3.12 prints it.
  void say_server_output(const Results& server);
  Expected<OpenStreams> open_streams(const SocketAddress& server, const ClientSession& session);
  // The workers ready on the streams, TEST_START and TEST_RUNNING, then the test.
  int run_test(ClientControl& control, ClientSession& session, std::vector<Plan> plans,
               OpenStreams streams);
  // The summary lines from both ends' results, group by group.
  std::vector<std::string> summary(const std::vector<Results>& ours, const Results& theirs,
                                   const std::vector<MeasuredWindow>& windows,
                                   const std::vector<int>& ids, bool separator_first) const;

  const TestSpec& spec_;
  RunEnv& env_;
  TestSpec asked_;                    // the command line's test, its UDP length settled
  std::vector<StreamGroup> groups_;   // its directions (--bidir: two)
  TestSpec test_;                     // as the first group's workers run it (client_engine_spec)
  std::optional<JsonDocument> json_;  // -J
  std::string awaited_;  // the control message awaited last, for the line when it never came
};

// -B and --cport (`source_port`, 0: the system's).
ConnectOptions Client::connect_options(uint16_t source_port) const {
  ConnectOptions options;
  if (!spec_.layout.source_address.empty() || source_port != 0) {
    auto source = resolve(spec_.layout.source_address, source_port, spec_.layout.ipv6);
    if (source) options.source = *source;
  }
  options.no_delay = spec_.io.no_delay;
  if (spec_.io.socket_send_buffer > 0)
    options.socket_buffers = static_cast<uint64_t>(spec_.io.socket_send_buffer);
  return options;
}

void Client::say_server_output(const Results& server) {
  std::string text;
  if (server.server_output_json) {
    const nlohmann::ordered_json doc =
        nlohmann::ordered_json::parse(*server.server_output_json, nullptr, false);
    if (doc.is_discarded()) return;
    say("");
    say("Server JSON output:");
    text = doc.dump(1, '\t', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  } else if (server.server_output_text) {
    say("");
    say("Server output:");
    text = *server.server_output_text;
  } else {
    return;
  }
  // The text's lines, then the empty line 3.12's "%s\n" leaves after its last newline.
  for (std::size_t from = 0; from < text.size();) {
    const std::size_t end = std::min(text.find('\n', from), text.size());
    say(text.substr(from, end - from));
    from = end + 1;
  }
  say("");
}

bool Client::expect(ClientControl& control, ClientSession& session, Event wanted, ClientStep& step,
                    std::string_view what) {
  awaited_ = what;
  step = control.next(session, SteadyClock::now() + message_wait);
  return step.event == wanted;
}

// The control connection did not bring what was awaited (`step`): Ctrl+C (the server is told,
// CLIENT_TERMINATE, as 3.12 tells it), the server's error or end, or silence.
int Client::ended_early(ClientControl& control, ClientSession& session, const ClientStep& step) {
  if (interrupted(env_)) {
    (void)control.write(session.terminate());
    env_.log.raw_error("iperf3: interrupt - the client has terminated");
    if (json_) {
      json_->set_error("interrupt - the client has terminated");
      env_.log.raw(json_->text());
    }
    return exit_code::run_failed;
  }
  if (step.event == Event::failed) return failed(step.message);
  return failed(step.message.empty() ? fmt::format("the server sent no {} within {} s", awaited_,
                                                   message_wait.count())
                                     : step.message);
}

// The data connections, one after another as 3.12 opens them, each starting with the cookie.
Expected<OpenStreams> Client::open_streams(const SocketAddress& server,
                                           const ClientSession& session) {
  OpenStreams streams;
  const std::string cookie = session.hello();
  const std::size_t count = groups_.back().first + groups_.back().count;
  const auto timeout = seconds(spec_.control.connect_timeout_s);
  for (std::size_t i = 0; i < count; ++i) {
    // --bidir's receive streams (after the send streams) take the ports after them.
    const uint32_t cport = spec_.layout.source_base_port;
    if (cport && cport + i > 65535) return fail("--cport: the streams' ports run past 65535");
    const auto source_port = static_cast<uint16_t>(cport ? cport + i : 0);
    const bool sending =
        i < groups_.front().count ? groups_.front().sending : !groups_.front().sending;
    Expected<UniqueSocket> socket = UniqueSocket();
    if (test_.workload.protocol == xttcp::Protocol::udp) {
      socket = open_udp_stream(server, connect_options(source_port).source, !sending,
                               [this] { return interrupted(env_); });
      if (!socket) return socket.error();
    } else {
      ConnectOptions options = connect_options(source_port);
      options.max_segment = spec_.iperf3.mss;  // the streams' only, as 3.12 sets it
      socket = connect_tcp(server, options, timeout);
      if (!socket) return fail("unable to create a new stream: " + socket.error().message);
      if (Status sent = write_control(socket->get(), cookie, "the server"); !sent)
        return fail("unable to create a new stream: " + sent.error().message);
    }
    auto local = local_address_of(socket->get());
    auto remote = peer_address_of(socket->get());
    const int id = static_cast<int>(socket->get());
    if (local && remote) {
      say(connected_line(id, local->host(), local->port(), remote->host(), remote->port()));
      streams.ends.push_back({id, local->host(), local->port(), remote->host(), remote->port()});
    }
    streams.ids.push_back(id);
    streams.sockets.push_back(std::move(*socket));
  }
  return streams;
}

int Client::run() {
  auto server = resolve(spec_.layout.address, spec_.layout.base_port, spec_.layout.ipv6);
  if (!server) return failed("unable to connect to server: " + server.error().message);
  auto socket = connect_tcp(*server, connect_options(0), seconds(spec_.control.connect_timeout_s));
  if (!socket) return failed("unable to connect to server: " + socket.error().message);
  set_no_delay(socket->get());
  if (spec_.iperf3.udp_length_from_mss) {
    const uint32_t mss = tcp_max_segment(socket->get());
    asked_.workload.send_buffer = asked_.workload.recv_buffer =
        mss > 0 && mss <= max_udp_length ? mss : 1460;
    test_ = client_engine_spec(asked_, groups_.front().sending);
  }
  // Each direction's plan, before the test: reading the host's topology takes a while, and the
  // server's clock runs from TEST_START.
  std::vector<Plan> plans;
  for (const StreamGroup& group : groups_) {
    auto setup = prepare_run(client_engine_spec(asked_, group.sending), env_.choice.backend);
    if (!setup) return failed(setup.error().message);
    plans.push_back(std::move(setup->plan));
  }
  ClientSession session(fresh_cookie(), client_parameters(asked_));
  ClientControl control(std::move(*socket), env_, "the server");
  if (Status sent = control.write(session.hello()); !sent) return failed(sent.error().message);
  ClientStep step;
  if (!expect(control, session, Event::parameters, step, "PARAM_EXCHANGE"))
    return ended_early(control, session, step);
  // 3.12 says it once the server took the test (a busy one answers before: no line).
  say(fmt::format("Connecting to host {}, port {}", spec_.layout.address, spec_.layout.base_port));
  if (spec_.iperf3.reverse)
    say(fmt::format("Reverse mode, remote host {} is sending", spec_.layout.address));
  if (Status sent = control.write(step.write); !sent) return failed(sent.error().message);
  if (!expect(control, session, Event::create_streams, step, "CREATE_STREAMS"))
    return ended_early(control, session, step);
  auto streams = open_streams(*server, session);
  if (!streams) {
    (void)control.write(session.terminate());
    return failed(streams.error().message);
  }
  if (json_) {
    json_->set_sockets(streams->ids);
    DocumentStart start;
    start.connected = streams->ends;
    start.system_info = system_info();
    start.time = std::chrono::system_clock::now();
    start.peer_host = spec_.layout.address;
    start.peer_port = spec_.layout.base_port;
    const std::string cookie = session.hello();
    start.cookie = cookie.substr(0, cookie.find('\0'));
    start.tcp_mss_default = read_tcp_info(control.socket()).snd_mss;
    if (!streams->sockets.empty())
      std::tie(start.sndbuf_actual, start.rcvbuf_actual) =
          socket_buffer_sizes(streams->sockets.front().get());
    start.test = session.parameters();
    json_->set_start(start);
  }
  return run_test(control, session, std::move(plans), std::move(*streams));
}

std::vector<std::string> Client::summary(const std::vector<Results>& ours, const Results& theirs,
                                         const std::vector<MeasuredWindow>& windows,
                                         const std::vector<int>& ids, bool separator_first) const {
  std::vector<SummaryGroup<StreamBothEnds>> tcp;
  std::vector<SummaryGroup<UdpStreamBothEnds>> udp;
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const StreamGroup& group = groups_[g];
    const auto first = ids.begin() + static_cast<std::ptrdiff_t>(group.first);
    const std::vector<int> group_ids(first, first + static_cast<std::ptrdiff_t>(group.count));
    if (test_.workload.protocol == xttcp::Protocol::udp) {
      const std::vector<int64_t> disordered =
          group.sending ? std::vector<int64_t>{} : out_of_order(windows[g]);
      udp.push_back({group.sending, group.role,
                     udp_both_ends(group.sending, ours[g], theirs, group_ids, windows[g].seconds,
                                   disordered)});
    } else {
      tcp.push_back({group.sending, group.role,
                     both_ends(group.sending, ours[g], theirs, group_ids, windows[g].seconds)});
    }
  }
  // 3.12 times every row of a --bidir summary by the test's first stream (a send stream of this
  // client's): its sender's time and its receiver's, in both directions.
  if (tcp.size() > 1 && !tcp.front().streams.empty()) {
    const StreamBothEnds first = tcp.front().streams.front();
    for (auto& group : tcp)
      for (StreamBothEnds& s : group.streams) {
        s.sent_s = first.sent_s;
        s.received_s = first.received_s;
      }
  }
  return udp.empty() ? client_summary_lines(tcp, spec_.iperf3.format, separator_first)
                     : client_udp_summary_lines(udp, spec_.iperf3.format, separator_first);
}

int Client::run_test(ClientControl& control, ClientSession& session, std::vector<Plan> plans,
                     OpenStreams streams) {
  if (spec_.output.verbose)
    say(
        fmt::format("Starting Test: protocol: {}, {} streams, {} byte blocks, omitting {} "
                    "seconds, {} second test, tos 0",
                    test_.workload.protocol == xttcp::Protocol::udp ? "UDP" : "TCP",
                    session.parameters().parallel, test_.workload.send_buffer,
                    test_.workload.warmup_s, session.parameters().time_s));
  PhaseClock clock;
  const CancelHook on_interrupt =
      env_.clock.add_cancel_hook([&clock] { clock.cancel(StopCause::interrupted, "interrupted"); });
  GroupRun runs(env_.choice.backend, env_.log, clock);
  std::vector<TestSpec> specs;
  for (const StreamGroup& group : groups_)
    specs.push_back(client_engine_spec(asked_, group.sending));
  runs.add(groups_, specs, std::move(plans), std::move(streams.sockets));
  LiveReport live(streams.ids, groups_, spec_.iperf3.format, test_.output.interval_s,
                  [this](const std::string& line) { say(line); });
  // -J: the document; else the console's rows (-i 0: none).
  GroupIntervals* renderer = json_                    ? static_cast<GroupIntervals*>(&*json_)
                             : spec_.iperf3.intervals ? &live
                                                      : nullptr;
  if (Status opened = runs.open_all(seconds(10), "the server", renderer, test_.output.interval_s);
      !opened) {
    (void)control.write(session.terminate());
    return failed(opened.error().message);
  }
  ClientStep step;
  if (!expect(control, session, Event::test_start, step, "TEST_START") ||
      !expect(control, session, Event::test_running, step, "TEST_RUNNING"))
    return ended_early(control, session, step);
  // The server's end (SERVER_TERMINATE, an error, its control connection closing) comes on the
  // control connection while the workers run; -n and -k end the test once the counts after the
  // omit period reach them (3.12 checks them only once it stopped omitting).
  const uint64_t bytes_end = spec_.iperf3.bytes, blocks_end = spec_.iperf3.blocks;
  const bool counted = bytes_end > 0 || blocks_end > 0;
  const auto measuring_from = SteadyClock::now() + seconds(test_.workload.warmup_s);
  std::atomic<bool> stop_watch{false};
  ClientStep server_end;
  std::thread watch([&] {
    // Bytes and calls when measuring began: none before it without -O (a fast test is over
    // before the first look).
    std::optional<std::pair<uint64_t, uint64_t>> base;
    if (test_.workload.warmup_s == 0) base.emplace(0, 0);
    while (!stop_watch.load()) {
      const auto step_end = SteadyClock::now() + watch_step;
      ClientStep heard = control.next(session, step_end, &stop_watch);
      if (heard.event == Event::failed) {
        server_end = heard;
        clock.cancel(StopCause::sender_left, heard.message);
        return;
      }
      if (!counted || SteadyClock::now() < measuring_from) continue;
      const uint64_t bytes = runs.most_bytes(), calls = runs.most_operations();
      if (!base) base.emplace(bytes, calls);
      // A receiving client's reads may take more than a block each: the blocks are also
      // reached once their bytes came (a 3.12 server stops sending at -k blocks).
      const uint64_t moved = bytes - base->first;
      if ((bytes_end && moved >= bytes_end) ||
          (blocks_end && (calls - base->second >= blocks_end ||
                          moved / test_.workload.send_buffer >= blocks_end))) {
        clock.finish(StopCause::flows_done, "the test's -n or -k was reached");
        return;
      }
    }
  });
  runs.run({test_.workload.warmup_s, test_.workload.duration_s, test_.cycle_s(), 0});
  const auto window_closed = SteadyClock::now();
  // Sending workers stop at once (3.12 stops sending at TEST_END); receiving ones go on reading
  // until the server's results, so the server never blocks on a full pipe while TEST_END is on
  // its way (reference 2.3).
  runs.stop(true);
  stop_watch.store(true);
  watch.join();
  if (interrupted(env_)) return ended_early(control, session, {});  // the pool stops after it
  if (server_end.event == Event::failed) {
    runs.stop_all();
    return failed(server_end.message);
  }
  // As 3.12, the test is counted up to TEST_END: what a sender wrote after the window closed
  // (while its workers stopped) reaches the server, which counts until TEST_END comes, and
  // belongs in both counts.
  const double extra_s = std::chrono::duration<double>(SteadyClock::now() - window_closed).count();
  std::vector<MeasuredWindow> to_end;
  for (std::size_t g = 0; g < runs.size(); ++g) to_end.push_back(runs.window_to_now(g, extra_s));
  if (Status sent = control.write(session.end_test()); !sent) return failed(sent.error().message);
  const bool exchanged =
      expect(control, session, Event::exchange_results, step, "EXCHANGE_RESULTS");
  runs.stop(false);
  if (!exchanged) return ended_early(control, session, step);
  const std::vector<std::vector<WorkerReport>> reports = runs.all_reports();
  for (const std::vector<WorkerReport>& group_reports : reports)
    (void)log_worker_errors(group_reports, env_.log);
  const OurResults ours = our_results(groups_, to_end, reports);
  if (Status sent = control.write(session.send_results(ours.all)); !sent)
    return failed(sent.error().message);
  if (!expect(control, session, Event::server_results, step, "its results"))
    return ended_early(control, session, step);
  const Results theirs = step.results;
  if (!expect(control, session, Event::done, step, "DISPLAY_RESULTS"))
    return ended_early(control, session, step);
  if (Status sent = control.write(step.write); !sent) return failed(sent.error().message);

  if (json_) {
    json_->set_end({to_end.front().seconds, ours.all, theirs, ours.out_of_order});
    if (spec_.iperf3.get_server_output) json_->set_server_output(theirs);
    env_.log.raw(json_->text());
    return exit_code::success;
  }
  if (spec_.output.verbose) say("Test Complete. Summary Results:");
  for (const std::string& line :
       summary(ours.by_group, theirs, to_end, streams.ids, !live.ended_with_separator()))
    say(line);
  if (spec_.output.verbose) {
    const bool sending_first = groups_.front().sending;
    say(
        fmt::format("CPU Utilization: local/{} {:.1f}% ({:.1f}%u/{:.1f}%s), remote/{} {:.1f}% "
                    "({:.1f}%u/{:.1f}%s)",
                    sending_first ? "sender" : "receiver", ours.all.cpu_total, ours.all.cpu_user,
                    ours.all.cpu_system, sending_first ? "receiver" : "sender", theirs.cpu_total,
                    theirs.cpu_user, theirs.cpu_system));
    const std::optional<std::string>& sender_cc =
        sending_first ? ours.all.congestion_used : theirs.congestion_used;
    const std::optional<std::string>& receiver_cc =
        sending_first ? theirs.congestion_used : ours.all.congestion_used;
    if (sender_cc) say("snd_tcp_congestion " + *sender_cc);
    if (receiver_cc) say("rcv_tcp_congestion " + *receiver_cc);
  }
  if (spec_.iperf3.get_server_output) say_server_output(theirs);
  say("");
  say("iperf Done.");
  return exit_code::success;
}

}  // namespace

int run_client(const TestSpec& spec, RunEnv& env) {
  Client client(spec, env);
  return client.run();
}

}  // namespace xttcp::iperf3
