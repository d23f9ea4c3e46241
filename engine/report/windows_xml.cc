#include "engine/report/windows_xml.hh"

#include <fmt/format.h>

#include "engine/report/ntttcp_figures.hh"
#include "engine/report/windows_figures.hh"
#include "engine/report/xml_writer.hh"

namespace xttcp {

namespace {

// A child element holding one text value, with an optional metric="..." attribute.
void add(XmlElement& parent, const char* name, const std::string& value,
         const char* metric = nullptr) {
  parent.leaf(name, value, metric);
}

std::string fixed(double value, int precision) { return fmt::format("{:.{}f}", value, precision); }

// An unavailable figure is 0 in the file, as NTttcp writes a counter it could not read: the
// tools that read it take every figure for a number (windows_figures.hh).
std::string fixed(const std::optional<double>& value, int precision) {
  return fixed(value.value_or(0.0), precision);
}

std::string whole(const std::optional<uint64_t>& value) {
  return std::to_string(value.value_or(0));
}

void add_latency(XmlElement& parent, const std::optional<IoLatency>& latency) {
  auto ns = [&](double IoLatency::*field) { return fixed(latency ? (*latency).*field : 0.0, 0); };
  add(parent, "avg_latency", ns(&IoLatency::average_ns), "ns");
  add(parent, "min_latency", ns(&IoLatency::min_ns), "ns");
  add(parent, "max_latency", ns(&IoLatency::max_ns), "ns");
}

void add_parameters(XmlElement& root, const Result& r) {
  const TestSpec& spec = r.spec;
  const bool sender = r.role == Role::sender;
  const uint64_t threads = windows_thread_count(spec);
  const bool count_mode = spec.workload.buffer_count.has_value();
  XmlElement& p = root.child("parameters");
  add(p, "send_socket_buff", std::to_string(spec.io.socket_send_buffer));
  add(p, "recv_socket_buff", std::to_string(spec.io.socket_recv_buffer));
  // The original's port counter after thread setup: one step per thread, except sender
  // threads with -sp, which all connect to the base port.
  add(p, "port",
      std::to_string(spec.layout.base_port +
                     (sender && spec.control.port_assignment ? 0 : threads)));
  add(p, "sync_port", ntttcp_bool(spec.control.port_assignment));
  add(p, "no_sync", ntttcp_bool(spec.control.no_sync));
  // -to 0 is INFINITE (0xFFFFFFFF), which the original prints with %d.
  add(p, "wait_timeout_milliseconds",
      spec.io.wait_timeout_ms == 0 ? "-1" : std::to_string(spec.io.wait_timeout_ms));
  add(p, "async", ntttcp_bool(spec.io.outstanding > 0));
  add(p, "verbose", ntttcp_bool(spec.output.verbose));
  add(p, "wsa", ntttcp_bool(spec.accepted.wsa));
  add(p, "use_ipv6", ntttcp_bool(spec.layout.ipv6));
  add(p, "udp", ntttcp_bool(spec.workload.protocol == Protocol::udp));
  add(p, "udp_unconnected", ntttcp_bool(spec.io.udp_unconnected));
  add(p, "verify_data", ntttcp_bool(spec.workload.verify_data));
  add(p, "wait_all", ntttcp_bool(spec.io.wait_all));
  // Milliseconds; in count mode the original leaves run_time at 0 and -t is dash_n_timeout.
  add(p, "run_time", std::to_string(count_mode ? 0 : uint64_t{spec.workload.duration_s} * 1000));
  add(p, "warmup_time", std::to_string(uint64_t{spec.workload.warmup_s} * 1000));
  add(p, "cooldown_time", std::to_string(uint64_t{spec.workload.cooldown_s} * 1000));
  add(p, "dash_n_timeout", std::to_string(uint64_t{spec.workload.count_timeout_s} * 1000));
  add(p, "bind_sender", ntttcp_bool(!spec.layout.source_address.empty()));
  add(p, "sender_name", spec.layout.source_address);
  add(p, "max_active_threads", std::to_string(threads));
  add(p, "udp_uso_size", std::to_string(spec.io.udp_send_offload));
  add(p, "udp_receive_coalescing", spec.io.udp_receive_coalescing ? "1" : "0");
  // The options below are refused by xttcp (or accepted as no-ops): always their defaults.
  add(p, "tp", "False");
  add(p, "use_hvsocket_flag", "False");
  add(p, "no_stdio_buffer", ntttcp_bool(spec.accepted.no_stdio_buffer));
  add(p, "throughput_Bpms",
      std::to_string(spec.workload.thread_rate_kBps * 1024 / 1000));  // KBpsToBpms
  add(p, "cpu_burn", "0");
  add(p, "latency_measurement", ntttcp_bool(spec.io.time_each_call));
  add(p, "use_io_compl_ports", "False");
  add(p, "cpu_from_idle_flag", "False");
  add(p, "get_estats", "False");
  add(p, "qos_flag", "False");
  add(p, "jitter_measurement", "False");
  add(p, "packet_spacing", "0");
}

}  // namespace

std::string render_windows_xml(const Result& result) {
  const WindowsFigures f = windows_figures(result);
  XmlElement root(f.sender ? "ntttcps" : "ntttcpr");
  root.attribute("computername", f.computername);
  root.attribute("version", windows_ntttcp_version);

  add_parameters(root, result);

  if (!f.hide_per_thread) {
    for (const WindowsThreadFigures& t : f.threads) {
      XmlElement& thread = root.child("thread");
      thread.attribute("index", std::to_string(t.index));
      add(thread, "realtime", fixed(t.seconds, 3), "s");
      add(thread, "throughput", fixed(t.kilobytes_per_s, 3), "KB/s");
      add(thread, "throughput", fixed(t.megabytes_per_s, 3), "MB/s");
      add(thread, "throughput", fixed(t.megabits_per_s, 3), "mbps");
      add(thread, "throughput", fixed(t.bytes_per_s, 1), "Bps");
      add(thread, "avg_bytes_per_compl", fixed(t.avg_bytes_per_completion, 3), "B");
      if (f.latency_measurement) add_latency(thread, t.latency);
    }
  }

  add(root, "total_bytes", fixed(f.total_megabytes, 6), "MB");
  add(root, "realtime", fixed(f.seconds, 6), "s");
  add(root, "avg_bytes_per_compl", fixed(f.avg_bytes_per_completion, 3), "B");
  add(root, "threads_avg_bytes_per_compl", fixed(f.threads_avg_bytes_per_completion, 3), "B");
  add(root, "avg_frame_size", fixed(f.avg_frame_size, 3), "B");
  add(root, "throughput", fixed(f.megabytes_per_s, 3), "MB/s");
  add(root, "throughput", fixed(f.megabits_per_s, 3), "mbps");
  add(root, "throughput", fixed(f.bytes_per_s, 1), "Bps");
  add(root, "total_buffers", fixed(f.total_buffers, 3));
  add(root, "throughput", fixed(f.buffers_per_s, 3), "buffers/s");
  if (f.latency_measurement) add_latency(root, f.latency);
  add(root, "avg_packets_per_interrupt", fixed(f.packets_per_interrupt, 3), "packets/interrupt");
  add(root, "interrupts", fixed(f.interrupts_per_s, 3), "count/sec");
  add(root, "dpcs", fixed(f.dpcs_per_s, 3), "count/sec");
  add(root, "avg_packets_per_dpc", fixed(f.packets_per_dpc, 3), "packets/dpc");
  add(root, "cycles", fixed(f.cycles_per_byte, 3), "cycles/byte");
  add(root, "packets_sent", whole(f.packets_sent));
  add(root, "packets_received", whole(f.packets_received));
  add(root, "packets_retransmitted", std::to_string(f.retransmits));
  add(root, "errors", whole(f.errors));
  add(root, "cpu", fixed(f.cpu_percent, 3), "%");
  add(root, "num_processors", std::to_string(f.num_processors));
  add(root, "bufferCount", std::to_string(f.buffer_count));
  add(root, "bufferLen", std::to_string(f.buffer_length));
  add(root, "io", std::to_string(f.outstanding_io));

  // Tab indentation, no declaration, <sender_name></sender_name> for an empty value:
  // byte-compatible with the original's fprintf output.
  return root.render();
}

std::string render_windows_xml_samples(const std::vector<Result>& samples) {
  std::string text = "<samples>\n";
  for (const Result& sample : samples) text += render_windows_xml(sample);
  text += "</samples>\n";
  return text;
}

}  // namespace xttcp
