#include "engine/report/native_json.hh"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "engine/plan.hh"
#include "engine/report/bounded_json.hh"
#include "topology/placement.hh"

namespace xttcp {

namespace {

using ordered_json = nlohmann::ordered_json;

// Non-finite numbers (a probe that divided by zero) are written as null, read back as 0.
ordered_json number(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

template <class T>
ordered_json optional_value(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

// ---- reading -------------------------------------------------------------------------------
// Readers throw BadField inside this file only; the public functions turn it into an Error.

struct BadField {
  std::string message;
};

[[noreturn]] void bad(const std::string& path, const char* rule) {
  throw BadField{fmt::format("{}: {}", path, rule)};
}

template <class Json>
const Json* member(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

template <class Json, class T>
void read(const Json& obj, const char* key, T& out, const std::string& parent) {
  const Json* v = member(obj, key);
  if (v == nullptr) return;  // absent: keep the default
  const std::string path = parent.empty() ? key : parent + "." + key;
  if constexpr (std::is_same_v<T, bool>) {
    if (!v->is_boolean()) bad(path, "expected true or false");
    out = v->template get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v->is_string()) bad(path, "expected a string");
    out = v->template get<std::string>();
  } else if constexpr (std::is_same_v<T, double>) {
    if (v->is_null()) {
      out = 0;
    } else if (v->is_number()) {
      out = v->template get<double>();
    } else {
      bad(path, "expected a number");
    }
  } else if constexpr (std::is_unsigned_v<T>) {
    if (!v->is_number_unsigned()) bad(path, "expected a non-negative integer");
    uint64_t n = v->template get<uint64_t>();
    if (n > std::numeric_limits<T>::max()) bad(path, "value out of range");
    out = static_cast<T>(n);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    if (!v->is_number_integer()) bad(path, "expected an integer");
    out = v->template get<int64_t>();
  } else if constexpr (std::is_same_v<T, int>) {
    if (!v->is_number_integer()) bad(path, "expected an integer");
    int64_t n = v->template get<int64_t>();
    if (n < std::numeric_limits<int>::min() || n > std::numeric_limits<int>::max()) {
      bad(path, "value out of range");
    }
    out = static_cast<int>(n);
  } else {
    static_assert(sizeof(T) == 0, "no reader for this type");
  }
}

// null or absent = nullopt.
template <class Json, class T>
void read(const Json& obj, const char* key, std::optional<T>& out, const std::string& parent) {
  const Json* v = member(obj, key);
  if (v == nullptr || v->is_null()) {
    out.reset();
    return;
  }
  T value{};
  read(obj, key, value, parent);
  out = std::move(value);
}

template <class Json>
const Json* object_member(const Json& obj, const char* key, const std::string& parent) {
  const Json* v = member(obj, key);
  if (v != nullptr && !v->is_object())
    bad(parent.empty() ? key : parent + "." + key, "expected an object");
  return v;
}

template <class Json>
const Json* array_member(const Json& obj, const char* key) {
  const Json* v = member(obj, key);
  if (v != nullptr && !v->is_array()) bad(key, "expected an array");
  return v;
}

template <class Json>
IoLatency read_latency(const Json& j, const std::string& path) {
  IoLatency latency;
  read(j, "calls", latency.calls, path);
  read(j, "average_ns", latency.average_ns, path);
  read(j, "min_ns", latency.min_ns, path);
  read(j, "max_ns", latency.max_ns, path);
  return latency;
}

Role role_from(const std::string& text, const std::string& path) {
  if (text == "receiver") return Role::receiver;
  if (text == "sender") return Role::sender;
  if (text == "local") return Role::local;
  bad(path, "expected \"receiver\", \"sender\" or \"local\"");
}

template <class Json>
WindowsOptions read_windows_options(const Json& j) {
  const std::string p = "spec.windows";
  WindowsOptions w;
  if (const Json* mappings = member(j, "mappings")) {
    if (!mappings->is_array()) bad(p + ".mappings", "expected an array");
    for (const Json& m : *mappings) {
      if (!m.is_object()) bad(p + ".mappings[]", "expected an object");
      WindowsMapping mapping;
      read(m, "threads", mapping.threads, p + ".mappings[]");
      read(m, "cpu", mapping.cpu, p + ".mappings[]");
      read(m, "host", mapping.host, p + ".mappings[]");
      w.mappings.push_back(std::move(mapping));
    }
  }
  read(j, "async_buffers", w.async_buffers, p);
  read(j, "socket_recv_buffer", w.socket_recv_buffer, p);
  read(j, "socket_send_buffer", w.socket_send_buffer, p);
  read(j, "send_buffer_implied", w.send_buffer_implied, p);
  read(j, "buffer_count", w.buffer_count, p);
  read(j, "count_timeout_s", w.count_timeout_s, p);
  read(j, "wait_timeout_ms", w.wait_timeout_ms, p);
  read(j, "sync_port", w.sync_port, p);
  read(j, "sample_s", w.sample_s, p);
  read(j, "numa_node", w.numa_node, p);
  read(j, "hide_per_thread", w.hide_per_thread, p);
  read(j, "latency_measurement", w.latency_measurement, p);
  read(j, "verify_data", w.verify_data, p);
  read(j, "udp_unconnected", w.udp_unconnected, p);
  read(j, "wait_all", w.wait_all, p);
  read(j, "wsa", w.wsa, p);
  read(j, "throttle_kBps", w.throttle_kBps, p);
  read(j, "udp_send_offload", w.udp_send_offload, p);
  read(j, "udp_receive_coalescing", w.udp_receive_coalescing, p);
  read(j, "no_stdio_buffer", w.no_stdio_buffer, p);
  read(j, "xml_append", w.xml_append, p);
  return w;
}

template <class Json>
TestSpec read_spec(const Json& j) {
  if (!j.is_object()) bad("spec", "expected an object");
  const std::string p = "spec";
  TestSpec s;
  std::string text;
  if (member(j, "role") != nullptr) {
    read(j, "role", text, p);
    s.role = role_from(text, p + ".role");
  }
  read(j, "address", s.address, p);
  if (member(j, "protocol") != nullptr) {
    read(j, "protocol", text, p);
    if (text == "tcp") {
      s.protocol = Protocol::tcp;
    } else if (text == "udp") {
      s.protocol = Protocol::udp;
    } else {
      bad(p + ".protocol", "expected \"tcp\" or \"udp\"");
    }
  }
  read(j, "ipv6", s.ipv6, p);
  read(j, "ports", s.ports, p);
  read(j, "threads_per_port", s.threads_per_port, p);
  read(j, "conns_per_thread", s.conns_per_thread, p);
  read(j, "base_port", s.base_port, p);
  read(j, "source_base_port", s.source_base_port, p);
  read(j, "source_address", s.source_address, p);
  read(j, "mapping_cpu", s.mapping_cpu, p);
  read(j, "mapping_text", s.mapping_text, p);
  read(j, "send_buffer", s.send_buffer, p);
  read(j, "recv_buffer", s.recv_buffer, p);
  read(j, "rate_limit_bps", s.rate_limit_bps, p);
  read(j, "fq_rate_limit_bps", s.fq_rate_limit_bps, p);
  read(j, "no_delay", s.no_delay, p);
  read(j, "warmup_s", s.warmup_s, p);
  read(j, "duration_s", s.duration_s, p);
  read(j, "cooldown_s", s.cooldown_s, p);
  read(j, "no_sync", s.no_sync, p);
  read(j, "multi_clients", s.multi_clients, p);
  read(j, "last_client", s.last_client, p);
  read(j, "hold", s.hold, p);
  read(j, "daemonize", s.daemonize, p);
  read(j, "use_epoll", s.use_epoll, p);
  read(j, "log_file", s.log_file, p);
  read(j, "xml_file", s.xml_file, p);
  read(j, "json_file", s.json_file, p);
  read(j, "quiet", s.quiet, p);
  read(j, "verbose", s.verbose, p);
  read(j, "show_tcp_retrans", s.show_tcp_retrans, p);
  read(j, "show_nic_packets", s.show_nic_packets, p);
  read(j, "show_dev_interrupts", s.show_dev_interrupts, p);
  read(j, "backend", s.backend, p);
  read(j, "native_json_file", s.native_json_file, p);
  read(j, "interval_s", s.interval_s, p);
  read(j, "worker_threads", s.worker_threads, p);
  read(j, "pin_workers", s.pin_workers, p);
  if (const auto* access = object_member(j, "access", p)) {
    if (const auto* allow = member(*access, "allow")) {
      if (!allow->is_array()) bad(p + ".access.allow", "expected an array of CIDR blocks");
      for (const auto& block : *allow) {
        if (!block.is_string()) bad(p + ".access.allow", "expected an array of CIDR blocks");
        s.access.allow.push_back(block.template get<std::string>());
      }
    }
    read(*access, "max_clients", s.access.max_clients, p + ".access");
  }
  std::string zerocopy = to_string(s.zerocopy);
  read(j, "zerocopy", zerocopy, p);
  if (zerocopy == "on") {
    s.zerocopy = ZeroCopy::on;
  } else if (zerocopy == "auto") {
    s.zerocopy = ZeroCopy::automatic;
  } else if (zerocopy == "off") {
    s.zerocopy = ZeroCopy::off;
  } else {
    bad("spec.zerocopy", "expected \"on\", \"off\" or \"auto\"");
  }
  std::string placement = placement_mode_name(s.placement.mode);
  read(j, "placement", placement, p);
  Expected<PlacementMode> mode = parse_placement_mode(placement);
  if (!mode) bad("spec.placement", "expected spread, numa, irq, irq-sibling or avoid-irq");
  s.placement.mode = *mode;
  read(j, "nic", s.placement.nic, p);
  read(j, "skip_rx_copy", s.skip_rx_copy, p);
  read(j, "sqpoll", s.sqpoll, p);
  std::string payload = to_string(s.udp_payload);
  read(j, "udp_payload", payload, p);
  if (payload == "auto") {
    s.udp_payload = UdpPayload::automatic;
  } else if (payload == "native") {
    s.udp_payload = UdpPayload::native;
  } else if (payload == "compat") {
    s.udp_payload = UdpPayload::compat;
  } else {
    bad("spec.udp_payload", "expected \"auto\", \"native\" or \"compat\"");
  }
  read(j, "udp_gso", s.udp_gso, p);
  read(j, "udp_gro", s.udp_gro, p);
  read(j, "dpdk_args", s.dpdk_args, p);
  read(j, "dpdk_port", s.dpdk_port, p);
  read(j, "peer_mac", s.peer_mac, p);
  if (const auto* repeat = object_member(j, "repeat", p)) {
    read(*repeat, "count", s.repeat.count, p + ".repeat");
    read(*repeat, "pause_s", s.repeat.pause_s, p + ".repeat");
  }
  read(j, "connect_timeout_s", s.connect_timeout_s, p);
  read(j, "wait_timeout_s", s.wait_timeout_s, p);
  if (member(j, "dialect") != nullptr) {
    read(j, "dialect", text, p);
    if (text == "linux") {
      s.dialect = Dialect::linux;
    } else if (text == "windows") {
      s.dialect = Dialect::windows;
    } else {
      bad(p + ".dialect", "expected \"linux\" or \"windows\"");
    }
  }
  if (const auto* w = object_member(j, "windows", p)) s.windows = read_windows_options(*w);
  if (const auto* rr = object_member(j, "rr", p)) {
    s.rr.on = true;
    read(*rr, "depth", s.rr.depth, p + ".rr");
    read(*rr, "response_size", s.rr.response_size, p + ".rr");
    read(*rr, "delay_us", s.rr.delay_us, p + ".rr");
  }
  return s;
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

ZeroCopyStats read_zerocopy(const ordered_json& z, const std::string& where) {
  ZeroCopyStats stats;
  read(z, "sends", stats.sends, where);
  read(z, "notifications", stats.notifications, where);
  read(z, "copied", stats.copied, where);
  read(z, "fell_back", stats.fell_back, where);
  return stats;
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

StopCause stop_cause_from(const std::string& text) {
  for (StopCause cause : {StopCause::none, StopCause::interrupted, StopCause::sender_stopped,
                          StopCause::sender_left, StopCause::senders_gone, StopCause::receiver_left,
                          StopCause::flows_done, StopCause::peer_failed})
    if (text == to_string(cause)) return cause;
  bad("end.cause", "not a known cause");
}

// `with_peer`: read the "peer" member too (one level: a peer's own peer is never read).
Result read_result(const ordered_json& j, bool with_peer) {
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
      r.host.nic = n;
    }
  }
  read(j, "cpu_mapping", r.cpu_mapping, "");
  if (const auto* placement = object_member(j, "placement", "")) {  // absent before issue 14
    read(*placement, "asked", r.placement.asked, "placement");
    read(*placement, "used", r.placement.used, "placement");
    read(*placement, "why", r.placement.why, "placement");
  }
  read(j, "start_time", r.start_time, "");
  read(j, "negotiated_cycle_s", r.negotiated_cycle_s, "");
  if (const auto* spec = member(j, "spec")) r.spec = read_spec(*spec);

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
      r.intervals.push_back(sample);
    }
  }
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
      if (const auto* d = object_member(sample, "device", "samples[]")) part.device = read_device(*d);
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
    r.access = access;
  }
  if (const auto* rr = object_member(j, "rr", "")) r.rr = read_rr(*rr);
  if (const auto* d = object_member(j, "device", "")) r.device = read_device(*d);
  if (const auto* notes = array_member(j, "notes"))
    for (const auto& note : *notes) r.notes.push_back(note.is_string() ? note.get<std::string>() : note.dump());
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
  return r;
}

}  // namespace

