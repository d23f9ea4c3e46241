#include "engine/run/result_builder.hh"

#include <algorithm>
#include <set>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "engine/run/latency_result.hh"
#include "engine/run/result_checks.hh"
#include "engine/run/rr_result.hh"
#include "engine/stats/call_clock.hh"
#include "engine/stats/device_window.hh"
#include "engine/stats/host_environment.hh"
#include "engine/udp/udp_result.hh"
#include "xttcp_config.h"

namespace xttcp {

namespace {

// What a run is, the same for the whole window and for each of its -sam samples.
Result run_identity(const RunFacts& facts) {
  const TestSpec& spec = *facts.spec;
  Result r;
  r.spec = spec;
  r.role = spec.role;
  r.tool_version = XTTCP_VERSION;
  r.backend = facts.backend;
  r.host = facts.host;
  r.cpu_mapping = facts.plan->describe_cpus();
  r.placement = {placement_mode_name(facts.plan->placement.asked),
                 placement_mode_name(facts.plan->placement.used), facts.plan->placement.why};
  r.negotiated_cycle_s = facts.negotiated_cycle_s;
  r.threads_created = facts.threads_created;
  return r;
}

// The UDP datagrams of one window; the payload and offloads are the run's.
UdpResult udp_window(const RunFacts& facts, const MeasuredWindow& window) {
  const TestSpec& spec = *facts.spec;
  UdpResult udp = udp::window_figures(spec, window.udp_begin, window.udp_end, window.seconds);
  if (spec.role == Role::sender)
    udp.payload = spec.workload.udp_payload == UdpPayload::iperf2   ? "iperf2"
                  : spec.workload.udp_payload == UdpPayload::iperf3 ? "iperf3"
                  : spec.workload.udp_payload == UdpPayload::compat ||
                          spec.workload.send_buffer < udp_native_header_bytes
                      ? "compat"
                      : "native";
  udp.gso_segments = facts.udp_gso_segments;
  udp.gro = facts.udp_gro;
  return udp;
}

// The figures that come from the window's edge snapshots: its time, the NTttcp "thread" rows
// (sums of the flows that belong to each), the totals, and the system deltas.
void add_window_figures(const RunFacts& facts, const MeasuredWindow& window, Result& r) {
  r.start_time = fmt::format("{:%Y-%m-%dT%H:%M:%S}Z",
                             fmt::gmtime(std::chrono::system_clock::to_time_t(window.started_at)));
  r.duration_s = window.seconds;
  r.threads.resize(facts.plan->thread_rows);
  for (uint32_t i = 0; i < r.threads.size(); ++i) {
    r.threads[i].index = i;
    r.threads[i].seconds = window.seconds;
  }
  for (const WorkerPlan& worker : facts.plan->workers) {
    for (const FlowPlan& flow : worker.flows) {
      const uint64_t bytes = window.end[flow.slot].bytes - window.begin[flow.slot].bytes;
      const uint64_t operations =
          window.end[flow.slot].operations - window.begin[flow.slot].operations;
      ThreadResult& thread = r.threads[flow.thread_index];
      thread.bytes += bytes;
      thread.operations = thread.operations.value_or(0) + operations;
      r.total_bytes += bytes;
      r.total_operations += operations;
    }
  }
  // A data path that counts no operations (bytes but no calls) leaves the threads' unknown
  // (NTttcp's "Avg B / Compl" prints NA), never a division by zero.
  if (r.total_operations == 0 && r.total_bytes > 0)
    for (ThreadResult& thread : r.threads) thread.operations.reset();
  apply_system_deltas(window.system_begin, window.system_end, window.seconds, r.total_bytes, r.host,
                      r);
}

// One -sam sample as its own Result.
Result sample_result(const RunFacts& facts, const MeasuredWindow& sample) {
  Result r = run_identity(facts);
  add_window_figures(facts, sample, r);
  if (facts.spec->workload.protocol == Protocol::udp) r.udp = udp_window(facts, sample);
  if (sample.device_begin && sample.device_end)
    r.device = device_window(*sample.device_begin, *sample.device_end, sample.seconds,
                             facts.spec->role == Role::sender, r.total_bytes);
  if (facts.spec->io.time_each_call)
    fill_latency(r, *facts.plan, sample.end, call_clock_ns_per_tick());
  return r;
}

// -lm: every snapshot closes a latency period, so with -sam the window's end holds only the last
// sample's calls; the window's are those of all its samples together.
std::vector<CounterSnapshot> window_latency(const MeasuredWindow& window) {
  if (window.samples.empty()) return window.end;
  std::vector<CounterSnapshot> merged = window.end;
  for (CounterSnapshot& flow : merged) flow.latency = {};
  for (const MeasuredWindow& sample : window.samples)
    for (size_t slot = 0; slot < merged.size() && slot < sample.end.size(); ++slot)
      merged[slot].latency.merge(sample.end[slot].latency);
  return merged;
}

// The address the run's traffic left or arrived on: a connection's local end (TCP), else the
// address the spec named (a sender's -a, a receiver's bind address); "" when none is known.
std::string local_address(const Result& r) {
  std::string address = !r.connections.empty()   ? r.connections.front().local
                        : r.role == Role::sender ? r.spec.layout.source_address
                                                 : r.spec.layout.address;
  if (!r.connections.empty()) {  // "addr:port" or "[v6]:port"
    address.resize(std::min(address.size(), address.rfind(':')));
    if (address.starts_with('[') && address.ends_with(']'))
      address = address.substr(1, address.size() - 2);
  }
  return address;
}

// Read once per run, at its end: the figures of a regression check's environment.
void add_environment(Result& r) {
  read_host_environment(r.host);
  r.host.build = XTTCP_BUILD;
  if (const std::string address = local_address(r); !address.empty())
    r.host.nic = read_nic_identity(address);
}

// Who the intervals' connections are: those that appear in at least one measured interval.
void add_watched_connections(const MeasuredWindow& window, Result& r) {
  std::set<uint32_t> ids;
  for (const IntervalSample& interval : window.intervals)
    for (const ConnectionInterval& c : interval.connections) ids.insert(c.id);
  for (const WatchedConnection& who : window.watched)
    if (ids.contains(who.id)) r.watched_connections.push_back(who);
  r.connections_not_watched = window.not_watched;
}

}  // namespace

Result build_result(const RunFacts& facts, const MeasuredWindow& window,
                    const std::vector<WorkerReport>& reports) {
  const TestSpec& spec = *facts.spec;
  Result r = run_identity(facts);
  add_window_figures(facts, window, r);
  r.intervals = window.intervals;
  add_watched_connections(window, r);
  r.stop = window.stop;
  r.cut_short = window.cut_short;
  if (std::optional<std::string> pause = host_pause_note(window.late_s, window.seconds))
    r.notes.push_back(std::move(*pause));

  if (spec.io.time_each_call)
    fill_latency(r, *facts.plan, window_latency(window), call_clock_ns_per_tick());

  uint64_t rtt_sum = 0, rtt_count = 0;
  ZeroCopyStats zerocopy;
  for (const WorkerReport& report : reports) {
    if (spec.role == Role::sender) r.connections_tested += report.connections;
    for (const std::string& note : report.notes)  // each worker may say the same thing
      if (std::find(r.notes.begin(), r.notes.end(), note) == r.notes.end()) r.notes.push_back(note);
    for (const ConnectionStats& c : report.connection_stats) {
      r.connections.push_back(c);
      zerocopy += c.zerocopy;
      r.tcp_info_retransmits += c.total_retrans;
      if (c.rtt_us > 0) {
        rtt_sum += c.rtt_us;
        ++rtt_count;
      }
    }
  }
  if (spec.role == Role::sender && spec.io.zerocopy != ZeroCopy::off) r.zerocopy = zerocopy;
  // --rr over UDP answers datagrams rather than sequencing them: its figures are r.rr's.
  if (spec.workload.protocol == Protocol::udp && !spec.rr.on) {
    UdpResult udp = udp_window(facts, window);
    const std::string sender_payload = udp.payload;
    udp::add_run_figures(udp, spec.role, facts.udp_run_flows, facts.udp_senders);
    if (spec.role == Role::sender) udp.payload = sender_payload;
    if (spec.workload.udp_payload == UdpPayload::iperf2 && udp.payload == "native")
      udp.payload = "iperf2";  // sequenced by iperf 2's heads (the iperf2 dialect's server)
    if (spec.workload.udp_payload == UdpPayload::iperf3 && udp.payload == "native")
      udp.payload = "iperf3";
    r.udp = std::move(udp);
  }
  if (spec.role == Role::sender && spec.workload.protocol == Protocol::tcp && rtt_count > 0)
    r.tcp_average_rtt_us = static_cast<uint32_t>(rtt_sum / rtt_count);

  if (spec.rr.on) fill_rr(r, *facts.plan, window, reports);

  if (window.device_begin && window.device_end) {
    r.device = device_window(*window.device_begin, *window.device_end, window.seconds,
                             spec.role == Role::sender, r.total_bytes);
    r.notes.push_back(device_note(*r.device, facts.backend));
  }
  for (const MeasuredWindow& sample : window.samples)
    r.samples.push_back(sample_result(facts, sample));
  add_environment(r);
  return r;
}

void share_cpu_between_directions(Result& forth, Result& back) {
  const double both =
      static_cast<double>(forth.total_bytes) + static_cast<double>(back.total_bytes);
  if (both <= 0) return;
  for (Result* result : {&forth, &back}) {
    result->cpu.cycles_per_byte *= static_cast<double>(result->total_bytes) / both;
    result->notes.push_back(fmt::format(
        "--bidir: the CPU figures are the host's over the window, which moved both directions "
        "({} bytes); cycles/byte is over them all",
        forth.total_bytes + back.total_bytes));
  }
}

}  // namespace xttcp
