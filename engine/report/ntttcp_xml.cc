#include "engine/report/ntttcp_xml.hh"

#include <fmt/format.h>

#include "engine/report/ntttcp_figures.hh"
#include "engine/report/xml_writer.hh"

namespace xttcp {

namespace {

// A child element holding one text value, with an optional metric="..." attribute.
void add(XmlElement& parent, const char* name, const std::string& value,
         const char* metric = nullptr) {
  parent.leaf(name, value, metric);
}

void add_parameters(XmlElement& root, const TestSpec& spec) {
  XmlElement& p = root.child("parameters");
  add(p, "send_socket_buff", std::to_string(spec.workload.send_buffer));
  add(p, "recv_socket_buff", std::to_string(spec.workload.recv_buffer));
  add(p, "port", std::to_string(spec.layout.base_port));
  add(p, "sync_port", std::to_string(spec.sync_port()));  // a number, even with -N
  add(p, "no_sync", ntttcp_bool(spec.control.no_sync));
  // Windows NTttcp's parameters the Linux tool does not have: constant placeholders.
  add(p, "wait_timeout_milliseconds", "0");
  add(p, "async", "False");
  add(p, "verbose", ntttcp_bool(spec.output.verbose));
  add(p, "wsa", "False");
  add(p, "use_ipv6", ntttcp_bool(spec.layout.ipv6));
  add(p, "udp", ntttcp_bool(spec.workload.protocol == Protocol::udp));
  add(p, "verify_data", "False");
  add(p, "wait_all", "False");
  add(p, "run_time", std::to_string(spec.workload.duration_s));  // seconds, unlike Windows
  add(p, "warmup_time", std::to_string(spec.workload.warmup_s));
  add(p, "cooldown_time", std::to_string(spec.workload.cooldown_s));
  add(p, "dash_n_timeout", "0");
  add(p, "bind_sender", "False");
  add(p, "sender_name", "NA");
  add(p, "max_active_threads", "0");
  add(p, "tp", "False");
  add(p, "no_stdio_buffer", "False");
  add(p, "throughput_Bpms", "0");
  add(p, "cpu_burn", "0");
  add(p, "latency_measurement", "False");
  add(p, "use_io_compl_ports", "NA");
  add(p, "cpu_from_idle_flag", "False");
  add(p, "get_estats", "False");
  add(p, "qos_flag", "False");
  add(p, "jitter_measurement", "False");
  add(p, "packet_spacing", "0");
}

}  // namespace

std::string render_ntttcp_xml(const Result& result) {
  const NtttcpFigures f = ntttcp_figures(result);
  XmlElement root(f.sender ? "ntttcps" : "ntttcpr");
  root.attribute("computername", f.computername);
  root.attribute("version", "5.33-linux");

  add_parameters(root, result.spec);

  if (f.verbose) {
    for (const NtttcpThreadFigures& t : f.threads) {
      XmlElement& thread = root.child("thread");
      thread.attribute("index", std::to_string(t.index));
      add(thread, "realtime", fixed3(t.seconds), "s");
      add(thread, "throughput", fixed3(t.kilobytes_per_s), "KB/s");
      add(thread, "throughput", fixed3(t.megabytes_per_s), "MB/s");
      add(thread, "throughput", fixed3(t.megabits_per_s), "mbps");
      add(thread, "avg_bytes_per_compl", "0.000", "B");
    }
  }
  if (f.sender) add(root, "conns_tested", std::to_string(result.connections_tested));

  add(root, "total_bytes", fixed6(f.total_megabytes), "MB");
  add(root, "realtime", fixed6(f.seconds), "s");
  add(root, "avg_bytes_per_compl", "0.000", "B");
  add(root, "threads_avg_bytes_per_compl", "0.000", "B");
  add(root, "avg_frame_size", "0.000", "B");
  add(root, "throughput", fixed3(f.megabytes_per_s), "MB/s");
  add(root, "throughput", fixed3(f.megabits_per_s), "mbps");
  add(root, "throughput", fixed3(f.bytes_per_s), "Bps");
  add(root, "total_buffers", "0.000");
  add(root, "throughput", "0.000", "buffers/s");
  add(root, "avg_packets_per_interrupt", fixed3(f.packets_per_interrupt), "packets/interrupt");
  add(root, "interrupts", fixed3(f.interrupts_per_s), "count/sec");
  add(root, "total_interrupts", std::to_string(f.total_interrupts), "count");
  add(root, "dpcs", "0.000", "count/sec");
  add(root, "avg_packets_per_dpc", "0.000", "packets/dpc");
  add(root, "packets_sent", std::to_string(f.packets_sent));
  add(root, "packets_received", std::to_string(f.packets_received));
  add(root, "packets_retransmitted", std::to_string(f.retrans_segs));
  add(root, "errors", "0");
  add(root, "bufferCount", "0");
  add(root, "bufferLen", "0");

  if (result.spec.output.show_tcp_retrans) {
    add(root, "tcp_retransmits", std::to_string(f.retrans_segs), "retrans_segs");
    add(root, "tcp_retransmits", fixed2(f.retrans_segs_per_s), "retrans_segments_per_sec");
    add(root, "tcp_retransmits", fixed2(f.lost_retrans_per_s), "lost_retrans_per_sec");
    add(root, "tcp_retransmits", fixed2(f.syn_retrans_per_s), "syn_retrans_per_sec");
    add(root, "tcp_retransmits", fixed2(f.fast_retrans_per_s), "fast_retrans_per_sec");
    add(root, "tcp_retransmits", fixed2(f.forward_retrans_per_s), "forward_retrans_per_sec");
    add(root, "tcp_retransmits", fixed2(f.slow_start_retrans_per_s), "slowStart_retrans_per_sec");
    add(root, "tcp_retransmits", fixed2(f.retrans_fail_per_s), "retrans_fail_per_sec");
  }

  const CpuSplit& cpu = result.cpu;
  add(root, "cpu_cores", std::to_string(result.host.cpu_cores), "cpu cores");
  add(root, "cpu_speed", fixed3(result.host.cpu_mhz), "MHz");
  add(root, "user", fixed2(cpu.user), "%");
  add(root, "system", fixed2(cpu.system), "%");
  add(root, "idle", fixed2(cpu.idle), "%");
  add(root, "iowait", fixed2(cpu.iowait), "%");
  add(root, "softirq", fixed2(cpu.softirq), "%");
  add(root, "cycles_per_byte", fixed2(cpu.cycles_per_byte), "cycles/byte");
  add(root, "cpu_busy_all", fixed2(cpu.process_busy), "%");
  add(root, "io", "0");
  if (f.has_rtt) add(root, "tcp_average_rtt", std::to_string(f.average_rtt_us), "us");
  add(root, "os", f.os);  // escaped by the writer; the original also drops '\n' (uname's)

  // Tab indentation and no XML declaration: byte-compatible with the original's fprintf output.
  return root.render();
}

}  // namespace xttcp