namespace {

// NTttcp for Windows' own options (WindowsOptions, engine/spec.hh); the shared ones (-l, -p, -t,
// -wu, -cd, -ns, -u, -6, -ndl, -nic, -xml, -v) are the spec's own keys.
ordered_json windows_options_json(const WindowsOptions& w) {
  ordered_json mappings = ordered_json::array();
  for (const WindowsMapping& m : w.mappings)
    mappings.push_back({{"threads", m.threads}, {"cpu", optional_value(m.cpu)}, {"host", m.host}});
  return {
      {"mappings", std::move(mappings)},
      {"async_buffers", w.async_buffers},
      {"socket_recv_buffer", w.socket_recv_buffer},
      {"socket_send_buffer", w.socket_send_buffer},
      {"send_buffer_implied", w.send_buffer_implied},
      {"buffer_count", optional_value(w.buffer_count)},
      {"count_timeout_s", w.count_timeout_s},
      {"wait_timeout_ms", w.wait_timeout_ms},
      {"sync_port", w.sync_port},
      {"sample_s", w.sample_s},
      {"numa_node", optional_value(w.numa_node)},
      {"hide_per_thread", w.hide_per_thread},
      {"latency_measurement", w.latency_measurement},
      {"verify_data", w.verify_data},
      {"udp_unconnected", w.udp_unconnected},
      {"wait_all", w.wait_all},
      {"wsa", w.wsa},
      {"throttle_kBps", w.throttle_kBps},
      {"udp_send_offload", w.udp_send_offload},
      {"udp_receive_coalescing", w.udp_receive_coalescing},
      {"no_stdio_buffer", w.no_stdio_buffer},
      {"xml_append", w.xml_append},
  };
}

}  // namespace

