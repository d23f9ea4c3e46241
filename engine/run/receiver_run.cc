// The receiver's lifecycle as a script of steps: prepare (plan, addresses), listen on the data
// ports, open the control plane (control_plane/receiver_control.hh: sync, -N, or the Windows
// dialect's), then test after test (-H): wait for a start, measure on its own clock, collect the
// senders' results, report.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <thread>
#include <utility>

#include "engine/control/windows_token.hh"
#include "engine/count_mode.hh"
#include "engine/net/socket_setup.hh"
#include "engine/report/interval_stream.hh"
#include "engine/run/descriptor_limit.hh"
#include "engine/report/log.hh"
#include "engine/report/native_runs.hh"
#include "engine/report/result_file.hh"
#include "engine/run/control_plane/receiver_control.hh"
#include "engine/run/publish.hh"
#include "engine/run/result_builder.hh"
#include "engine/run/result_checks.hh"
#include "engine/run/reverse_roles.hh"
#include "engine/run/reverse_streams.hh"
#include "engine/run/run_setup.hh"
#include "engine/run/second_direction.hh"
#include "engine/run/run.hh"
#include "engine/run/start_gate.hh"
#include "engine/run/timeline.hh"
#include "engine/run/worker_pool.hh"
#include "engine/stats/system_probe.hh"
#include "engine/udp/udp_result.hh"

namespace xttcp {

namespace {

using std::chrono::seconds;

// Every address the flows listen on, resolved once and checked to be this host's.
Expected<std::vector<SocketAddress>> listen_addresses(const TestSpec& spec, const Plan& plan,
                                                      const Backend& backend) {
  auto locals = resolve_hosts(spec, plan, "-r");
  if (!locals) return locals.error();
  const char* named_by = spec.dialect == Dialect::windows ? "-m" : "-r";
  for (const SocketAddress& address : *locals) {
    // A raw-frame backend (dpdk) owns its address on its own port, unknown to the kernel.
    if ((backend.capabilities() & cap_raw_frames) == 0 && !is_local_address(address))
      return fail(fmt::format("{}: cannot listen on {}: it is not an address of this host",
                              named_by, address.host()));
  }
  return locals;
}

// Count mode: the run ends once every thread's connection was closed by its sender (UDP: every
// sender flow's end marker arrived).
std::function<void()> count_mode_end(const TestSpec& spec, PhaseClock& clock,
                                     std::atomic<uint32_t>& flows_done) {
  if (!count_mode(spec)) return {};
  return [&flows_done, &clock, threads = spec.layout.ports,
          udp = spec.workload.protocol == Protocol::udp] {
    if (flows_done.fetch_add(1) + 1 == threads)
      clock.finish(StopCause::flows_done,
                   udp ? "count mode: every sender thread's end marker arrived"
                       : "count mode: every sender thread closed its connection");
  };
}

// -H with --json: the file holds every test's result, as a set of runs ("xttcp-runs", as
// --repeat writes; `xttcp compare` reads it), rewritten whole after each test. Bounded: the
// oldest results give way past this many.
constexpr size_t kHeldTestsKept = 200;
struct HeldTests {
  RunSet set;
  bool dropped_said = false;
};

// What one receiver serves for its whole life (every test with -H).
struct Receiver {
  const TestSpec& spec;
  PeerAdmission& admission;
  const Plan& plan;
  const std::string backend;
  WorkerPool& pool;
  ReceiverControl& control;
  StartGate& gate;
  const SystemProbe& probe;
  const HostInfo& host;
  const std::vector<CounterSnapshot>& before_release;  // count mode's window start
  HeldTests* held_tests = nullptr;                     // -H with --json: every test's result
  Backend* data_path = nullptr;                        // --reverse tests' senders run on it
  ReverseStreams* reverse_streams = nullptr;           // one port: --reverse tests' connections

