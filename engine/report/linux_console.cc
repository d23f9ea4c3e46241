#include "engine/report/linux_console.hh"
#include "engine/report/queue_console.hh"

#include <fmt/format.h>

#include "base/units.hh"
#include "engine/report/native_json.hh"
#include "engine/report/rr_console.hh"

namespace xttcp {

namespace {

std::string throughput_text(uint64_t bytes, double seconds) {
  return format_bps(seconds > 0 ? static_cast<double>(bytes) * 8.0 / seconds : 0.0);
}

double per_second(uint64_t delta, double seconds) {
  return seconds > 0 ? static_cast<double>(delta) / seconds : 0.0;
}

// The CPU lines shared by our own summary and the peer's.
void append_cpu_split(std::vector<std::string>& lines, const CpuSplit& cpu) {
  lines.push_back(fmt::format("\t user\t\t:{:.2f}%", cpu.user));
  lines.push_back(fmt::format("\t system\t\t:{:.2f}%", cpu.system));
  lines.push_back(fmt::format("\t idle\t\t:{:.2f}%", cpu.idle));
  lines.push_back(fmt::format("\t iowait\t\t:{:.2f}%", cpu.iowait));
  lines.push_back(fmt::format("\t softirq\t:{:.2f}%", cpu.softirq));
  lines.push_back(fmt::format("\t cycles/byte\t:{:.2f}", cpu.cycles_per_byte));
}

void append_totals(std::vector<std::string>& lines, const Result& r) {
  lines.push_back(fmt::format("test duration\t:{:.2f} seconds", r.duration_s));
  lines.push_back(fmt::format("total bytes\t:{}", r.total_bytes));
  lines.push_back(fmt::format("\t throughput\t:{}", throughput_text(r.total_bytes, r.duration_s)));
  if (r.spec.workload.protocol == Protocol::tcp) {  // RetransSegs is printed for TCP only
    lines.push_back(fmt::format("\t retrans segs\t:{}", r.tcp.retrans_segs));
  }
}

}  // namespace

std::string linux_connection_line(SenderSocket kind, uint16_t local_port, int64_t socket,
                                  std::string_view remote_host, uint16_t remote_port) {
  const char* what = kind == SenderSocket::tcp_data   ? "New connection"
                     : kind == SenderSocket::udp_data ? "Running UDP stream"
                                                      : "Sync connection";
  return fmt::format("{}: local:{} [socket:{}] --> {}:{}", what, local_port, socket, remote_host,
                     remote_port);
}

std::vector<std::string> linux_summary_lines(const Result& r) {
  std::vector<std::string> lines;
  if (r.duration_s <= 0) return lines;  // the original prints nothing without a window
  const TestSpec& spec = r.spec;
  const bool sender = r.role == Role::sender;
  const double seconds = r.duration_s;

  if (spec.output.verbose) {
    lines.emplace_back("\tThread\tTime(s)\tThroughput");
    lines.emplace_back("\t======\t=======\t==========");
    for (const ThreadResult& t : r.threads) {
      lines.push_back(fmt::format("\t{}\t {:.2f}\t {}", t.index, t.seconds,
                                  throughput_text(t.bytes, t.seconds)));
    }
  }
  if (sender) lines.push_back(fmt::format("{} connections tested", r.connections_tested));

  lines.emplace_back("#####  Totals:  #####");
  append_totals(lines, r);

  if (spec.output.show_tcp_retrans) {
    const TcpRetransmits& t = r.tcp;
    lines.emplace_back("tcp retransmit:");
    lines.push_back(
        fmt::format("\t retrans_segments/sec\t:{:.2f}", per_second(t.retrans_segs, seconds)));
    lines.push_back(
        fmt::format("\t lost_retrans/sec\t:{:.2f}", per_second(t.lost_retransmit, seconds)));
    lines.push_back(fmt::format("\t syn_retrans/sec\t:{:.2f}", per_second(t.syn_retrans, seconds)));
    lines.push_back(
        fmt::format("\t fast_retrans/sec\t:{:.2f}", per_second(t.fast_retrans, seconds)));
    lines.push_back(
        fmt::format("\t forward_retrans/sec\t:{:.2f}", per_second(t.forward_retrans, seconds)));
    lines.push_back(fmt::format("\t slowStart_retrans/sec\t:{:.2f}",
                                per_second(t.slow_start_retrans, seconds)));
    lines.push_back(
        fmt::format("\t retrans_fail/sec\t:{:.2f}", per_second(t.retrans_fail, seconds)));
  }

  const bool show_packets = !spec.output.show_nic_packets.empty();
  const bool show_interrupts = !spec.output.show_dev_interrupts.empty();
  const NicPackets nic = r.nic.value_or(NicPackets{});
  const Interrupts irq = r.interrupts.value_or(Interrupts{});
  if (show_packets) {
    lines.emplace_back("total packets:");
    lines.push_back(fmt::format("\t tx_packets\t:{}", nic.tx_packets));
    lines.push_back(fmt::format("\t rx_packets\t:{}", nic.rx_packets));
  }
  if (show_interrupts) {
    lines.emplace_back("interrupts:");
    lines.push_back(fmt::format("\t total\t\t:{}", irq.total));
    lines.push_back(fmt::format("\t interrupts/sec\t:{:.3f}", per_second(irq.total, seconds)));
  }
  if (show_packets && show_interrupts) {
    double per_interrupt = irq.total == 0 ? 0.0
                                          : static_cast<double>(nic.tx_packets + nic.rx_packets) /
                                                static_cast<double>(irq.total);
    lines.push_back(fmt::format("\t pkts/interrupt\t:{:.2f}", per_interrupt));
  }

  lines.push_back(fmt::format("cpu cores\t:{}", r.host.cpu_cores));
  lines.push_back(fmt::format("\t cpu speed\t:{:.3f}MHz", r.host.cpu_mhz));
  append_cpu_split(lines, r.cpu);
  lines.push_back(fmt::format("cpu busy (all)\t:{:.2f}%", r.cpu.process_busy));

  if (spec.output.verbose && sender && spec.workload.protocol == Protocol::tcp &&
      r.tcp_average_rtt_us) {
    lines.push_back(fmt::format("tcpi rtt\t\t:{} us", *r.tcp_average_rtt_us));
  }
  return lines;
}

namespace {

// UDP figures (docs/udp.md): datagrams and rate in the window, and at a receiver the run's loss.
void append_udp_lines(std::vector<std::string>& lines, const Result& r) {
  if (!r.udp) return;
  const UdpResult& u = *r.udp;
  const bool receiver = r.role == Role::receiver;
  lines.push_back(fmt::format(
      "datagrams\t:{} {} in the window ({:.0f} pps, {} bytes each{}{})", u.window_datagrams,
      receiver ? "received" : "sent", u.window_pps, u.datagram_size,
      u.gso_segments > 0 ? fmt::format(", GSO x{}", u.gso_segments) : "", u.gro ? ", GRO" : ""));
  if (receiver && u.loss_source != "none") {
    lines.push_back(fmt::format("lost\t\t:{} of {} ({:.3f}%, from the {})", u.lost,
                                u.loss_source == "sender count" ? u.sent : u.received + u.lost,
                                u.loss_percent, u.loss_source));
    lines.push_back(fmt::format("reordered\t:{}, duplicates: {}, jitter: {:.3f} ms", u.reordered,
                                u.duplicates, u.jitter_ms));
    if (u.unattributed > 0)
      lines.push_back(
          fmt::format("unattributed\t:{} datagram(s) in no listed flow (more flows "
                      "than the receiver tracks per port: invented flow ids?)",
                      u.unattributed));
  } else if (!receiver) {
    lines.push_back(fmt::format("datagrams sent\t:{} in the run ({} payload)", u.sent, u.payload));
  }
  if (receiver && u.foreign_datagrams + u.foreign_end_markers > 0)
    lines.push_back(fmt::format(
        "foreign\t\t:{} datagram(s), {} bytes and {} end marker(s) from flows no sender of "
        "this test set up (not counted above)",
        u.foreign_datagrams, u.foreign_bytes, u.foreign_end_markers));
  if (receiver && u.headerless_datagrams > 0)
    lines.push_back(fmt::format(
        "headerless\t:{} datagram(s), {} bytes without the header the test's datagrams carry "
        "(too short for it, or another payload; not counted above)",
        u.headerless_datagrams, u.headerless_bytes));
}

}  // namespace

std::vector<std::string> peer_summary_lines(const Result& r) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("#####  Peer ({}) totals:  #####", to_string(r.role)));
  append_totals(lines, r);
  append_cpu_split(lines, r.cpu);
  lines.push_back(fmt::format("cpu busy (all)\t:{:.2f}%", r.cpu.process_busy));
  append_udp_lines(lines, r);  // a UDP sender learns its receiver's loss here
  for (std::string& line : rr_console_lines(r)) lines.push_back(std::move(line));
  return lines;
}

