// Rendering xttcp's native result JSON (docs/native-json.md): result files and the frame a
// native peer is sent. Reading it back is native_json_read.cc; the spec inside, spec_json.cc.
#include "engine/report/native_json.hh"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "engine/plan.hh"
#include "engine/report/json_fields.hh"
#include "engine/report/spec_json.hh"
#include "engine/rss/rss_json.hh"

namespace xttcp {

namespace {

using namespace json_fields;  // NOLINT: number() and optional_value()
using ordered_json = nlohmann::ordered_json;

}  // namespace

ordered_json latency_to_json(const IoLatency& l) {
  return {{"calls", l.calls},
          {"average_ns", number(l.average_ns)},
          {"min_ns", number(l.min_ns)},
          {"max_ns", number(l.max_ns)}};
}

ordered_json udp_json(const UdpResult& u) {
  ordered_json flows = ordered_json::array();
  for (const UdpFlowResult& f : u.flows) {
    flows.push_back({{"flow", f.flow},
                     {"payload", f.native ? "native" : "compat"},
                     {"sent", f.sent},
                     {"received", f.received},
                     {"lost", f.lost},
                     {"duplicates", f.duplicates},
                     {"reordered", f.reordered},
                     {"jitter_ms", number(f.jitter_ms)}});
  }
  return {
      {"payload", u.payload},
      {"datagram_size", u.datagram_size},
      {"gso_segments", u.gso_segments},
      {"gro", u.gro},
      {"window", {{"datagrams", u.window_datagrams}, {"pps", number(u.window_pps)}}},
      {"run",
       {{"sent", u.sent},
        {"received", u.received},
        {"lost", u.lost},
        {"loss_percent", number(u.loss_percent)},
        {"loss_source", u.loss_source},
        {"duplicates", u.duplicates},
        {"reordered", u.reordered},
        {"jitter_ms", number(u.jitter_ms)},
        {"unattributed", u.unattributed},
        {"foreign",
         {{"datagrams", u.foreign_datagrams},
          {"bytes", u.foreign_bytes},
          {"end_markers", u.foreign_end_markers}}},
        {"headerless", {{"datagrams", u.headerless_datagrams}, {"bytes", u.headerless_bytes}}}}},
      {"flows", std::move(flows)}};
}

namespace {

// What the device said of itself at setup (docs/topology.md): "" reasons when read.
ordered_json device_description_json(const DeviceDescription& d) {
  ordered_json fields = ordered_json::object();
  for (const auto& [type, words] : d.rss.hash_fields) fields[type] = words;
  return {{"numa_node", d.numa_node ? ordered_json(*d.numa_node) : ordered_json()},
          {"numa_unavailable", d.numa_unavailable},
          {"rx_queues", d.rx_queues},
          {"tx_queues", d.tx_queues},
          {"max_rx_queues", d.max_rx_queues},
          {"max_tx_queues", d.max_tx_queues},
          {"reta_size", d.reta_size},
          {"hash_key_size", d.hash_key_size},
          {"rss_offloads", d.rss_offloads},
          {"rss",
           {{"nic", d.rss.nic},
            {"hash_function", d.rss.hash_function},
            {"queues", d.rss.queues},
            {"key", rss_key_hex(d.rss.key)},
            {"key_unavailable", d.key_unavailable},
            {"indirection", d.rss.indirection},
            {"indirection_unavailable", d.indirection_unavailable},
            {"hash_fields", std::move(fields)},
            {"hash_fields_unavailable", d.hash_fields_unavailable}}},
          {"warnings", d.warnings}};
}

}  // namespace

// A backend's own device over the window (dpdk: the port): docs in io_backends/dpdk/README.md.
ordered_json device_json(const DeviceResult& d) {
  ordered_json queues = ordered_json::array();
  for (const DeviceQueueResult& q : d.queues)
    queues.push_back({{"queue", q.queue},
                      {"tx_frames", q.tx_frames},
                      {"tx_bytes", q.tx_bytes},
                      {"rx_frames", q.rx_frames},
                      {"rx_bytes", q.rx_bytes}});
  ordered_json counters = ordered_json::object();
  for (const auto& [name, value] : d.counters) counters[name] = value;
  ordered_json out = {
      {"device", d.device},           {"driver", d.driver},
      {"direction", d.direction},     {"frames", d.frames},
      {"frame_bytes", d.frame_bytes}, {"mpps", number(d.mpps)},
      {"l1_gbps", number(d.l1_gbps)}, {"l2_gbps", number(d.l2_gbps)},
      {"l4_gbps", number(d.l4_gbps)}, {"cycles_per_frame", number(d.cycles_per_frame)},
      {"tsc_hz", d.tsc_hz},           {"pollers", d.pollers},
      {"queues", std::move(queues)},  {"counters", std::move(counters)}};
  if (d.description) out["description"] = device_description_json(*d.description);
  return out;
}

namespace {

ordered_json rr_latency_json(const RrLatency& l) {
  return {{"count", l.count},        {"mean_ns", number(l.mean_ns)},
          {"p50_ns", l.p50_ns},      {"p90_ns", l.p90_ns},
          {"p99_ns", l.p99_ns},      {"p99_9_ns", l.p999_ns},
          {"p99_99_ns", l.p9999_ns}, {"max_ns", l.max_ns}};
}

// --rr (docs/rr.md): the window's transactions, round trips and histogram.
ordered_json rr_json(const RrResult& rr) {
  ordered_json buckets = ordered_json::array();
  for (const auto& [lowest, count] : rr.histogram) buckets.push_back({lowest, count});
  ordered_json flows = ordered_json::array();
  for (const RrFlowResult& f : rr.flows) {
    ordered_json flow = {{"flow", f.flow},
                         {"transactions", f.transactions},
                         {"transactions_per_s", number(f.transactions_per_s)}};
    if (f.latency.count > 0) flow["latency"] = rr_latency_json(f.latency);
    flows.push_back(std::move(flow));
  }
  ordered_json j = {{"depth", rr.depth},
                    {"request_bytes", rr.request_bytes},
                    {"response_bytes", rr.response_bytes},
                    {"delay_us", rr.delay_us},
                    {"transactions", rr.transactions},
                    {"transactions_per_s", number(rr.transactions_per_s)},
                    {"cpu_us_per_transaction", number(rr.cpu_us_per_transaction)},
                    {"lost", rr.lost}};
  if (!rr.clock.empty()) j["clock"] = rr.clock;
  if (rr.latency.count > 0) {
    j["latency"] = rr_latency_json(rr.latency);
    j["histogram"] = {{"sub_bucket_bits", rr.sub_bucket_bits}, {"buckets", std::move(buckets)}};
  }
  j["flows"] = std::move(flows);
  return j;
}

double bit_rate(uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) * 8.0 / seconds : 0.0;
}

// Per interval, each watched connection's TCP_INFO: gauges at the interval's end, counts over it.
ordered_json interval_connections_json(const std::vector<ConnectionInterval>& connections) {
  ordered_json out = ordered_json::array();
  for (const ConnectionInterval& c : connections)
    out.push_back({{"id", c.id},
                   {"bytes", c.bytes},
                   {"rtt_us", c.rtt_us},
                   {"rttvar_us", c.rttvar_us},
                   {"snd_cwnd", c.snd_cwnd},
                   {"retransmits", c.retransmits},
                   {"delivery_rate_bps", c.delivery_rate_bps},
                   {"pacing_rate_bps", c.pacing_rate_bps},
                   {"busy_us", c.busy_us},
                   {"rwnd_limited_us", c.rwnd_limited_us},
                   {"sndbuf_limited_us", c.sndbuf_limited_us}});
  return out;
}

ordered_json threads_json(const Result& r) {
  ordered_json threads = ordered_json::array();
  // NTttcp for Windows: each thread's -m host (sender: where it connected; receiver: where it
  // listened, "*" or "" = any), since one run may address several.
  const bool mapped = r.spec.dialect == Dialect::windows && !r.spec.layout.mappings.empty();
  for (const ThreadResult& t : r.threads) {
    ordered_json thread = {{"index", t.index},
                           {"seconds", number(t.seconds)},
                           {"bytes", t.bytes},
                           {"throughput_bps", number(bit_rate(t.bytes, t.seconds))}};
    if (mapped) thread["host"] = thread_host(r.spec, t.index);
    if (t.latency) thread["latency"] = latency_to_json(*t.latency);
    threads.push_back(std::move(thread));
  }
  return threads;
}

ordered_json cpu_json(const CpuSplit& cpu) {
  ordered_json json = {
      {"user_pct", number(cpu.user)},
      {"system_pct", number(cpu.system)},
      {"idle_pct", number(cpu.idle)},
      {"iowait_pct", number(cpu.iowait)},
      {"softirq_pct", number(cpu.softirq)},
      {"cycles_per_byte", number(cpu.cycles_per_byte)},
      {"process_busy_pct", number(cpu.process_busy)},
      {"process_user_s", number(cpu.process_user_s)},
      {"process_system_s", number(cpu.process_system_s)},
  };
  if (cpu.softirq_threads_s) json["softirq_threads_s"] = number(*cpu.softirq_threads_s);
  return json;
}

// The system-wide retransmit counters; the whole window adds our own connections' figures.
ordered_json tcp_json(const Result& r, bool whole_window) {
  ordered_json tcp = {
      {"retrans_segs", r.tcp.retrans_segs},       {"lost_retransmit", r.tcp.lost_retransmit},
      {"syn_retrans", r.tcp.syn_retrans},         {"fast_retrans", r.tcp.fast_retrans},
      {"forward_retrans", r.tcp.forward_retrans}, {"slow_start_retrans", r.tcp.slow_start_retrans},
      {"retrans_fail", r.tcp.retrans_fail},
  };
  if (whole_window) {
    tcp["tcp_info_retransmits"] = r.tcp_info_retransmits;
    tcp["average_rtt_us"] = optional_value(r.tcp_average_rtt_us);
  }
  return tcp;
}

// nic, interrupts, and the Windows counters (transport, dpcs), each only when measured.
void add_system_counters(const Result& r, ordered_json& doc) {
  if (r.nic) {
    doc["nic"] = {{"interface", r.nic->interface_name},
                  {"tx_packets", r.nic->tx_packets},
                  {"rx_packets", r.nic->rx_packets}};
  }
  if (r.interrupts) {
    doc["interrupts"] = {{"pattern", r.interrupts->pattern}, {"total", r.interrupts->total}};
  }
  if (r.transport) {
    doc["transport"] = {{"packets_sent", r.transport->packets_sent},
                        {"packets_received", r.transport->packets_received},
                        {"errors", r.transport->errors}};
  }
  if (r.dpcs) doc["dpcs"] = *r.dpcs;
}

// One -sam sample: the sections of its window, no run-wide ones.
ordered_json sample_json(const Result& sample, size_t index) {
  const double bps = sample.throughput_bps();
  ordered_json doc;
  doc["index"] = index;
  doc["start_time"] = sample.start_time;
  doc["summary"] = {
      {"duration_s", number(sample.duration_s)}, {"total_bytes", sample.total_bytes},
      {"throughput_bps", number(bps)},           {"throughput_gbps", number(bps / 1e9)},
      {"operations", sample.total_operations},
  };
  if (sample.latency) doc["summary"]["latency"] = latency_to_json(*sample.latency);
  doc["threads"] = threads_json(sample);
  doc["cpu"] = cpu_json(sample.cpu);
  doc["tcp"] = tcp_json(sample, false);
  add_system_counters(sample, doc);
  if (sample.udp) {
    doc["udp"] = {
        {"datagram_size", sample.udp->datagram_size},
        {"window",
         {{"datagrams", sample.udp->window_datagrams}, {"pps", number(sample.udp->window_pps)}}}};
  }
  if (sample.device) doc["device"] = device_json(*sample.device);
  return doc;
}

}  // namespace

