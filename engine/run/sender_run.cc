// The sender's lifecycle: sync (busy check, cycle negotiation, native hello), connect every flow,
// start, warm-up / measure / cool-down, early-exit notice, results (both sides' when the
// receiver is xttcp).
#include <fmt/format.h>

#include "engine/control/sync_client.hh"
#include "engine/control/sync_codes.hh"
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
  const milliseconds timeout = seconds(spec.connect_timeout_s);
  SocketAddress sync_address = receiver;
  sync_address.set_port(spec.sync_port());
  auto sync = SyncClient::connect(sync_address, source, timeout);
  if (!sync) return sync.error();
  log.debug("Sync connection: --> " + sync_address.to_string());

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

}  // namespace

int run_sender(const TestSpec& spec, RunEnv& env) {
  Log& log = env.log;
  auto setup = prepare_run(spec);
  if (!setup) {
    log.error(setup.error().message);
    return exit_code::usage;
  }
  const Plan& plan = setup->plan;
  auto receiver = resolve(spec.address, spec.base_port, spec.ipv6);
  if (!receiver) {
    log.error("-s: " + receiver.error().message);
    return exit_code::run_failed;
  }
  std::optional<SocketAddress> source;
  auto local = resolve(spec.source_address, 0, spec.ipv6);
  if (!local) {
    log.error("-a: " + local.error().message);
    return exit_code::run_failed;
  }
  if (!spec.source_address.empty()) source = *local;

  log.debug(fmt::format("{} worker thread(s) run {} connection(s): {}", plan.workers.size(),
                        spec.sender_connections(), plan.describe_cpus()));

  auto agreement = agree_with_receiver(spec, *receiver, source, log);
  if (!agreement) {
    log.error(agreement.error().message);
    return exit_code::run_failed;
  }

  SystemProbe probe(spec);
  const HostInfo host = read_host_info();
  WorkerPool pool(*setup->backend, spec, plan, *local, *receiver);
  const auto connect_start = SteadyClock::now();
  Status opened = pool.open_all(seconds(spec.connect_timeout_s + 5));
  log.info(fmt::format("{} threads created", spec.sender_threads()));
  if (!opened) {
    log.error(opened.error().message);
    return exit_code::run_failed;
  }
  log.info(fmt::format("{} connections created in {} microseconds", spec.sender_connections(),
                       std::chrono::duration_cast<std::chrono::microseconds>(
                           SteadyClock::now() - connect_start).count()));

  if (agreement->sync) {
    if (Status started = request_start(spec, *agreement->sync, log); !started) {
      log.error(started.error().message);
      return exit_code::run_failed;
    }
  }
  log.info("Network activity progressing...");
  const auto start = SteadyClock::now();
  pool.release();

  Timeline timeline(env.clock, pool, probe, log, spec.interval_s);
  const MeasuredWindow window = timeline.run(
      {spec.warmup_s, spec.duration_s, agreement->cycle_s}, start);
  const std::vector<WorkerReport> reports = pool.stop_and_join();

  // NTTTCP-for-Linux tells the receiver when it stopped before the agreed cycle; a native peer
  // always hears it, since it then waits for our result.
  SyncClient* sync = agreement->sync ? &*agreement->sync : nullptr;
  const milliseconds timeout = seconds(spec.connect_timeout_s);
  const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start).count();
  if (sync && (agreement->native || elapsed < agreement->cycle_s)) {
    if (auto state = sync->exchange(sync_code::kEarlyExit, timeout); !state)
      log.error("sync: " + state.error().message);
  }

  for (const WorkerReport& report : reports) {
    if (report.errors > 0) log.error(fmt::format("{} I/O error(s); first: {}", report.errors, report.first_error));
  }
  if (!window.measured) {
    if (env.clock.cancelled()) log.info("test interrupted: " + env.clock.reason());
    return spec.duration_s == 0 ? exit_code::success : exit_code::run_failed;
  }

  RunFacts facts{&spec, &plan, std::string(setup->backend->name()), host, agreement->cycle_s,
                 spec.sender_threads()};
  Result result = build_result(facts, window, reports);
  if (sync && agreement->native) {
    if (Status sent = sync->send_frame(render_native_json(result)); !sent) {
      log.error("sync: " + sent.error().message);
    } else if (auto peer = sync->read_frame(timeout + seconds(spec.cooldown_s + 5)); peer) {
      result.peer_result_json = *peer;
    } else {
      log.error("sync: no result from the receiver: " + peer.error().message);
    }
  }
  if (window.cut_short) log.info("test was cut short: " + env.clock.reason());
  const bool written = env.print_results ? publish_result(result, log) : true;
  if (env.result_out) *env.result_out = result;
  return written ? exit_code::success : exit_code::run_failed;
}

}  // namespace xttcp