std::vector<std::string> xttcp_extra_lines(const Result& r) {
  std::vector<std::string> lines;
  if (r.zerocopy) {
    const ZeroCopyStats& z = *r.zerocopy;
    const double copied_pct = z.notifications > 0 ? 100.0 * static_cast<double>(z.copied) /
                                                        static_cast<double>(z.notifications)
                                                  : 0.0;
    lines.push_back(fmt::format(
        "zerocopy sends\t:{} ({} completions, {} copied by the kernel: {:.2f}%){}", z.sends,
        z.notifications, z.copied, copied_pct, z.fell_back ? ", fell back to plain send" : ""));
  }
  append_udp_lines(lines, r);
  for (std::string& line : rr_console_lines(r)) lines.push_back(std::move(line));
  if (r.spec.output.verbose) {  // -V: the NIC's queues over the window, the ports chosen
    if (r.source_ports)
      for (std::string& line : source_port_lines(*r.source_ports)) lines.push_back(std::move(line));
    if (r.queue_window)
      for (std::string& line : queue_window_lines(*r.queue_window))
        lines.push_back(std::move(line));
    if (r.device)
      for (std::string& line : device_description_lines(*r.device))
        lines.push_back(std::move(line));
    if (r.spread_check)
      for (std::string& line : spread_check_lines(*r.spread_check))
        lines.push_back(std::move(line));
  }
  for (const std::string& note : r.notes) lines.push_back(note);
  return lines;
}

}  // namespace xttcp