namespace {

// The environment keys, each only when it was read (docs/native-json.md, `host`).
void add_host_environment(const HostInfo& h, ordered_json& host) {
  for (const auto& [key, value] :
       {std::pair{"governor", &h.governor}, std::pair{"smt", &h.smt},
        std::pair{"dmi_vendor", &h.dmi_vendor}, std::pair{"dmi_product", &h.dmi_product},
        std::pair{"build", &h.build}})
    if (!value->empty()) host[key] = *value;
  if (!h.sysctls.empty()) {
    ordered_json sysctl = ordered_json::object();
    for (const auto& [name, value] : h.sysctls) sysctl[name] = value;
    host["sysctl"] = std::move(sysctl);
  }
  if (h.nic)
    host["nic"] = {{"interface", h.nic->interface_name},
                   {"driver", h.nic->driver},
                   {"driver_version", h.nic->driver_version},
                   {"firmware", h.nic->firmware},
                   {"bus", h.nic->bus},
                   {"mtu", h.nic->mtu},
                   {"channels", h.nic->channels},
                   {"rings", h.nic->rings},
                   {"coalescing", h.nic->coalescing},
                   {"offloads", h.nic->offloads},
                   {"queue_irqs", h.nic->queue_irqs}};
}

// A figure the driver did not count is null; an unavailable part is [] with its reason.
ordered_json queue_window_json(const QueueWindow& w) {
  ordered_json queues = ordered_json::array();
  for (const QueueDelta& q : w.queues)
    queues.push_back({{"queue", q.queue},
                      {"rx_packets", optional_value(q.rx_packets)},
                      {"rx_bytes", optional_value(q.rx_bytes)},
                      {"tx_packets", optional_value(q.tx_packets)},
                      {"tx_bytes", optional_value(q.tx_bytes)}});
  ordered_json irqs = ordered_json::array();
  for (const QueueIrqDelta& irq : w.irqs)
    irqs.push_back(
        {{"irq", irq.irq}, {"kind", irq.kind}, {"queue", irq.queue}, {"per_cpu", irq.per_cpu}});
  ordered_json cpus = ordered_json::array();
  for (const CpuBusy& cpu : w.cpus)
    cpus.push_back({{"cpu", cpu.cpu},
                    {"ticks", cpu.ticks},
                    {"busy", number(cpu.busy)},
                    {"user", number(cpu.user)},
                    {"system", number(cpu.system)},
                    {"irq", number(cpu.irq)},
                    {"softirq", number(cpu.softirq)},
                    {"steal", number(cpu.steal)}});
  return {{"nic", w.nic},
          {"driver", w.driver},
          {"queues", std::move(queues)},
          {"queues_source", w.queues_source},
          {"queues_unavailable", w.queues_unavailable},
          {"rx_imbalance", w.rx_imbalance ? number(*w.rx_imbalance) : ordered_json()},
          {"tx_imbalance", w.tx_imbalance ? number(*w.tx_imbalance) : ordered_json()},
          {"irqs", std::move(irqs)},
          {"irqs_unavailable", w.irqs_unavailable},
          {"net_rx_softirqs", w.net_rx_softirqs},
          {"net_tx_softirqs", w.net_tx_softirqs},
          {"softirqs_unavailable", w.softirqs_unavailable},
          {"cpus", std::move(cpus)},
          {"cpus_unavailable", w.cpus_unavailable},
          {"busiest_cpu", optional_value(w.busiest_cpu)}};
}

// max_connections: how many of r.connections to write (the peer frame's bound).
ordered_json native_document(const Result& r, bool with_peer, size_t max_connections = SIZE_MAX) {
  ordered_json doc;
  doc["schema"] = native_schema_name;
  doc["schema_version"] = native_schema_version;
  doc["tool"] = {{"name", "xttcp"}, {"version", r.tool_version}};
  doc["role"] = to_string(r.role);
  doc["backend"] = r.backend;
  if (!r.spec.backend_why.empty())  // --backend auto: what it took and why
    doc["backend_choice"] = {{"asked", "auto"}, {"why", r.spec.backend_why}};
  doc["host"] = {
      {"hostname", r.host.hostname},   {"os", r.host.os},
      {"kernel", r.host.kernel},       {"cpu_model", r.host.cpu_model},
      {"cpu_cores", r.host.cpu_cores}, {"cpu_mhz", number(r.host.cpu_mhz)},
  };
  add_host_environment(r.host, doc["host"]);
  doc["cpu_mapping"] = r.cpu_mapping;
  if (!r.placement.asked.empty())  // a run's own result always has it
    doc["placement"] = {
        {"asked", r.placement.asked}, {"used", r.placement.used}, {"why", r.placement.why}};
  if (r.source_ports) {
    const SourcePortSpread& sp = *r.source_ports;
    const auto first = [max_connections](const auto& per_flow) {
      return std::vector(per_flow.begin(),
                         per_flow.begin() + std::min(per_flow.size(), max_connections));
    };
    doc["source_ports"] = {{"spread", sp.spread},
                           {"why", sp.why},
                           {"nic", sp.nic},
                           {"flow_type", sp.flow_type},
                           {"queues", sp.queues},
                           {"predicted_flows_per_queue", sp.flows_per_queue},
                           {"flow_queues", first(sp.flow_queues)},
                           {"flow_ports", first(sp.flow_ports)}};
  }
  if (r.queue_window) doc["queue_window"] = queue_window_json(*r.queue_window);
  if (r.spread_check) {
    const SpreadCheck& c = *r.spread_check;
    std::vector<ordered_json> predicted, measured;
    for (const double share : c.predicted_share) predicted.push_back(number(share));
    for (const double share : c.measured_share) measured.push_back(number(share));
    doc["spread_check"] = {{"unavailable", c.unavailable},   {"measure", c.measure},
                           {"predicted_share", predicted},   {"measured_share", measured},
                           {"widest_queue", c.widest_queue}, {"widest_gap", number(c.widest_gap)}};
  }
  doc["start_time"] = r.start_time;
  doc["negotiated_cycle_s"] = r.negotiated_cycle_s;
  doc["spec"] = spec_to_json(r.spec);

  const double bps = r.throughput_bps();
  doc["summary"] = {
      {"duration_s", number(r.duration_s)},   {"total_bytes", r.total_bytes},
      {"throughput_bps", number(bps)},        {"throughput_gbps", number(bps / 1e9)},
      {"operations", r.total_operations},     {"connections", r.connections_tested},
      {"threads_created", r.threads_created},
  };
  if (r.latency) doc["summary"]["latency"] = latency_to_json(*r.latency);
  doc["end"] = {
      {"cut_short", r.cut_short}, {"cause", to_string(r.stop.cause)}, {"reason", r.stop.message}};
  doc["threads"] = threads_json(r);

  ordered_json intervals = ordered_json::array();
  for (const IntervalSample& i : r.intervals) {
    ordered_json interval = {{"start_s", number(i.start_s)},
                             {"seconds", number(i.seconds)},
                             {"bytes", i.bytes},
                             {"throughput_bps", number(bit_rate(i.bytes, i.seconds))}};
    if (r.udp) {
      interval["datagrams"] = i.datagrams;
      interval["lost"] = i.lost;
      interval["reordered"] = i.reordered;
      interval["jitter_ms"] = number(static_cast<double>(i.jitter_ns) / 1e6);
    }
    if (!i.connections.empty()) interval["connections"] = interval_connections_json(i.connections);
    intervals.push_back(std::move(interval));
  }
  doc["intervals"] = std::move(intervals);
  if (!r.watched_connections.empty() || r.connections_not_watched > 0) {
    ordered_json watched = ordered_json::array();
    for (const WatchedConnection& w : r.watched_connections)
      watched.push_back({{"id", w.id}, {"local", w.local}, {"remote", w.remote}});
    doc["watched_connections"] = std::move(watched);
    doc["connections_not_watched"] = r.connections_not_watched;
  }
  if (!r.samples.empty()) {
    ordered_json samples = ordered_json::array();
    for (size_t i = 0; i < r.samples.size(); ++i) samples.push_back(sample_json(r.samples[i], i));
    doc["samples"] = std::move(samples);
  }

  auto zerocopy_json = [](const ZeroCopyStats& z) {
    return ordered_json{{"sends", z.sends},
                        {"notifications", z.notifications},
                        {"copied", z.copied},
                        {"fell_back", z.fell_back}};
  };
  ordered_json connections = ordered_json::array();
  for (const ConnectionStats& c : r.connections) {
    if (connections.size() >= max_connections) break;
    ordered_json connection = {{"local", c.local},
                               {"remote", c.remote},
                               {"bytes", c.bytes},
                               {"rtt_us", c.rtt_us},
                               {"rttvar_us", c.rttvar_us},
                               {"total_retrans", c.total_retrans},
                               {"snd_cwnd", c.snd_cwnd},
                               {"pmtu", c.pmtu},
                               {"delivery_rate_bps", c.delivery_rate_bps}};
    if (!c.congestion.empty()) connection["congestion"] = c.congestion;
    if (c.zerocopy.sends > 0) connection["zerocopy"] = zerocopy_json(c.zerocopy);
    connections.push_back(std::move(connection));
  }
  doc["connections"] = std::move(connections);

  doc["cpu"] = cpu_json(r.cpu);
  doc["tcp"] = tcp_json(r, true);
  add_system_counters(r, doc);
  if (r.zerocopy) doc["zerocopy"] = zerocopy_json(*r.zerocopy);
  if (r.udp) doc["udp"] = udp_json(*r.udp);
  if (r.device) doc["device"] = device_json(*r.device);
  if (r.rr) doc["rr"] = rr_json(*r.rr);
  if (r.access)
    doc["access"] = {{"refused_control", r.access->refused_control},
                     {"refused_data", r.access->refused_data},
                     {"refused_datagrams", r.access->refused_datagrams},
                     {"over_max_clients", r.access->over_max_clients},
                     {"unauthenticated", r.access->unauthenticated}};
  doc["notes"] = r.notes;
  if (with_peer && r.peer) doc["peer"] = native_document(*r.peer, false);
  if (r.other_direction)
    doc["other_direction"] = native_document(*r.other_direction, with_peer, max_connections);
  return doc;
}

// What a peer frame leaves out of a result document (render_peer_frame), and the note saying
// how many connections it cut.
void trim_for_peer(ordered_json& doc, const Result& r) {
  // Each connection's TCP_INFO per interval stays in this end's own --json: it is megabytes per
  // minute, and the exchange between peers is bounded (sync_code::kMaxFrameBytes).
  for (auto& interval : doc["intervals"]) interval.erase("connections");
  doc.erase("watched_connections");
  doc.erase("connections_not_watched");
  if (r.connections.size() > peer_frame_connections)
    doc["notes"].push_back(
        fmt::format("connections: the first {} of {} (the rest stayed with the "
                    "{}: the exchange between peers is bounded)",
                    peer_frame_connections, r.connections.size(), to_string(r.role)));
}

}  // namespace

std::string render_native_json(const Result& r) {
  return native_document(r, true).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

std::string render_peer_frame(const Result& r) {
  ordered_json doc = native_document(r, false, peer_frame_connections);
  trim_for_peer(doc, r);
  if (r.other_direction) trim_for_peer(doc["other_direction"], *r.other_direction);
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::ordered_json result_to_json(const Result& r) { return native_document(r, true); }

}  // namespace xttcp