nlohmann::ordered_json spec_to_json(const TestSpec& s) {
  ordered_json j{
      {"role", to_string(s.role)},
      {"address", s.address},
      {"protocol", s.protocol == Protocol::tcp ? "tcp" : "udp"},
      {"ipv6", s.ipv6},
      {"ports", s.ports},
      {"threads_per_port", s.threads_per_port},
      {"conns_per_thread", s.conns_per_thread},
      {"base_port", s.base_port},
      {"source_base_port", s.source_base_port},
      {"source_address", s.source_address},
      {"mapping_cpu", optional_value(s.mapping_cpu)},
      {"mapping_text", s.mapping_text},
      {"send_buffer", s.send_buffer},
      {"recv_buffer", s.recv_buffer},
      {"rate_limit_bps", s.rate_limit_bps},
      {"fq_rate_limit_bps", s.fq_rate_limit_bps},
      {"no_delay", s.no_delay},
      {"warmup_s", s.warmup_s},
      {"duration_s", s.duration_s},
      {"cooldown_s", s.cooldown_s},
      {"no_sync", s.no_sync},
      {"multi_clients", s.multi_clients},
      {"last_client", s.last_client},
      {"hold", s.hold},
      {"daemonize", s.daemonize},
      {"use_epoll", s.use_epoll},
      {"log_file", optional_value(s.log_file)},
      {"xml_file", optional_value(s.xml_file)},
      {"json_file", optional_value(s.json_file)},
      {"quiet", s.quiet},
      {"verbose", s.verbose},
      {"show_tcp_retrans", s.show_tcp_retrans},
      {"show_nic_packets", s.show_nic_packets},
      {"show_dev_interrupts", s.show_dev_interrupts},
      {"backend", s.backend},
      {"native_json_file", optional_value(s.native_json_file)},
      {"interval_s", number(s.interval_s)},
      {"worker_threads", optional_value(s.worker_threads)},
      {"pin_workers", s.pin_workers},
      {"placement", placement_mode_name(s.placement.mode)},
      {"nic", s.placement.nic},
      {"zerocopy", to_string(s.zerocopy)},
      {"skip_rx_copy", s.skip_rx_copy},
      {"sqpoll", s.sqpoll},
      {"udp_payload", to_string(s.udp_payload)},
      {"udp_gso", s.udp_gso},
      {"udp_gro", s.udp_gro},
      {"dpdk_args", s.dpdk_args},
      {"dpdk_port", s.dpdk_port},
      {"peer_mac", s.peer_mac},
      {"connect_timeout_s", s.connect_timeout_s},
      {"wait_timeout_s", s.wait_timeout_s},
  };
  if (!s.source_addresses.empty()) j["source_addresses"] = s.source_addresses;
  if (s.access.restricted())
    j["access"] = {{"allow", s.access.allow}, {"max_clients", s.access.max_clients}};
  if (s.rr.on)
    j["rr"] = {{"depth", s.rr.depth},
               {"response_size", optional_value(s.rr.response_size)},
               {"delay_us", s.rr.delay_us}};
  if (s.repeat.count > 1)
    j["repeat"] = {{"count", s.repeat.count}, {"pause_s", number(s.repeat.pause_s)}};
  if (s.dialect == Dialect::windows) {  // what the NTttcp-for-Windows command line said
    j["dialect"] = "windows";
    j["windows"] = windows_options_json(s.windows);
  }
  return j;
}

