// Reading xttcp's native result JSON back (docs/native-json.md): result files
// (parse_native_json) and the result a native peer sends over the control connection
// (parse_peer_result), within the same bounds. The renderer is native_json.cc.
#include "engine/report/native_json.hh"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "engine/report/bounded_json.hh"
#include "engine/report/json_fields.hh"
#include "engine/report/spec_json.hh"
#include "engine/rss/rss_json.hh"

namespace xttcp {

namespace {

using namespace json_fields;  // NOLINT: this file is one of their two main users
using ordered_json = nlohmann::ordered_json;

template <class Json>
IoLatency read_latency(const Json& j, const std::string& path) {
  IoLatency latency;
  read(j, "calls", latency.calls, path);
  read(j, "average_ns", latency.average_ns, path);
  read(j, "min_ns", latency.min_ns, path);
  read(j, "max_ns", latency.max_ns, path);
  return latency;
}

// An array of at most `max` unsigned numbers, each fitting T.
template <class T>
std::vector<T> read_numbers(const ordered_json& parent, const char* key, std::size_t max,
                            const std::string& path) {
  std::vector<T> out;
  const ordered_json* list = member(parent, key);
  if (list == nullptr) return out;
  if (!list->is_array() || list->size() > max) bad(path + "." + key, "expected a bounded array");
  for (const ordered_json& value : *list) {
    if (!value.is_number_unsigned() || value.get<uint64_t>() > std::numeric_limits<T>::max())
      bad(path + "." + key, "expected non-negative integers in range");
    out.push_back(static_cast<T>(value.get<uint64_t>()));
  }
  return out;
}

SourcePortSpread read_spread(const ordered_json& j) {
  SourcePortSpread spread;
  const std::string p = "source_ports";
  read(j, "spread", spread.spread, p);
  read(j, "why", spread.why, p);
  read(j, "nic", spread.nic, p);
  read(j, "flow_type", spread.flow_type, p);
  read(j, "queues", spread.queues, p);
  spread.flows_per_queue = read_numbers<uint32_t>(j, "predicted_flows_per_queue", 4096, p);
  spread.flow_queues = read_numbers<uint32_t>(j, "flow_queues", limits::max_connections, p);
  spread.flow_ports = read_numbers<uint16_t>(j, "flow_ports", limits::max_connections, p);
  return spread;
}

SpreadCheck read_spread_check(const ordered_json& j) {
  SpreadCheck c;
  const std::string p = "spread_check";
  read(j, "unavailable", c.unavailable, p);
  read(j, "measure", c.measure, p);
  read(j, "widest_queue", c.widest_queue, p);
  read(j, "widest_gap", c.widest_gap, p);
  for (const char* key : {"predicted_share", "measured_share"}) {
    std::vector<double>& out =
        std::string_view(key) == "predicted_share" ? c.predicted_share : c.measured_share;
    const ordered_json* list = member(j, key);
    if (list == nullptr) continue;
    if (!list->is_array() || list->size() > 4096) bad(p + "." + key, "expected a bounded array");
    for (const ordered_json& share : *list) {
      if (!share.is_number() || share.get<double>() < 0 || share.get<double>() > 1)
        bad(p + "." + key, "expected shares between 0 and 1");
      out.push_back(share.get<double>());
    }
  }
  return c;
}

QueueWindow read_queue_window(const ordered_json& j) {
  QueueWindow w;
  const std::string p = "queue_window";
  read(j, "nic", w.nic, p);
  read(j, "driver", w.driver, p);
  read(j, "queues_source", w.queues_source, p);
  read(j, "queues_unavailable", w.queues_unavailable, p);
  read(j, "irqs_unavailable", w.irqs_unavailable, p);
  read(j, "softirqs_unavailable", w.softirqs_unavailable, p);
  read(j, "rx_imbalance", w.rx_imbalance, p);
  read(j, "tx_imbalance", w.tx_imbalance, p);
  constexpr std::size_t kMaxQueues = 4096, kMaxCpus = 8192;
  if (const auto* queues = array_member(j, "queues")) {
    if (queues->size() > kMaxQueues) bad(p + ".queues", "more than 4096 queues");
    for (const auto& q : *queues) {
      QueueDelta row;
      const std::string qp = p + ".queues[]";
      read(q, "queue", row.queue, qp);
      read(q, "rx_packets", row.rx_packets, qp);
      read(q, "rx_bytes", row.rx_bytes, qp);
      read(q, "tx_packets", row.tx_packets, qp);
      read(q, "tx_bytes", row.tx_bytes, qp);
      w.queues.push_back(row);
    }
  }
  if (const auto* irqs = array_member(j, "irqs")) {
    if (irqs->size() > 2 * kMaxQueues) bad(p + ".irqs", "more than 8192 IRQs");
    for (const auto& i : *irqs) {
      QueueIrqDelta row;
      const std::string ip = p + ".irqs[]";
      read(i, "irq", row.irq, ip);
      read(i, "kind", row.kind, ip);
      read(i, "queue", row.queue, ip);
      row.per_cpu = read_numbers<uint64_t>(i, "per_cpu", kMaxCpus, ip);
      w.irqs.push_back(std::move(row));
    }
  }
  w.net_rx_softirqs = read_numbers<uint64_t>(j, "net_rx_softirqs", kMaxCpus, p);
  w.net_tx_softirqs = read_numbers<uint64_t>(j, "net_tx_softirqs", kMaxCpus, p);
  read(j, "cpus_unavailable", w.cpus_unavailable, p);
  read(j, "busiest_cpu", w.busiest_cpu, p);
  if (const auto* cpus = array_member(j, "cpus")) {
    if (cpus->size() > kMaxCpus) bad(p + ".cpus", "more than 8192 CPUs");
    for (const auto& c : *cpus) {
      CpuBusy row;
      const std::string cp = p + ".cpus[]";
      read(c, "cpu", row.cpu, cp);
      read(c, "ticks", row.ticks, cp);
      for (auto [key, share] :
           {std::pair{"busy", &row.busy}, std::pair{"user", &row.user},
            std::pair{"system", &row.system}, std::pair{"irq", &row.irq},
            std::pair{"softirq", &row.softirq}, std::pair{"steal", &row.steal}}) {
        read(c, key, *share, cp);
        if (!(*share >= 0 && *share <= 1)) bad(cp + "." + key, "expected a share between 0 and 1");
      }
      w.cpus.push_back(row);
    }
  }
  return w;
}

Role role_from(const std::string& text, const std::string& path) {
  if (text == "receiver") return Role::receiver;
  if (text == "sender") return Role::sender;
  if (text == "local") return Role::local;
  bad(path, "expected \"receiver\", \"sender\" or \"local\"");
}

ZeroCopyStats read_zerocopy(const ordered_json& z, const std::string& where) {
  ZeroCopyStats stats;
  read(z, "sends", stats.sends, where);
  read(z, "notifications", stats.notifications, where);
  read(z, "copied", stats.copied, where);
  read(z, "fell_back", stats.fell_back, where);
  return stats;
}

// At most `max` strings of at most `max_chars` bytes each (flow type names, warnings).
std::vector<std::string> read_words(const ordered_json& parent, const char* key, std::size_t max,
                                    std::size_t max_chars, const std::string& path) {
  std::vector<std::string> out;
  const ordered_json* list = member(parent, key);
  if (list == nullptr) return out;
  if (!list->is_array() || list->size() > max) bad(path + "." + key, "expected a bounded array");
  for (const ordered_json& value : *list) {
    if (!value.is_string() || value.get_ref<const std::string&>().size() > max_chars)
      bad(path + "." + key, "expected short strings");
    out.push_back(value.get<std::string>());
  }
  return out;
}

DeviceDescription read_device_description(const ordered_json& j) {
  DeviceDescription d;
  const std::string p = "device.description";
  read(j, "numa_node", d.numa_node, p);
  read(j, "numa_unavailable", d.numa_unavailable, p);
  read(j, "rx_queues", d.rx_queues, p);
  read(j, "tx_queues", d.tx_queues, p);
  read(j, "max_rx_queues", d.max_rx_queues, p);
  read(j, "max_tx_queues", d.max_tx_queues, p);
  read(j, "reta_size", d.reta_size, p);
  read(j, "hash_key_size", d.hash_key_size, p);
  d.rss_offloads = read_words(j, "rss_offloads", 64, 32, p);
  d.warnings = read_words(j, "warnings", 16, 512, p);
  if (const auto* rss = object_member(j, "rss", p)) {
    const std::string rp = p + ".rss";
    read(*rss, "nic", d.rss.nic, rp);
    read(*rss, "hash_function", d.rss.hash_function, rp);
    read(*rss, "queues", d.rss.queues, rp);
    std::string key;
    read(*rss, "key", key, rp);
    if (!key.empty()) {
      auto bytes = rss_key_from_hex(key);
      if (!bytes) bad(rp + ".key", bytes.error().message.c_str());
      d.rss.key = std::move(*bytes);
    }
    read(*rss, "key_unavailable", d.key_unavailable, rp);
    d.rss.indirection = read_numbers<uint32_t>(*rss, "indirection", rss_limits::max_table, rp);
    read(*rss, "indirection_unavailable", d.indirection_unavailable, rp);
    if (const auto* fields = object_member(*rss, "hash_fields", rp)) {
      if (fields->size() > 16) bad(rp + ".hash_fields", "more than 16 flow types");
      for (const auto& [type, words] : fields->items()) {
        if (!words.is_string()) bad(rp + ".hash_fields", "expected strings");
        d.rss.hash_fields.emplace_back(type, words.get<std::string>());
      }
    }
    read(*rss, "hash_fields_unavailable", d.hash_fields_unavailable, rp);
  }
  return d;
}

DeviceResult read_device(const ordered_json& d) {
  DeviceResult device;
  const std::string p = "device";
  read(d, "device", device.device, p);
  read(d, "driver", device.driver, p);
  read(d, "direction", device.direction, p);
  read(d, "frames", device.frames, p);
  read(d, "frame_bytes", device.frame_bytes, p);
  read(d, "mpps", device.mpps, p);
  read(d, "l1_gbps", device.l1_gbps, p);
  read(d, "l2_gbps", device.l2_gbps, p);
  read(d, "l4_gbps", device.l4_gbps, p);
  read(d, "cycles_per_frame", device.cycles_per_frame, p);
  read(d, "tsc_hz", device.tsc_hz, p);
  read(d, "pollers", device.pollers, p);
  if (const auto* queues = array_member(d, "queues")) {
    for (const auto& q : *queues) {
      DeviceQueueResult queue;
      read(q, "queue", queue.queue, "device.queues[]");
      read(q, "tx_frames", queue.tx_frames, "device.queues[]");
      read(q, "tx_bytes", queue.tx_bytes, "device.queues[]");
      read(q, "rx_frames", queue.rx_frames, "device.queues[]");
      read(q, "rx_bytes", queue.rx_bytes, "device.queues[]");
      device.queues.push_back(queue);
    }
  }
  if (const auto* counters = object_member(d, "counters", p))
    for (const auto& [name, value] : counters->items())
      if (value.is_number_unsigned()) device.counters.emplace_back(name, value.get<uint64_t>());
  if (const auto* description = object_member(d, "description", p))
    device.description = read_device_description(*description);
  return device;
}

UdpResult read_udp(const ordered_json& u) {
  UdpResult udp;
  read(u, "payload", udp.payload, "udp");
  read(u, "datagram_size", udp.datagram_size, "udp");
  read(u, "gso_segments", udp.gso_segments, "udp");
  read(u, "gro", udp.gro, "udp");
  if (const auto* w = object_member(u, "window", "udp")) {
    read(*w, "datagrams", udp.window_datagrams, "udp.window");
    read(*w, "pps", udp.window_pps, "udp.window");
  }
  if (const auto* run = object_member(u, "run", "udp")) {
    const std::string p = "udp.run";
    read(*run, "sent", udp.sent, p);
    read(*run, "received", udp.received, p);
    read(*run, "lost", udp.lost, p);
    read(*run, "loss_percent", udp.loss_percent, p);
    read(*run, "loss_source", udp.loss_source, p);
    read(*run, "duplicates", udp.duplicates, p);
    read(*run, "reordered", udp.reordered, p);
    read(*run, "jitter_ms", udp.jitter_ms, p);
    read(*run, "unattributed", udp.unattributed, p);
    if (const auto* foreign = object_member(*run, "foreign", "udp.run")) {
      read(*foreign, "datagrams", udp.foreign_datagrams, "udp.run.foreign");
      read(*foreign, "bytes", udp.foreign_bytes, "udp.run.foreign");
      read(*foreign, "end_markers", udp.foreign_end_markers, "udp.run.foreign");
    }
    if (const auto* headerless = object_member(*run, "headerless", "udp.run")) {
      read(*headerless, "datagrams", udp.headerless_datagrams, "udp.run.headerless");
      read(*headerless, "bytes", udp.headerless_bytes, "udp.run.headerless");
    }
  }
  if (const auto* flows = array_member(u, "flows")) {
    for (const auto& f : *flows) {
      UdpFlowResult flow;
      const std::string p = "udp.flows[]";
      std::string payload = "native";
      read(f, "flow", flow.flow, p);
      read(f, "payload", payload, p);
      flow.native = payload != "compat";
      read(f, "sent", flow.sent, p);
      read(f, "received", flow.received, p);
      read(f, "lost", flow.lost, p);
      read(f, "duplicates", flow.duplicates, p);
      read(f, "reordered", flow.reordered, p);
      read(f, "jitter_ms", flow.jitter_ms, p);
      udp.flows.push_back(flow);
    }
  }
  return udp;
}

// The sections a window has, the whole one and each -sam sample alike: summary, threads, cpu,
// the system-wide tcp counters, nic, interrupts, transport and dpcs. `prefix` names where they
// are in error messages ("" or "samples[].").
void read_window_sections(const ordered_json& j, const std::string& prefix, Result& r) {
  const std::string parent = prefix.empty() ? prefix : prefix.substr(0, prefix.size() - 1);
  const std::string summary = prefix + "summary";
  if (const auto* s = object_member(j, "summary", parent)) {
    read(*s, "duration_s", r.duration_s, summary);
    read(*s, "total_bytes", r.total_bytes, summary);
    read(*s, "operations", r.total_operations, summary);
    read(*s, "connections", r.connections_tested, summary);
    read(*s, "threads_created", r.threads_created, summary);
    if (const auto* latency = object_member(*s, "latency", summary))
      r.latency = read_latency(*latency, summary + ".latency");
  }
  if (const auto* threads = array_member(j, "threads")) {
    const std::string where = prefix + "threads[]";
    for (const auto& t : *threads) {
      ThreadResult tr;
      read(t, "index", tr.index, where);
      read(t, "seconds", tr.seconds, where);
      read(t, "bytes", tr.bytes, where);
      if (const auto* latency = object_member(t, "latency", where))
        tr.latency = read_latency(*latency, where + ".latency");
      r.threads.push_back(tr);
    }
  }
  if (const auto* c = object_member(j, "cpu", parent)) {
    const std::string where = prefix + "cpu";
    read(*c, "user_pct", r.cpu.user, where);
    read(*c, "system_pct", r.cpu.system, where);
    read(*c, "idle_pct", r.cpu.idle, where);
    read(*c, "iowait_pct", r.cpu.iowait, where);
    read(*c, "softirq_pct", r.cpu.softirq, where);
    read(*c, "cycles_per_byte", r.cpu.cycles_per_byte, where);
    read(*c, "process_busy_pct", r.cpu.process_busy, where);
    read(*c, "process_user_s", r.cpu.process_user_s, where);
    read(*c, "process_system_s", r.cpu.process_system_s, where);
    read(*c, "softirq_threads_s", r.cpu.softirq_threads_s, where);  // absent or null: not measured
  }
  if (const auto* t = object_member(j, "tcp", parent)) {
    const std::string where = prefix + "tcp";
    read(*t, "retrans_segs", r.tcp.retrans_segs, where);
    read(*t, "lost_retransmit", r.tcp.lost_retransmit, where);
    read(*t, "syn_retrans", r.tcp.syn_retrans, where);
    read(*t, "fast_retrans", r.tcp.fast_retrans, where);
    read(*t, "forward_retrans", r.tcp.forward_retrans, where);
    read(*t, "slow_start_retrans", r.tcp.slow_start_retrans, where);
    read(*t, "retrans_fail", r.tcp.retrans_fail, where);
  }
  if (const auto* n = object_member(j, "nic", parent)) {
    const std::string where = prefix + "nic";
    NicPackets nic;
    read(*n, "interface", nic.interface_name, where);
    read(*n, "tx_packets", nic.tx_packets, where);
    read(*n, "rx_packets", nic.rx_packets, where);
    r.nic = nic;
  }
  if (const auto* i = object_member(j, "interrupts", parent)) {
    const std::string where = prefix + "interrupts";
    Interrupts irq;
    read(*i, "pattern", irq.pattern, where);
    read(*i, "total", irq.total, where);
    r.interrupts = irq;
  }
  if (const auto* t = object_member(j, "transport", parent)) {
    const std::string where = prefix + "transport";
    TransportCounters transport;
    read(*t, "packets_sent", transport.packets_sent, where);
    read(*t, "packets_received", transport.packets_received, where);
    read(*t, "errors", transport.errors, where);
    r.transport = transport;
  }
  read(j, "dpcs", r.dpcs, parent);
}

RrLatency read_rr_latency(const ordered_json& l, const std::string& p) {
  RrLatency latency;
  read(l, "count", latency.count, p);
  read(l, "mean_ns", latency.mean_ns, p);
  read(l, "p50_ns", latency.p50_ns, p);
  read(l, "p90_ns", latency.p90_ns, p);
  read(l, "p99_ns", latency.p99_ns, p);
  read(l, "p99_9_ns", latency.p999_ns, p);
  read(l, "p99_99_ns", latency.p9999_ns, p);
  read(l, "max_ns", latency.max_ns, p);
  return latency;
}

RrResult read_rr(const ordered_json& j) {
  RrResult rr;
  const std::string p = "rr";
  read(j, "depth", rr.depth, p);
  read(j, "request_bytes", rr.request_bytes, p);
  read(j, "response_bytes", rr.response_bytes, p);
  read(j, "delay_us", rr.delay_us, p);
  read(j, "transactions", rr.transactions, p);
  read(j, "transactions_per_s", rr.transactions_per_s, p);
  read(j, "cpu_us_per_transaction", rr.cpu_us_per_transaction, p);
  read(j, "lost", rr.lost, p);
  read(j, "clock", rr.clock, p);
  if (const auto* l = object_member(j, "latency", p))
    rr.latency = read_rr_latency(*l, p + ".latency");
  if (const auto* h = object_member(j, "histogram", p)) {
    read(*h, "sub_bucket_bits", rr.sub_bucket_bits, p + ".histogram");
    if (const auto* buckets = array_member(*h, "buckets"))
      for (const auto& b : *buckets) {
        if (!b.is_array() || b.size() != 2 || !b[0].is_number_unsigned() ||
            !b[1].is_number_unsigned())
          bad("rr.histogram.buckets[]", "expected [lowest_ns, count]");
        rr.histogram.emplace_back(b[0].get<uint64_t>(), b[1].get<uint64_t>());
      }
  }
  if (const auto* flows = array_member(j, "flows"))
    for (const auto& f : *flows) {
      RrFlowResult flow;
      read(f, "flow", flow.flow, "rr.flows[]");
      read(f, "transactions", flow.transactions, "rr.flows[]");
      read(f, "transactions_per_s", flow.transactions_per_s, "rr.flows[]");
      if (const auto* l = object_member(f, "latency", "rr.flows[]"))
        flow.latency = read_rr_latency(*l, "rr.flows[].latency");
      rr.flows.push_back(flow);
    }
  return rr;
}

StopCause stop_cause_from(const std::string& text) {
  for (StopCause cause : {StopCause::none, StopCause::interrupted, StopCause::sender_stopped,
                          StopCause::sender_left, StopCause::senders_gone, StopCause::receiver_left,
                          StopCause::flows_done, StopCause::peer_failed, StopCause::no_data})
    if (text == to_string(cause)) return cause;
  bad("end.cause", "not a known cause");
}

// `with_peer`: read the "peer" member too (one level: a peer's own peer is never read).
Result read_result(const ordered_json& j, bool with_peer, bool with_other_direction = true) {
  if (!j.is_object()) bad("native result", "expected a JSON object");
  std::string schema;
  if (member(j, "schema") == nullptr) bad("schema", "missing; not an xttcp result");
  read(j, "schema", schema, "");
  if (schema != native_schema_name) bad("schema", "expected \"xttcp-result\"");
  int version = 0;
  if (member(j, "schema_version") == nullptr) bad("schema_version", "missing");
  read(j, "schema_version", version, "");
  if (version < 1 || version > native_schema_version) {
    throw BadField{fmt::format("schema_version: {} is not supported (this xttcp reads 1 to {})",
                               version, native_schema_version)};
  }

  Result r;
  if (const auto* tool = object_member(j, "tool", ""))
    read(*tool, "version", r.tool_version, "tool");
  std::string role;
  if (member(j, "role") != nullptr) {
    read(j, "role", role, "");
    r.role = role_from(role, "role");
  }
  read(j, "backend", r.backend, "");
  if (const auto* end = object_member(j, "end", "")) {  // absent before xttcp 0.1.0's "end"
    read(*end, "cut_short", r.cut_short, "end");
    std::string cause = "none";
    read(*end, "cause", cause, "end");
    r.stop.cause = stop_cause_from(cause);
    read(*end, "reason", r.stop.message, "end");
  }
  if (const auto* h = object_member(j, "host", "")) {
    read(*h, "hostname", r.host.hostname, "host");
    read(*h, "os", r.host.os, "host");
    read(*h, "kernel", r.host.kernel, "host");
    read(*h, "cpu_model", r.host.cpu_model, "host");
    read(*h, "cpu_cores", r.host.cpu_cores, "host");
    read(*h, "cpu_mhz", r.host.cpu_mhz, "host");
    read(*h, "governor", r.host.governor, "host");
    read(*h, "smt", r.host.smt, "host");
    read(*h, "dmi_vendor", r.host.dmi_vendor, "host");
    read(*h, "dmi_product", r.host.dmi_product, "host");
    read(*h, "build", r.host.build, "host");
    if (const auto* sysctl = object_member(*h, "sysctl", "host")) {
      for (const auto& [name, value] : sysctl->items()) {
        if (!value.is_string()) bad("host.sysctl." + name, "expected a string");
        r.host.sysctls.emplace_back(name, value.get<std::string>());
      }
    }
    if (const auto* nic = object_member(*h, "nic", "host")) {
      NicIdentity n;
      read(*nic, "interface", n.interface_name, "host.nic");
      read(*nic, "driver", n.driver, "host.nic");
      read(*nic, "driver_version", n.driver_version, "host.nic");
      read(*nic, "firmware", n.firmware, "host.nic");
      read(*nic, "bus", n.bus, "host.nic");
      read(*nic, "mtu", n.mtu, "host.nic");
      read(*nic, "channels", n.channels, "host.nic");  // these five: absent before session 10
      read(*nic, "rings", n.rings, "host.nic");
      read(*nic, "coalescing", n.coalescing, "host.nic");
      read(*nic, "offloads", n.offloads, "host.nic");
      read(*nic, "queue_irqs", n.queue_irqs, "host.nic");
      r.host.nic = n;
    }
  }
  read(j, "cpu_mapping", r.cpu_mapping, "");
  if (const auto* placement = object_member(j, "placement", "")) {  // absent before issue 14
    read(*placement, "asked", r.placement.asked, "placement");
    read(*placement, "used", r.placement.used, "placement");
    read(*placement, "why", r.placement.why, "placement");
  }
  if (const auto* ports = object_member(j, "source_ports", ""))
    r.source_ports = read_spread(*ports);
  if (const auto* queues = object_member(j, "queue_window", ""))
    r.queue_window = read_queue_window(*queues);
  if (const auto* check = object_member(j, "spread_check", ""))
    r.spread_check = read_spread_check(*check);
  read(j, "start_time", r.start_time, "");
  read(j, "negotiated_cycle_s", r.negotiated_cycle_s, "");
  if (const auto* spec = member(j, "spec")) r.spec = read_spec(*spec);
  // After the spec, which it belongs to (read_spec starts from a default spec).
  if (const auto* choice = object_member(j, "backend_choice", ""))  // --backend auto only
    read(*choice, "why", r.spec.backend_why, "backend_choice");

  if (const auto* intervals = array_member(j, "intervals")) {
    for (const auto& i : *intervals) {
      IntervalSample sample;
      read(i, "start_s", sample.start_s, "intervals[]");
      read(i, "seconds", sample.seconds, "intervals[]");
      read(i, "bytes", sample.bytes, "intervals[]");
      read(i, "datagrams", sample.datagrams, "intervals[]");
      read(i, "lost", sample.lost, "intervals[]");
      read(i, "reordered", sample.reordered, "intervals[]");
      double jitter_ms = 0;
      read(i, "jitter_ms", jitter_ms, "intervals[]");
      // Whole nanoseconds in a uint64: 1.8e13 ms (208 days) is far past any jitter measured,
      // and converting more, or a negative value, would be undefined.
      if (!(jitter_ms >= 0 && jitter_ms <= 1.8e13))
        bad("intervals[].jitter_ms", "expected milliseconds from 0 to 1.8e13");
      sample.jitter_ns = static_cast<uint64_t>(jitter_ms * 1e6 + 0.5);
      if (const auto* connections = array_member(i, "connections")) {
        // A run watches at most this many connections at once; each is a line on report's plot.
        if (connections->size() > limits::watched_connections)
          bad("intervals[].connections", "more connections than a run watches (64)");
        for (const auto& c : *connections) {
          ConnectionInterval ci;
          const std::string p = "intervals[].connections[]";
          read(c, "id", ci.id, p);
          read(c, "bytes", ci.bytes, p);
          read(c, "rtt_us", ci.rtt_us, p);
          read(c, "rttvar_us", ci.rttvar_us, p);
          read(c, "snd_cwnd", ci.snd_cwnd, p);
          read(c, "retransmits", ci.retransmits, p);
          read(c, "delivery_rate_bps", ci.delivery_rate_bps, p);
          read(c, "pacing_rate_bps", ci.pacing_rate_bps, p);
          read(c, "busy_us", ci.busy_us, p);
          read(c, "rwnd_limited_us", ci.rwnd_limited_us, p);
          read(c, "sndbuf_limited_us", ci.sndbuf_limited_us, p);
          sample.connections.push_back(ci);
        }
      }
      r.intervals.push_back(std::move(sample));
    }
  }
  if (const auto* watched = array_member(j, "watched_connections")) {
    for (const auto& w : *watched) {
      WatchedConnection who;
      read(w, "id", who.id, "watched_connections[]");
      read(w, "local", who.local, "watched_connections[]");
      read(w, "remote", who.remote, "watched_connections[]");
      r.watched_connections.push_back(std::move(who));
    }
  }
  read(j, "connections_not_watched", r.connections_not_watched, "");
  if (const auto* connections = array_member(j, "connections")) {
    for (const auto& c : *connections) {
      ConnectionStats cs;
      const std::string p = "connections[]";
      read(c, "local", cs.local, p);
      read(c, "remote", cs.remote, p);
      read(c, "bytes", cs.bytes, p);
      read(c, "rtt_us", cs.rtt_us, p);
      read(c, "rttvar_us", cs.rttvar_us, p);
      read(c, "total_retrans", cs.total_retrans, p);
      read(c, "snd_cwnd", cs.snd_cwnd, p);
      read(c, "pmtu", cs.pmtu, p);
      read(c, "delivery_rate_bps", cs.delivery_rate_bps, p);
      read(c, "congestion", cs.congestion, p);
      if (const auto* z = object_member(c, "zerocopy", p)) cs.zerocopy = read_zerocopy(*z, p);
      r.connections.push_back(cs);
    }
  }
  read_window_sections(j, "", r);
  if (const auto* t = object_member(j, "tcp", "")) {
    read(*t, "tcp_info_retransmits", r.tcp_info_retransmits, "tcp");
    read(*t, "average_rtt_us", r.tcp_average_rtt_us, "tcp");
  }
  if (const auto* samples = array_member(j, "samples")) {
    for (const auto& sample : *samples) {
      if (!sample.is_object()) bad("samples[]", "expected an object");
      Result part;
      part.spec = r.spec;
      part.role = r.role;
      part.tool_version = r.tool_version;
      part.backend = r.backend;
      part.host = r.host;
      part.cpu_mapping = r.cpu_mapping;
      part.placement = r.placement;
      part.negotiated_cycle_s = r.negotiated_cycle_s;
      part.threads_created = r.threads_created;
      read(sample, "start_time", part.start_time, "samples[]");
      read_window_sections(sample, "samples[].", part);
      if (const auto* u = object_member(sample, "udp", "samples[]")) part.udp = read_udp(*u);
      if (const auto* d = object_member(sample, "device", "samples[]"))
        part.device = read_device(*d);
      r.samples.push_back(std::move(part));
    }
  }
  if (const auto* z = object_member(j, "zerocopy", "")) r.zerocopy = read_zerocopy(*z, "zerocopy");
  if (const auto* u = object_member(j, "udp", "")) r.udp = read_udp(*u);
  if (const auto* a = object_member(j, "access", "")) {
    AccessResult access;
    read(*a, "refused_control", access.refused_control, "access");
    read(*a, "refused_data", access.refused_data, "access");
    read(*a, "refused_datagrams", access.refused_datagrams, "access");
    read(*a, "over_max_clients", access.over_max_clients, "access");
    if (a->contains("unauthenticated"))  // results from before --auth-key have none
      read(*a, "unauthenticated", access.unauthenticated, "access");
    r.access = access;
  }
  if (const auto* rr = object_member(j, "rr", "")) r.rr = read_rr(*rr);
  if (const auto* d = object_member(j, "device", "")) r.device = read_device(*d);
  if (const auto* notes = array_member(j, "notes"))
    for (const auto& note : *notes)
      r.notes.push_back(note.is_string() ? note.get<std::string>() : note.dump());
  if (const auto* peer = with_peer ? member(j, "peer") : nullptr) {
    // A string is what older versions kept of a peer result they could not read: not a result.
    if (peer->is_object()) {
      try {
        r.peer = std::make_shared<const Result>(read_result(*peer, false));
      } catch (const BadField& e) {
        bad("peer", e.message.c_str());
      }
    } else if (!peer->is_null() && !peer->is_string()) {
      bad("peer", "expected an object");
    }
  }
  if (const auto* other =
          with_other_direction ? object_member(j, "other_direction", "") : nullptr) {
    Result read;
    try {
      read = read_result(*other, with_peer, false);
    } catch (const BadField& e) {
      bad("other_direction", e.message.c_str());
    }
    if (read.role == r.role) bad("other_direction", "expected the other role's result");
    r.other_direction = std::make_shared<const Result>(std::move(read));
  }
  return r;
}

}  // namespace

Expected<Result> parse_peer_result(std::string_view text, Role expected_role) {
  auto doc = parse_bounded_json(text, native_result_limits, "peer result");
  if (!doc) return doc.error();
  try {
    Result peer = read_result(*doc, false);
    if (peer.role != expected_role)
      return fail(fmt::format("peer result: it is a {}'s result, expected a {}'s",
                              to_string(peer.role), to_string(expected_role)));
    return peer;
  } catch (const BadField& e) {
    return fail("peer result: " + e.message);
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("peer result: ") + e.what());
  }
}

Expected<Result> parse_native_json(std::string_view text) {
  auto doc = parse_bounded_json(text, native_result_limits, "native result");
  if (!doc) return doc.error();
  try {
    return read_result(*doc, true);
  } catch (const BadField& e) {
    return fail("native result: " + e.message);
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("native result: ") + e.what());
  }
}

Expected<Result> result_from_json(const nlohmann::ordered_json& doc) {
  try {
    return read_result(doc, true);
  } catch (const BadField& e) {
    return fail("native result: " + e.message);
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("native result: ") + e.what());
  }
}

}  // namespace xttcp
