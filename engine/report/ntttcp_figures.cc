#include "engine/report/ntttcp_figures.hh"

#include <fmt/format.h>

#include <string>

namespace xttcp {

NtttcpFigures ntttcp_figures(const Result& r) {
  NtttcpFigures f;
  f.sender = r.role == Role::sender;
  f.verbose = r.spec.output.verbose;
  f.tcp = r.spec.workload.protocol == Protocol::tcp;
  f.computername = r.host.hostname;
  f.os = r.host.os.empty() ? "Unknown" : r.host.os;
  std::erase(f.os, '\n');  // both files drop uname's newlines, as the original does

  for (const ThreadResult& t : r.threads) {
    NtttcpThreadFigures tf;
    tf.index = t.index;
    tf.seconds = t.seconds;
    if (t.seconds > 0) tf.kilobytes_per_s = static_cast<double>(t.bytes) / t.seconds / 1000.0;
    tf.megabytes_per_s = tf.kilobytes_per_s / 1000.0;
    tf.megabits_per_s = tf.megabytes_per_s * 8.0;
    f.threads.push_back(tf);
  }

  const double s = r.duration_s;
  auto rate = [s](uint64_t delta) { return s > 0 ? static_cast<double>(delta) / s : 0.0; };
  f.seconds = s;
  f.total_megabytes = static_cast<double>(r.total_bytes) / 1e6;
  if (s > 0) {
    f.bytes_per_s = static_cast<double>(r.total_bytes) / s;
    f.megabytes_per_s = f.total_megabytes / s;
  }
  f.megabits_per_s = f.megabytes_per_s * 8.0;

  if (r.nic) {
    f.packets_sent = r.nic->tx_packets;
    f.packets_received = r.nic->rx_packets;
  }
  if (r.interrupts) f.total_interrupts = r.interrupts->total;
  f.interrupts_per_s = rate(f.total_interrupts);
  if (f.total_interrupts > 0) {
    f.packets_per_interrupt = static_cast<double>(f.packets_sent + f.packets_received) /
                              static_cast<double>(f.total_interrupts);
  }

  f.retrans_segs = r.tcp.retrans_segs;
  f.retrans_segs_per_s = rate(r.tcp.retrans_segs);
  f.lost_retrans_per_s = rate(r.tcp.lost_retransmit);
  f.syn_retrans_per_s = rate(r.tcp.syn_retrans);
  f.fast_retrans_per_s = rate(r.tcp.fast_retrans);
  f.forward_retrans_per_s = rate(r.tcp.forward_retrans);
  f.slow_start_retrans_per_s = rate(r.tcp.slow_start_retrans);
  f.retrans_fail_per_s = rate(r.tcp.retrans_fail);

  f.has_rtt = f.verbose && f.sender && f.tcp && r.tcp_average_rtt_us.has_value();
  f.average_rtt_us = r.tcp_average_rtt_us.value_or(0);
  return f;
}

std::string fixed2(double value) { return fmt::format("{:.2f}", value); }
std::string fixed3(double value) { return fmt::format("{:.3f}", value); }
std::string fixed6(double value) { return fmt::format("{:.6f}", value); }

}  // namespace xttcp