Expected<TestSpec> spec_from_json(const nlohmann::json& j) {
  try {
    return read_spec(j);
  } catch (const BadField& e) {
    return fail("spec JSON: " + e.message);
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("spec JSON: ") + e.what());
  }
}

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
  return {{"payload", u.payload},
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
            {"jitter_ms", number(u.jitter_ms)}}},
          {"flows", std::move(flows)}};
}

ordered_json rr_latency_json(const RrLatency& l) {
  return {{"count", l.count},       {"mean_ns", number(l.mean_ns)}, {"p50_ns", l.p50_ns},
          {"p90_ns", l.p90_ns},     {"p99_ns", l.p99_ns},           {"p99_9_ns", l.p999_ns},
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
  if (rr.latency.count > 0) {
    j["latency"] = rr_latency_json(rr.latency);
    j["histogram"] = {{"sub_bucket_bits", rr.sub_bucket_bits}, {"buckets", std::move(buckets)}};
  }
  j["flows"] = std::move(flows);
  return j;
}

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
  return {{"device", d.device},
          {"driver", d.driver},
          {"direction", d.direction},
          {"frames", d.frames},
          {"frame_bytes", d.frame_bytes},
          {"mpps", number(d.mpps)},
          {"l1_gbps", number(d.l1_gbps)},
          {"l2_gbps", number(d.l2_gbps)},
          {"l4_gbps", number(d.l4_gbps)},
          {"cycles_per_frame", number(d.cycles_per_frame)},
          {"tsc_hz", d.tsc_hz},
          {"pollers", d.pollers},
          {"queues", std::move(queues)},
          {"counters", std::move(counters)}};
}