  // The same receiver for one test: its spec (a sender's phases, or --reverse's sending half),
  // plan and workers.
  Receiver for_test(const TestSpec& test_spec, const Plan& test_plan, WorkerPool& workers) const {
    return {test_spec, admission, test_plan,      backend,    workers,   control,        gate,
            probe,     host,      before_release, held_tests, data_path, reverse_streams};
  }
};

// Adds `result` to the -H receiver's set and writes the set; false (an error logged) if the file
// could not be written.
bool keep_held_test(HeldTests& held, const Result& result, const std::string& path, Log& log) {
  held.set.runs.push_back(result);
  if (held.set.runs.size() > kHeldTestsKept) {
    held.set.runs.erase(held.set.runs.begin());
    if (!held.dropped_said) {
      log.info(fmt::format("--json {}: keeps the last {} tests' results (-H); older ones give way",
                           path, kHeldTestsKept));
      held.dropped_said = true;
    }
  }
  if (Status written = write_file_atomically(path, render_native_runs(held.set)); !written) {
    log.error(written.error().message);
    return false;
  }
  return true;
}

enum class Next { another_test, done };

// A test a peer's word started (ReceiverControl::starts_on_request) that sees no data this long
// from its start is ended: a connection that says 'R' and holds on does not hold the receiver.
constexpr std::chrono::seconds kNoDataLimit{30};

// The current test's start, for the no-data watch (the engine thread only).
struct TestStart {
  SteadyClock::time_point at{};
  uint64_t bytes = 0;
  bool watched = false;
};

// The receiver's one line for a sender that left mid-test, whatever its window came to: the
// cause is named the same way whether data had arrived or not (a kill right after the go came
// with none half the time, and then read as a mere empty test).
std::string sender_went_away(const MeasuredWindow& window, uint32_t duration_s) {
  if (!window.measured)
    return fmt::format("the sender went away before the measured window of a {} s test began",
                       duration_s);
  return fmt::format("the sender went away {:.2f} s into a {} s test", window.seconds, duration_s);
}

// True when the test's window carried no data at all: no result to record.
bool carried_nothing(const Result& result) {
  return result.total_bytes == 0 && (!result.udp || result.udp->window_datagrams == 0);
}

// UDP: the workers go on receiving until every native sender's result (its sent counts) has
// come, plus a moment for the datagrams still in flight, so loss is counted exactly.
std::vector<Result> early_sender_results(const Receiver& r, const MeasuredWindow& window,
                                         RunEnv& env) {
  if (r.spec.workload.protocol != Protocol::udp || !r.control.exchanges_results() ||
      !window.measured || user_interrupted(env) || env.clock.cause() == StopCause::sender_left)
    return {};
  std::vector<Result> results = r.control.sender_results(seconds(5 + r.spec.workload.cooldown_s));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return results;
}

// --allow / --max-clients / --auth-key: who was turned away, in the result and, if anyone, as
// a note.
void note_refusals(const TestSpec& spec, const PeerAdmission& admission, Result& result) {
  const bool authenticating = !spec.control.auth_key_file.empty();
  if (!spec.access.restricted() && !authenticating && !spec.layout.one_port) return;
  const PeerAdmission::Refusals refused = admission.refusals();
  result.access = AccessResult{refused.control, refused.data, refused.datagrams,
                               refused.over_max_clients, refused.unauthenticated};
  if (refused.total() == 0) return;
  std::string line = fmt::format(
      "refused so far: {} sync connection(s), {} data connection(s), {} datagram(s) from senders "
      "not served here (",
      refused.control, refused.data, refused.datagrams);
  std::vector<std::string> rules;
  if (!spec.access.allow.empty())
    rules.push_back(fmt::format("--allow {}", fmt::join(spec.access.allow, ",")));
  if (spec.access.max_clients > 0)
    rules.push_back(fmt::format("--max-clients {}: {} over it", spec.access.max_clients,
                                refused.over_max_clients));
  if (authenticating)
    rules.push_back(fmt::format("--auth-key: {} without the key", refused.unauthenticated));
  else if (spec.layout.one_port)
    rules.push_back(fmt::format("--one-port: {} without the cookie of this test's sender",
                                refused.unauthenticated));
  result.notes.push_back(line + fmt::format("{}", fmt::join(rules, ", ")) + ")");
}

// UDP: datagrams from flows no sender of the test declared, and datagrams without the header
// the test's datagrams carry, are in none of its figures; say so.
void note_foreign_datagrams(Result& result) {
  if (!result.udp) return;
  const UdpResult& u = *result.udp;
  if (u.foreign_datagrams + u.foreign_end_markers > 0)
    result.notes.push_back(fmt::format(
        "UDP: {} datagram(s) ({} bytes) and {} end marker(s) came from flows no sender of this "
        "test set up; they are not counted in its totals",
        u.foreign_datagrams, u.foreign_bytes, u.foreign_end_markers));
  if (u.headerless_datagrams > 0)
    result.notes.push_back(fmt::format(
        "UDP: {} datagram(s) ({} bytes) came without the header every datagram of this test "
        "carries (too short for it, or another payload); they are not counted in its totals",
        u.headerless_datagrams, u.headerless_bytes));
}

// The senders' results whose figures a run can produce; each refused one is logged and its line
// kept for the test's notes (its UDP counts would otherwise set the loss).
std::vector<Result> plausible_senders(std::vector<Result> results,
                                      std::vector<std::string>& refusals, Log& log) {
  std::erase_if(results, [&](const Result& sender) {
    std::optional<std::string> refused = refused_peer_result(sender);
    if (!refused) return false;
    log.error(*refused);
    refusals.push_back(std::move(*refused));
    return true;
  });
  return results;
}

// The test's result, with its first sender's result as the peer; `code` failed on a lost sender.
// What ran short on descriptors during a test's window: data connections the reserve closed
// at once, and shortages that began on a data listener (its queued connections waited).
struct DescriptorShortfall {
  uint64_t closed = 0;
  uint64_t shortages = 0;
  // At a window's start a listener already short counts as one shortage of the test (with -N
  // the first connection opens the test, and the rest of a burst can find the table full).
  static DescriptorShortfall of(const PeerAdmission& admission, bool at_start = false) {
    const uint64_t short_now =
        at_start ? static_cast<uint64_t>(std::max<int64_t>(admission.listeners_short(), 0)) : 0;
    return {admission.refusals().over_descriptor_reserve, admission.accept_shortages() - short_now};
  }
  DescriptorShortfall since(const DescriptorShortfall& start) const {
    return {closed - start.closed, shortages - start.shortages};
  }
};

// The line saying a test is not its senders' whole test for want of descriptors, if it is not.
std::optional<std::string> describe_shortfall(const DescriptorShortfall& shortfall) {
  if (shortfall.closed == 0 && shortfall.shortages == 0) return std::nullopt;
  std::string what;
  if (shortfall.closed > 0)
    what = fmt::format(
        "{} data connection(s) were closed at once (no room below the descriptors kept for the "
        "sync port)",
        shortfall.closed);
  if (shortfall.shortages > 0)
    what += fmt::format(
        "{}a data port ran out of descriptors {} time(s), its connections "
        "waiting unserved",
        what.empty() ? "" : " and ", shortfall.shortages);
  const uint64_t limit = open_files_limit();
  return fmt::format(
      "during this test {}: the figures are not the whole test (raise the open-files limit{})",
      what, limit == UINT64_MAX ? "" : fmt::format(", ulimit -n {}", limit));
}

// `back`: with --bidir, this end's result for the direction back (it sent), published and
// written as the result's other direction.
void report(const Receiver& r, const MeasuredWindow& window, uint32_t cycle_s,
            const std::vector<udp::FlowRecord>& udp_at_start, std::vector<Result> early,
            const std::vector<WorkerReport>& reports, const DescriptorShortfall& shortfall,
            std::optional<Result> back, RunEnv& env, int& code) {
  const bool interrupted = user_interrupted(env);
  const bool sender_gone = env.clock.cause() == StopCause::sender_left;
  std::vector<std::string> refusals;
  early = plausible_senders(std::move(early), refusals, env.log);
  std::vector<UdpFlowResult> udp_senders;
  for (const Result& sender : early)
    for (UdpFlowResult& flow : udp::sent_flows_in(sender)) udp_senders.push_back(flow);
  RunFacts facts{&r.spec,
                 &r.plan,
                 r.backend,
                 r.host,
                 cycle_s,
                 r.spec.layout.ports + r.control.threads(),
                 udp::active_since(r.pool.udp_snapshot(), udp_at_start),
                 std::move(udp_senders),
                 r.pool.udp_gro(),
                 r.pool.udp_gso_segments()};
  Result result = build_result(facts, window, reports);
  if (back) {
    share_cpu_between_directions(result, *back);
    result.other_direction = std::make_shared<const Result>(*back);
  }
  note_refusals(r.spec, r.admission, result);
  note_foreign_datagrams(result);
  // Connections closed for want of descriptors never carried their part: the figures are not
  // the whole test its senders ran (a note in every copy of the result, and exit 1).
  const std::optional<std::string> short_of_descriptors = describe_shortfall(shortfall);
  if (short_of_descriptors) result.notes.push_back(*short_of_descriptors);
  // -N (-ns in the Windows dialect), TCP: no control connection tells a sender that died, so
  // its data stopping early does (a note in every copy of the result, and exit 1). A UDP sender
  // may well send a burst.
  std::optional<std::string> silent;
  const bool unwatched =
      r.spec.control.no_sync && r.spec.workload.protocol == Protocol::tcp && !count_mode(r.spec);
  if (unwatched && !window.cut_short && (silent = silent_tail(result, window.late_s)))
    result.notes.push_back(*silent);
  if (carried_nothing(result) && !interrupted) {
    // No result: one line, the senders are told (they fail too), and nothing is written, so an
    // empty test never replaces a real one (-H). Only a lone test fails the run for it.
    env.log.error(fmt::format("the test carried no data ({}): no result recorded",
                              sender_gone ? sender_went_away(window, r.spec.workload.duration_s)
                              : env.clock.cause() != StopCause::none
                                  ? env.clock.reason().message
                                  : "nothing arrived in its window"));
    r.control.publish(result);
    r.control.test_was_empty();
    (void)r.control.sender_results(std::chrono::seconds(0));
    if (!r.spec.control.hold) code = exit_code::run_failed;
    return;
  }
  // This end's figures are on the console before its sender can have them and leave: LISA
  // kills the receiver the moment its sender returns, and parses what it printed.
  if (env.print_results) print_result(result, env.log);
  r.control.publish(result);
  // A sender that went away owes nothing worth waiting for; Ctrl+C here waits for nobody.
  std::vector<Result> results = std::move(early);
  if (results.empty() && r.control.exchanges_results())
    results = plausible_senders(
        r.control.sender_results(sender_gone || interrupted ? seconds(0) : seconds(5)), refusals,
        env.log);
  for (std::string& refused : refusals) result.notes.push_back(std::move(refused));
  if (!results.empty() && !back) drop_other_direction(results.front());
  if (back) {
    // The sender's result for the direction back came inside its own.
    if (!results.empty())
      if (std::optional<std::string> unusable = take_second_peer(results.front(), *back)) {
        env.log.error(*unusable);
        back->notes.push_back(std::move(*unusable));
      }
    result.other_direction = std::make_shared<const Result>(std::move(*back));
  }
  if (!results.empty()) result.peer = std::make_shared<const Result>(std::move(results.front()));
  if (env.result_out) *env.result_out = result;
  if (env.intervals) env.intervals->end(result);
  const bool keep_every_test = r.held_tests != nullptr && r.spec.output.native_json_file;
  if (env.print_results && !finish_result(result, env.log, !keep_every_test))
    code = exit_code::run_failed;
  if (env.print_results && keep_every_test &&
      !keep_held_test(*r.held_tests, result, *r.spec.output.native_json_file, env.log))
    code = exit_code::run_failed;
  if (window.cut_short && sender_gone && !interrupted) {
    env.log.error(sender_went_away(window, r.spec.workload.duration_s));
    code = exit_code::run_failed;
  } else if (silent) {
    env.log.error(*silent);
    code = exit_code::run_failed;
  }
  if (short_of_descriptors) {
    env.log.error(*short_of_descriptors);
    code = exit_code::run_failed;
  }
}

// The end of a test that measured nothing (`window` not measured): the line that says why, if
// any, and whether the run failed for it.
void test_not_measured(const Receiver& r, RunEnv& env, int& code) {
  const TestSpec& spec = r.spec;
  if (env.clock.cause() == StopCause::no_data) {
    env.log.error("the test carried no data (" + env.clock.reason().message +
                  "): no result recorded");
    r.control.test_was_empty();
    if (!spec.control.hold) code = exit_code::run_failed;
  } else if (env.clock.cause() == StopCause::sender_left && spec.workload.duration_s != 0) {
    env.log.error(sender_went_away(MeasuredWindow{}, spec.workload.duration_s));
    code = exit_code::run_failed;
  } else if (!user_interrupted(env) && spec.workload.duration_s != 0) {
    env.log.error("the test ended before its measured window began: " + env.clock.reason().message);
    code = exit_code::run_failed;
  }
}

// A --reverse or --bidir test's sending side (one port): its sender's workload
// (reverse_roles.hh) on the connections that sender made for this end to send on, handed over
// by the sync listener (with --bidir, the test's second direction). Its workers, open and not
// yet released; an error (one line, naming the option) when the workload cannot be sent or its
// connections did not all come.
Expected<std::unique_ptr<SecondDirection>> open_sending_side(const Receiver& receiver,
                                                             const ReverseTest& reverse,
                                                             RunEnv& env) {
  const std::string option = reverse_option(reverse.asked) + std::string(": ");
  auto spec =
      reverse_sending_spec(with_phases(receiver.spec, phases_of(reverse.asked)), reverse.asked);
  if (!spec) return spec.error();
  auto plan = replan(*spec, receiver.plan, *receiver.data_path);
  if (!plan) return fail(option + plan.error().message);
  auto side = std::make_unique<SecondDirection>();
  side->spec = std::move(*spec);
  side->plan = std::move(*plan);
  // Its sender made every connection before it said go: they are here, or nearly.
  std::vector<UniqueSocket> streams = receiver.reverse_streams->take(
      reverse.session, side->plan.flow_count,
      SteadyClock::now() + seconds(receiver.spec.control.connect_timeout_s));
  if (streams.size() < side->plan.flow_count)
    return fail(fmt::format("{}{} of the sender's {} connections came within {} s", option,
                            streams.size(), side->plan.flow_count,
                            receiver.spec.control.connect_timeout_s));
  env.log.info(fmt::format("{}this end sends, on the {} connections its sender made for it", option,
                           side->plan.flow_count));
  std::vector<NativeSocket> by_slot;
  for (UniqueSocket& stream : streams) by_slot.push_back(stream.release());
  side->pool = std::make_unique<WorkerPool>(*receiver.data_path, side->spec, side->plan,
                                            SocketAddress{}, SocketAddress{});
  side->pool->set_notice_log(&env.log);
  side->pool->adopt(by_slot);
  if (Status opened = side->pool->open_all(seconds(10)); !opened)
    return fail(option + opened.error().message);
  side->probe = std::make_unique<SystemProbe>(side->spec);
  return side;
}

// A --reverse or --bidir test that could not begin: its line, and the test ends empty.
Next sending_side_failed(const Receiver& receiver, const std::string& line, RunEnv& env,
                         int& code) {
  const bool go_on = receiver.spec.control.hold;
  env.log.error(line);
  receiver.reverse_streams->clear();
  receiver.gate.finished();
  receiver.control.test_finished();
  receiver.control.test_was_empty();
  if (!go_on) code = exit_code::run_failed;
  return go_on && !user_interrupted(env) ? Next::another_test : Next::done;
}

// A --reverse test (one port): this end sends its sender's workload on the connections that
// sender made, from `start` (the light) on the test's clock; then reports as any test does,
// its result a sender's.
Next run_reverse_test(const Receiver& receiver, const ReverseTest& reverse, uint32_t cycle,
                      SteadyClock::time_point start, RunEnv& env, int& code) {
  const bool go_on = receiver.spec.control.hold;
  auto opened = open_sending_side(receiver, reverse, env);
  if (!opened) return sending_side_failed(receiver, opened.error().message, env, code);
  SecondDirection& side = **opened;
  const TestSpec& spec = side.spec;
  std::optional<SteadyClock::time_point> measure_end;
  if (spec.workload.duration_s != 0)
    measure_end = start + seconds(spec.workload.warmup_s + spec.workload.duration_s);
  (void)receiver.control.test_started(start, measure_end);
  Timeline timeline(env.clock, *side.pool, *side.probe, env.log, spec.output.interval_s);
  timeline.add_sink(env.intervals, Role::sender);
  timeline.add_sink(env.live_report, Role::sender);
  timeline.begin_now();
  side.pool->release();
  const MeasuredWindow window = timeline.run(
      {spec.workload.warmup_s, spec.workload.duration_s, cycle, spec.output.sample_s}, start);
  receiver.gate.finished();
  receiver.control.test_finished();
  if (window.measured && !window.cut_short) receiver.control.test_ran_its_course();
  receiver.admission.next_test();
  const std::vector<WorkerReport> reports = side.pool->stop_and_join();
  if (!log_worker_errors(reports, env.log)) code = exit_code::run_failed;
  const Receiver r = receiver.for_test(spec, side.plan, *side.pool);
  if (!window.measured)
    test_not_measured(r, env, code);
  else
    report(r, window, cycle, {}, {}, reports, DescriptorShortfall{}, std::nullopt, env, code);
  return go_on && !user_interrupted(env) ? Next::another_test : Next::done;
}

// --bidir: the sending side's result, once the test's window ended.
std::optional<Result> finish_sending_side(const Receiver& r, SecondDirection& side, uint32_t cycle,
                                          RunEnv& env, int& code) {
  const std::vector<WorkerReport> reports = side.finish();
  if (!log_worker_errors(reports, env.log)) code = exit_code::run_failed;
  auto built = side.result(r.backend, r.host, cycle, reports);
  if (built) return std::move(*built);
  env.log.error(built.error().message);
  code = exit_code::run_failed;
  return std::nullopt;
}

// One test: wait for its start, measure, collect, report. `code` is failed on an error.
// `udp_at_start`: every UDP flow's counters as the workers were released or the last test
// ended (-H); this test's flows are those active since. `short_at_opening`: the descriptor
// shortfall as the light went on (the gate's note); what ran short since is this test's.
Next run_one_test(const Receiver& receiver, const std::vector<udp::FlowRecord>& udp_at_start,
                  const DescriptorShortfall& short_at_opening, Timeline& timeline,
                  TestStart& test_start, RunEnv& env, int& code) {
  if (user_interrupted(env)) return Next::done;
  const std::optional<uint32_t> cycle =
      receiver.gate.wait(seconds(receiver.spec.control.wait_timeout_s));
  if (!cycle) {
    if (receiver.control.failed()) {
      code = exit_code::run_failed;
    } else if (!receiver.gate.interrupted()) {
      env.log.error(fmt::format("no sender started a test within {} s (--wait-timeout)",
                                receiver.spec.control.wait_timeout_s));
      code = exit_code::run_failed;
    }
    return Next::done;
  }
  // A native sender's test runs as it asked (workload_agreement.hh): its phases, not this
  // receiver's own, which are for senders that say nothing of theirs (NTTTCP).
  const std::optional<TestPhases> asked = receiver.control.test_phases();
  // --reverse, --bidir: this end sends what its one native sender asked.
  const std::optional<ReverseTest> reverse = receiver.control.reverse_test();
  TestSpec spec = asked ? with_phases(receiver.spec, *asked) : receiver.spec;
  if (reverse && reverse->asked.workload.bidir) spec.workload.bidir = true;  // as it was asked
  if (asked && *asked != phases_of(receiver.spec))
    env.log.info(
        fmt::format("this test runs its sender's {} (this receiver's own {} is for "
                    "senders that do not say theirs)",
                    describe_phases(*asked), describe_phases(phases_of(receiver.spec))));
  const Receiver r = receiver.for_test(spec, receiver.plan, receiver.pool);
  // The window begins when the light went on (its counters taken by the opener then), not when
  // this thread woke: on a loaded host that can be after the sender started, which put the
  // sender's 'E' inside our window (a false "sender side was interrupted").
  StartGate::Opening opening = r.gate.take_opening();
  const auto start = opening.counts.empty() ? SteadyClock::now() : opening.at;
  // --bidir: this end also sends, beside the test it receives.
  std::unique_ptr<SecondDirection> back;
  if (reverse) {
    if (!reverse->asked.workload.bidir)
      return run_reverse_test(r, *reverse, *cycle, start, env, code);
    auto opened = open_sending_side(r, *reverse, env);
    if (!opened) {
      // Its connections to this end close too: its sender stops at once, not after -t.
      r.pool.close_sessions({reverse->session}, false);
      return sending_side_failed(r, opened.error().message, env, code);
    }
    back = std::move(*opened);
  }
  test_start = {start, r.pool.total_bytes(), r.control.starts_on_request()};
  if (!opening.counts.empty()) timeline.begin_from(std::move(opening.counts));
  std::optional<SteadyClock::time_point> measure_end;
  if (spec.workload.duration_s != 0)
    measure_end = start + seconds(spec.workload.warmup_s + spec.workload.duration_s);
  const std::optional<SteadyClock::time_point> first_data =
      r.control.test_started(start, measure_end);
  if (count_mode(spec)) timeline.begin_from(r.before_release, first_data);
  const Phases phases{spec.workload.warmup_s, spec.workload.duration_s, *cycle,
                      spec.output.sample_s};
  if (back) back->start(env.clock, env.log, phases, start);
  const MeasuredWindow window = timeline.run(phases, start);
  std::optional<Result> back_result;
  if (back) back_result = finish_sending_side(r, *back, *cycle, env, code);
  // From the light going on, not from this thread's waking: on a loaded host the sender's
  // first data connections can come (and be closed for want of descriptors) before it wakes
  // (CI's sanitizer leg: one closed, and the test said nothing). Before the light, they are
  // strangers', not this test's.
  const DescriptorShortfall shortfall =
      DescriptorShortfall::of(r.admission).since(short_at_opening);
  // The gate first: a start that comes once the control plane says "finished" (the next
  // sender, as soon as this one left) must be kept, not dropped as this test's.
  r.gate.finished();
  r.control.test_finished();
  // Before its sender has our result and the next one can ask: a test that ran its window with
  // data is no flood (the budget of tests per period bounds those that end at once or carry
  // nothing).
  if (window.measured && !window.cut_short && r.pool.total_bytes() != test_start.bytes)
    r.control.test_ran_its_course();
  r.admission.next_test();
  // One port: no --reverse test's connections waiting now are any later test's.
  if (r.reverse_streams != nullptr) r.reverse_streams->clear();
  std::vector<Result> early = early_sender_results(r, window, env);
  // With -H the workers go on serving; their reports come at the very end.
  const std::vector<WorkerReport> reports =
      spec.control.hold ? std::vector<WorkerReport>{} : r.pool.stop_and_join();
  if (!log_worker_errors(reports, env.log)) code = exit_code::run_failed;
  const bool go_on = spec.control.hold && !user_interrupted(env);
  if (!window.measured) {
    test_not_measured(r, env, code);
    return go_on ? Next::another_test : Next::done;
  }
  report(r, window, *cycle, udp_at_start, std::move(early), reports, shortfall,
         std::move(back_result), env, code);
  return go_on ? Next::another_test : Next::done;
}

// One port: the data connections the sync listener admitted, into the workers' inboxes or,
// for a --reverse sender, into its test's collection; each leaves with its session.
class OnePortDesk final : public StreamDesk {
 public:
  explicit OnePortDesk(ReverseStreams& reverse) : reverse_(reverse) {}
  // Before the control plane opens.
  void serve_with(WorkerPool& pool) { pool_ = &pool; }

