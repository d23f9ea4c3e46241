#include "engine/run/result_builder.hh"

#include <algorithm>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "engine/run/latency_result.hh"
#include "engine/stats/call_clock.hh"
#include "engine/stats/device_window.hh"
#include "engine/udp/udp_result.hh"
#include "xttcp_config.h"

namespace xttcp {

Result build_result(const RunFacts& facts, const MeasuredWindow& window,
                    const std::vector<WorkerReport>& reports) {
  const TestSpec& spec = *facts.spec;
  Result r;
  r.spec = spec;
  r.role = spec.role;
  r.tool_version = XTTCP_VERSION;
  r.backend = facts.backend;
  r.host = facts.host;
  r.cpu_mapping = facts.plan->describe_cpus();
  r.start_time = fmt::format("{:%Y-%m-%dT%H:%M:%S}Z",
                             fmt::gmtime(std::chrono::system_clock::to_time_t(window.started_at)));
  r.negotiated_cycle_s = facts.negotiated_cycle_s;
  r.duration_s = window.seconds;
  r.threads_created = facts.threads_created;
  r.intervals = window.intervals;

  // NTttcp "thread" rows: sums of the flows that belong to each.
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
      r.threads[flow.thread_index].bytes += bytes;
      r.total_bytes += bytes;
      r.total_operations += operations;
    }
  }

  if (spec.windows.latency_measurement)
    fill_latency(r, *facts.plan, window.end, call_clock_ns_per_tick());

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
  if (spec.role == Role::sender && spec.zerocopy != ZeroCopy::off) r.zerocopy = zerocopy;
  if (spec.protocol == Protocol::udp) {
    UdpResult udp = udp::window_figures(spec, window.udp_begin, window.udp_end, window.seconds);
    if (spec.role == Role::sender)
      udp.payload = spec.udp_payload == UdpPayload::compat ||
                            spec.send_buffer < udp_native_header_bytes
                        ? "compat"
                        : "native";
    udp.gso_segments = facts.udp_gso_segments;
    udp.gro = facts.udp_gro;
    const std::string sender_payload = udp.payload;
    udp::add_run_figures(udp, spec.role, facts.udp_run_flows, facts.udp_senders);
    if (spec.role == Role::sender) udp.payload = sender_payload;
    r.udp = std::move(udp);
  }
  if (spec.role == Role::sender && spec.protocol == Protocol::tcp && rtt_count > 0)
    r.tcp_average_rtt_us = static_cast<uint32_t>(rtt_sum / rtt_count);

  apply_system_deltas(window.system_begin, window.system_end, window.seconds, r.total_bytes,
                      r.host, r);
  if (window.device_begin && window.device_end) {
    r.device = device_window(*window.device_begin, *window.device_end, window.seconds,
                             spec.role == Role::sender, r.total_bytes);
    r.notes.push_back(device_note(*r.device, facts.backend));
  }
  return r;
}

}  // namespace xttcp