namespace {

double bit_rate(uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) * 8.0 / seconds : 0.0;
}

ordered_json threads_json(const Result& r) {
  ordered_json threads = ordered_json::array();
  // NTttcp for Windows: each thread's -m host (sender: where it connected; receiver: where it
  // listened, "*" or "" = any), since one run may address several.
  const bool mapped = r.spec.dialect == Dialect::windows && !r.spec.windows.mappings.empty();
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
  return {
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
}

// The system-wide retransmit counters; the whole window adds our own connections' figures.
ordered_json tcp_json(const Result& r, bool whole_window) {
  ordered_json tcp = {
      {"retrans_segs", r.tcp.retrans_segs},
      {"lost_retransmit", r.tcp.lost_retransmit},
      {"syn_retrans", r.tcp.syn_retrans},
      {"fast_retrans", r.tcp.fast_retrans},
      {"forward_retrans", r.tcp.forward_retrans},
      {"slow_start_retrans", r.tcp.slow_start_retrans},
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
    doc["udp"] = {{"datagram_size", sample.udp->datagram_size},
                  {"window",
                   {{"datagrams", sample.udp->window_datagrams},
                    {"pps", number(sample.udp->window_pps)}}}};
  }
  if (sample.device) doc["device"] = device_json(*sample.device);
  return doc;
}

}  // namespace