  void hand_over(UniqueSocket socket, int session, bool reverse) override {
    if (reverse)
      reverse_.put(std::move(socket), session);
    else
      pool_->hand_over(std::move(socket), session);
  }
  void session_closed(int session) override {
    pool_->close_sessions({session}, false);
    reverse_.drop(session);
  }
  void test_starts_with(const std::vector<int>& sessions) override {
    pool_->close_sessions(sessions, true);
  }

 private:
  ReverseStreams& reverse_;
  WorkerPool* pool_ = nullptr;
};

// "listening on 10.0.0.2: sync port 5000 (TCP), data ports 5001-5016 (TCP)".
std::string listening_line(const TestSpec& spec, uint16_t first_data_port) {
  const char* data_protocol = spec.workload.protocol == Protocol::udp ? "UDP" : "TCP";
  const uint32_t last = uint32_t{first_data_port} + spec.layout.ports - 1;
  std::string where =
      spec.layout.address.empty() ? std::string("every address") : spec.layout.address;
  std::string ports =
      spec.layout.ports == 1
          ? fmt::format("data port {} ({})", first_data_port, data_protocol)
          : fmt::format("data ports {}-{} ({})", first_data_port, last, data_protocol);
  if (spec.layout.one_port && spec.workload.protocol == Protocol::udp)
    return fmt::format("listening on {}: one port {} (TCP: the sync; UDP: every data flow)", where,
                       spec.sync_port());
  if (spec.layout.one_port)
    return fmt::format("listening on {}: one port {} (TCP: the sync and every data connection)",
                       where, spec.sync_port());
  if (spec.control.no_sync) return fmt::format("listening on {}: {}", where, ports);
  return fmt::format("listening on {}: sync port {} (TCP), {}", where, spec.sync_port(), ports);
}

}  // namespace

int run_receiver(const TestSpec& spec, RunEnv& env) {
  Log& log = env.log;
  // -sp (Windows dialect): the data ports start one above the base port.
  TestSpec data_spec = spec;
  data_spec.layout.base_port = windows_token::first_data_port(spec);
  auto setup = prepare_run(data_spec, env.choice.backend);
  if (!setup) {
    log.error(setup.error().message);
    return exit_code::usage;
  }
  const Plan& plan = setup->plan;
  auto locals = listen_addresses(spec, plan, *setup->backend);
  if (!locals) {
    log.error(locals.error().message);
    return exit_code::usage;
  }
  SocketAddress local = locals->front();
  local.set_port(spec.layout.base_port);
  log.debug(fmt::format("{} worker thread(s) serve {} port(s): {}", plan.workers.size(),
                        spec.layout.ports, plan.describe_cpus()));

  StartGate gate;
  const CancelHook wake_gate = env.clock.add_cancel_hook([&gate, &env] {
    if (user_interrupted(env)) gate.interrupt();
  });
  auto filter = AddressFilter::from(spec.access.allow);  // checked when parsed: cannot fail
  if (!filter) {
    log.error("--allow: " + filter.error().message);
    return exit_code::usage;
  }
  PeerAdmission admission(std::move(*filter), spec.access.max_clients);
  // --auth-key, --one-port: data connections must name a session open now (set before any
  // listener).
  if (!spec.control.auth_key_file.empty() || spec.layout.one_port) admission.require_sessions();
  // The sync port keeps some descriptors idle data connections cannot take (prepare_run has
  // raised the limit already).
  if (!spec.control.no_sync) admission.keep_descriptors_for_control(open_files_limit());
  udp::FlowAdmission flow_admission;  // UDP: which flows speak for a test
  // The backend's own device (dpdk: its port), if it drives one, describes the RSS the data meets.
  const auto device = [&backend = *setup->backend]() -> std::optional<DeviceDescription> {
    std::optional<DeviceSnapshot> snapshot = backend.device_snapshot();
    return snapshot ? snapshot->description : std::nullopt;
  };
  // One port, TCP: the sync listener hands the data connections it admitted to the workers, or
  // to a --reverse test (UDP's datagrams come to the workers' own sockets on the port).
  const bool takes_streams = spec.layout.one_port && spec.workload.protocol == Protocol::tcp;
  ReverseStreams reverse_streams;
  OnePortDesk desk(reverse_streams);
  const auto control =
      make_receiver_control({spec, plan, *locals, gate, env.clock, log, &admission, &flow_admission,
                             device, takes_streams ? &desk : nullptr});
  SystemProbe probe(spec);
  const HostInfo host = read_host_info();
  std::atomic<uint32_t> flows_done{0};
  std::function<void()> flow_done = count_mode_end(spec, env.clock, flows_done);
  if (!flow_done) flow_done = control->flow_done_hook();
  WorkerPool pool(*setup->backend, spec, plan, local, local, control->accept_hook(),
                  std::move(flow_done), *locals);
  pool.set_notice_log(&log);
  pool.set_admission(&admission);
  pool.set_data_connection_hook(control->data_connection_hook());
  pool.set_flow_admission(&flow_admission);
  gate.count_with([&pool] { return pool.snapshot(); });
  DescriptorShortfall short_at_opening;  // written by the opener, read after the gate's wait
  gate.note_with([&short_at_opening, &admission] {
    short_at_opening = DescriptorShortfall::of(admission, true);
  });
  desk.serve_with(pool);
  if (takes_streams)
    if (Status inboxes = pool.open_inboxes(); !inboxes) {
      log.error(inboxes.error().message);
      return exit_code::run_failed;
    }
  if (Status opened = pool.open_all(seconds(10)); !opened) {
    log.error(opened.error().message);
    return exit_code::run_failed;
  }
  if (Status opened = control->open(); !opened) {
    log.error(opened.error().message);
    return exit_code::run_failed;
  }
  log.info(fmt::format("{} threads created", spec.layout.ports + control->threads()));
  // What a firewall rule needs, said at once (not under the original's name, whose console is
  // the original's).
  if (spec.defaults != Defaults::ntttcp && spec.dialect == Dialect::linux)
    log.info(listening_line(spec, data_spec.layout.base_port));
  const std::vector<CounterSnapshot> before_release = pool.snapshot();
  // Taken here, not as the first test begins: with -N a datagram opens the test, and on a
  // loaded host the workers could count the first ones before this thread took a later
  // snapshot, which then took them off the test (CI: 3,757 of 3,921 received).
  std::vector<udp::FlowRecord> udp_at_start = pool.udp_snapshot();
  pool.release();
  if (env.on_listening) env.on_listening();

  int code = exit_code::success;
  HeldTests held_tests;
  const Receiver receiver{spec,
                          admission,
                          plan,
                          std::string(setup->backend->name()),
                          pool,
                          *control,
                          gate,
                          probe,
                          host,
                          before_release,
                          spec.control.hold ? &held_tests : nullptr,
                          setup->backend,
                          &reverse_streams};
  Timeline timeline(env.clock, pool, probe, log, spec.output.interval_s);
  timeline.add_sink(env.intervals, spec.role);
  timeline.add_sink(env.live_report, spec.role);
  if (control->streams() && spec.workload.protocol == Protocol::tcp)
    timeline.count_streams([&control] { return control->streams().value_or(0); });
  TestStart test_start;
  timeline.set_watch(
      [&test_start, &pool]() -> std::optional<StopReason> {
        if (!test_start.watched || pool.total_bytes() != test_start.bytes) {
          test_start.watched = false;  // data came: the test is its sender's to run
          return std::nullopt;
        }
        if (SteadyClock::now() - test_start.at < kNoDataLimit) return std::nullopt;
        return StopReason{StopCause::no_data,
                          fmt::format("no data came in the first {} s of the test: it was ended",
                                      kNoDataLimit.count())};
      },
      true);  // a long cycle's cool-down is no place to hold on either
  while (run_one_test(receiver, udp_at_start, short_at_opening, timeline, test_start, env, code) ==
         Next::another_test) {
    // -H: the next test's clock, count-mode flows and UDP flows start afresh here, as the last
    // one ends, not as the next begins: on a loaded host its workers can count a whole
    // count-mode test (and finish the clock) before this thread gets there, and a reset then
    // lost the finish.
    env.clock.reset();
    pool.say_held_back_notices();
    flows_done = 0;
    udp_at_start = pool.udp_snapshot();
  }
  control->stop();
  const std::vector<WorkerReport> held = pool.stop_and_join();  // -H: every test's workers
  if (spec.control.hold && !log_worker_errors(held, log)) code = exit_code::run_failed;
  return code;
}

}  // namespace xttcp
