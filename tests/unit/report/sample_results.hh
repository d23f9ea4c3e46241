// Result fixtures reproducing the runs in reference/samples (NTTTCP-for-Linux 1.4.3 on
// loopback), so our renderings can be compared with the original's files line by line.
#pragma once

#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp::test {

inline HostInfo sample_host() {
  HostInfo host;
  host.hostname = "vm";
  host.os = "Linux vm 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0 x86_64 GNU/Linux";
  host.kernel = "6.18.44-fc-v782";
  host.cpu_model = "Intel(R) Xeon(R) Platinum";
  host.cpu_cores = 2;
  host.cpu_mhz = 2096.022;
  return host;
}

// -r -m 1,*,127.0.0.1 -p 25001 -t 10 --show-tcp-retrans --show-nic-packets lo -x F.xml -j F.json
inline Result sample_receiver() {
  Result r;
  r.role = Role::receiver;
  r.spec.role = Role::receiver;
  r.spec.layout.address = "127.0.0.1";
  r.spec.layout.ports = 1;
  r.spec.layout.threads_per_port = 1;
  r.spec.layout.mapping_text = "1,*,127.0.0.1";
  r.spec.layout.base_port = 25001;
  r.spec.workload.duration_s = 10;
  r.spec.output.show_tcp_retrans = true;
  r.spec.output.show_nic_packets = "lo";
  r.spec.output.xml_file = "F.xml";
  r.spec.output.json_file = "F.json";
  r.tool_version = "0.1.0";
  r.backend = "epoll";
  r.spec.backend = "epoll";  // the run settles --backend auto on a name first
  r.host = sample_host();
  r.start_time = "2025-11-30T13:35:52.123456Z";
  r.negotiated_cycle_s = 10;

  r.total_bytes = 19870252526;
  // The exact window behind the sample's "10.000669" s and "1986892329.000" Bps.
  r.duration_s = 19870252526.0 / 1986892329.0;
  r.total_operations = 303196;
  r.threads_created = 2;
  r.threads = {{0, r.duration_s, r.total_bytes}};
  r.cpu = {.user = 8.88,
           .system = 51.77,
           .idle = 20.77,
           .iowait = 0.05,
           .softirq = 18.54,
           .cycles_per_byte = 1.6716,
           .process_busy = 49.256,
           .process_user_s = 0.4,
           .process_system_s = 4.5};
  r.tcp.retrans_segs = 81;
  r.tcp.lost_retransmit = 1;
  r.tcp.fast_retrans = 80;
  r.nic = NicPackets{"lo", 613325, 613326};
  return r;
}

// -s -m 1,*,127.0.0.1 -p 25001 -t 10 -V --show-tcp-retrans --show-nic-packets lo
//    -x r4_nt_tcp_1c.cli.xml -j r4_nt_tcp_1c.cli.json
inline Result sample_sender_verbose() {
  Result r;
  r.role = Role::sender;
  r.spec.role = Role::sender;
  r.spec.layout.address = "127.0.0.1";
  r.spec.layout.ports = 1;
  r.spec.layout.threads_per_port = 1;
  r.spec.layout.conns_per_thread = 1;
  r.spec.layout.mapping_text = "1,*,127.0.0.1";
  r.spec.layout.base_port = 25001;
  r.spec.workload.duration_s = 10;
  r.spec.output.verbose = true;
  r.spec.output.show_tcp_retrans = true;
  r.spec.output.show_nic_packets = "lo";
  r.spec.output.xml_file = "r4_nt_tcp_1c.cli.xml";
  r.spec.output.json_file = "r4_nt_tcp_1c.cli.json";
  r.tool_version = "0.1.0";
  r.backend = "epoll";
  r.spec.backend = "epoll";  // the run settles --backend auto on a name first
  r.host = sample_host();
  r.cpu_mapping = "worker 0 -> any";
  r.start_time = "2025-11-30T13:35:52.125000Z";
  r.negotiated_cycle_s = 10;

  r.total_bytes = 19874971648;
  // The exact window behind the sample's "10.001402" s and "1987218576.380" Bps.
  r.duration_s = 19874971648.0 / 1987218576.380;
  r.total_operations = 151634;
  r.threads_created = 1;
  r.connections_tested = 1;
  r.threads = {{0, r.duration_s, r.total_bytes}};
  r.intervals = {{0.0, 0.5, 1318125000}, {0.5, 0.5, 1305625000}};
  r.connections = {{.local = "127.0.0.1:38069",
                    .remote = "127.0.0.1:25001",
                    .bytes = r.total_bytes,
                    .rtt_us = 183,
                    .rttvar_us = 41,
                    .total_retrans = 0,
                    .snd_cwnd = 512,
                    .pmtu = 65535,
                    .delivery_rate_bps = 15897748000}};
  r.cpu = {.user = 8.88,
           .system = 51.77,
           .idle = 20.77,
           .iowait = 0.05,
           .softirq = 18.54,
           .cycles_per_byte = 1.6713,
           .process_busy = 81.06,
           .process_user_s = 0.3,
           .process_system_s = 7.8};
  r.tcp.retrans_segs = 81;
  r.tcp.lost_retransmit = 1;
  r.tcp.fast_retrans = 80;
  r.tcp_average_rtt_us = 183;
  r.nic = NicPackets{"lo", 613356, 613356};
  return r;
}

// A verbose TCP sender that measured nothing: no window, no bytes, no CPU ticks, no clock rate,
// no NIC, interrupt or retransmit counters, no RTT. Its files must still hold numbers.
inline Result sender_that_measured_nothing() {
  Result r = sample_sender_verbose();
  r.duration_s = 0;
  r.total_bytes = 0;
  r.total_operations = 0;
  r.threads = {{0, 0, 0}};
  r.intervals.clear();
  r.cpu = {};
  r.host.cpu_mhz = 0;
  r.tcp = {};
  r.nic.reset();
  r.interrupts.reset();
  r.tcp_average_rtt_us.reset();
  r.spec.output.show_dev_interrupts = "mlx5";
  return r;
}

// The sample lines after "Test cycle finished." without "HH:MM:SS INFO: ", up to the separator.
inline std::vector<std::string> sample_summary(const std::vector<std::string>& console) {
  std::vector<std::string> lines;
  bool after = false;
  for (const std::string& line : console) {
    if (line.rfind("-----", 0) == 0 && after) break;
    if (after) lines.push_back(line.substr(std::string("13:36:02 INFO: ").size()));
    if (line.find("INFO: Test cycle finished.") != std::string::npos) after = true;
  }
  return lines;
}

}  // namespace xttcp::test