namespace {

// The environment keys, each only when it was read (docs/native-json.md, `host`).
void add_host_environment(const HostInfo& h, ordered_json& host) {
  for (const auto& [key, value] : {std::pair{"governor", &h.governor}, std::pair{"smt", &h.smt},
                                   std::pair{"dmi_vendor", &h.dmi_vendor},
                                   std::pair{"dmi_product", &h.dmi_product},
                                   std::pair{"build", &h.build}})
    if (!value->empty()) host[key] = *value;
  if (!h.sysctls.empty()) {
    ordered_json sysctl = ordered_json::object();
    for (const auto& [name, value] : h.sysctls) sysctl[name] = value;
    host["sysctl"] = std::move(sysctl);
  }
  if (h.nic)
    host["nic"] = {{"interface", h.nic->interface_name}, {"driver", h.nic->driver},
                   {"driver_version", h.nic->driver_version}, {"firmware", h.nic->firmware},
                   {"bus", h.nic->bus}, {"mtu", h.nic->mtu}};
}

// max_connections: how many of r.connections to write (the peer frame's bound).
ordered_json native_document(const Result& r, bool with_peer,
                             size_t max_connections = SIZE_MAX) {
  ordered_json doc;
  doc["schema"] = native_schema_name;
  doc["schema_version"] = native_schema_version;
  doc["tool"] = {{"name", "xttcp"}, {"version", r.tool_version}};
  doc["role"] = to_string(r.role);
  doc["backend"] = r.backend;
  doc["host"] = {
      {"hostname", r.host.hostname},   {"os", r.host.os},
      {"kernel", r.host.kernel},       {"cpu_model", r.host.cpu_model},
      {"cpu_cores", r.host.cpu_cores}, {"cpu_mhz", number(r.host.cpu_mhz)},
  };
  add_host_environment(r.host, doc["host"]);
  doc["cpu_mapping"] = r.cpu_mapping;
  if (!r.placement.asked.empty())  // a run's own result always has it
    doc["placement"] = {{"asked", r.placement.asked}, {"used", r.placement.used},
                        {"why", r.placement.why}};
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
  doc["end"] = {{"cut_short", r.cut_short},
                {"cause", to_string(r.stop.cause)},
                {"reason", r.stop.message}};
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
    intervals.push_back(std::move(interval));
  }
  doc["intervals"] = std::move(intervals);
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
    if (c.zerocopy.sends > 0) connection["zerocopy"] = zerocopy_json(c.zerocopy);
    connections.push_back(std::move(connection));
  }
  doc["connections"] = std::move(connections);

  doc["cpu"] = cpu_json(r.cpu);
  doc["tcp"] = tcp_json(r, true);
  add_system_counters(r, doc);
  if (r.zerocopy) doc["zerocopy"] = zerocopy_json(*r.zerocopy);
  if (r.udp) doc["udp"] = udp_json(*r.udp);
  if (r.rr) doc["rr"] = rr_json(*r.rr);
  if (r.device) doc["device"] = device_json(*r.device);
  if (r.access)
    doc["access"] = {{"refused_control", r.access->refused_control},
                     {"refused_data", r.access->refused_data},
                     {"refused_datagrams", r.access->refused_datagrams},
                     {"over_max_clients", r.access->over_max_clients}};
  doc["notes"] = r.notes;
  if (with_peer && r.peer) doc["peer"] = native_document(*r.peer, false);
  return doc;
}

}  // namespace

std::string render_native_json(const Result& r) {
  return native_document(r, true).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
         "\n";
}

std::string render_peer_frame(const Result& r) {
  ordered_json doc = native_document(r, false, peer_frame_connections);
  if (r.connections.size() > peer_frame_connections)
    doc["notes"].push_back(fmt::format("connections: the first {} of {} (the rest stayed with the "
                                       "{}: the exchange between peers is bounded)",
                                       peer_frame_connections, r.connections.size(),
                                       to_string(r.role)));
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

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

nlohmann::ordered_json result_to_json(const Result& r) { return native_document(r, true); }

Expected<Result> result_from_json(const nlohmann::ordered_json& doc) {
  try {
    return read_result(doc, true);
  } catch (const BadField& e) {
    return fail("native result: " + e.message);
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("native result: ") + e.what());
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

}  // namespace xttcp
