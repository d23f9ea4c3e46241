// The window's figures from two system snapshots, the same on every OS.
#include <algorithm>

#include "engine/stats/system_probe.hh"

namespace xttcp {
namespace {

uint64_t counter_delta(uint64_t begin, uint64_t end) { return end >= begin ? end - begin : 0; }

double percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) * 100.0 / static_cast<double>(whole);
}

}  // namespace

void apply_system_deltas(const SystemSnapshot& begin, const SystemSnapshot& end, double seconds,
                         uint64_t total_bytes, const HostInfo& host, Result& result) {
  const CpuTimes& b = begin.cpu;
  const CpuTimes& e = end.cpu;
  uint64_t total = counter_delta(b.total(), e.total());
  uint64_t idle = counter_delta(b.idle, e.idle);

  CpuSplit& cpu = result.cpu;
  cpu.user = percent(counter_delta(b.user, e.user), total);
  cpu.system = percent(counter_delta(b.system, e.system), total);
  cpu.idle = percent(idle, total);
  cpu.iowait = percent(counter_delta(b.iowait, e.iowait), total);
  cpu.softirq = percent(counter_delta(b.softirq, e.softirq), total);

  // cpuMHz x 1e6 x duration x ncpu x (1 - idle) / bytes; iowait counts as busy. Without any CPU
  // ticks in the window there is no busy fraction to speak of, so 0 rather than "all busy".
  cpu.cycles_per_byte = 0;
  if (total_bytes > 0 && total > 0) {
    double busy = 1.0 - static_cast<double>(idle) / static_cast<double>(total);
    cpu.cycles_per_byte = host.cpu_mhz * 1e6 * seconds * static_cast<double>(host.cpu_cores) *
                          busy / static_cast<double>(total_bytes);
  }

  cpu.process_user_s = std::max(0.0, end.process_user_s - begin.process_user_s);
  cpu.process_system_s = std::max(0.0, end.process_system_s - begin.process_system_s);
  cpu.process_busy =
      seconds > 0 ? (cpu.process_user_s + cpu.process_system_s) / seconds * 100.0 : 0.0;
  cpu.softirq_threads_s.reset();
  if (begin.softirq_threads_s && end.softirq_threads_s)
    cpu.softirq_threads_s = std::max(0.0, *end.softirq_threads_s - *begin.softirq_threads_s);

  const TcpRetransmits& tb = begin.tcp;
  const TcpRetransmits& te = end.tcp;
  result.tcp.retrans_segs = counter_delta(tb.retrans_segs, te.retrans_segs);
  result.tcp.lost_retransmit = counter_delta(tb.lost_retransmit, te.lost_retransmit);
  result.tcp.syn_retrans = counter_delta(tb.syn_retrans, te.syn_retrans);
  result.tcp.fast_retrans = counter_delta(tb.fast_retrans, te.fast_retrans);
  result.tcp.forward_retrans = counter_delta(tb.forward_retrans, te.forward_retrans);
  result.tcp.slow_start_retrans = counter_delta(tb.slow_start_retrans, te.slow_start_retrans);
  result.tcp.retrans_fail = counter_delta(tb.retrans_fail, te.retrans_fail);

  if (begin.nic && end.nic) {
    result.nic = NicPackets{end.nic->interface_name,
                            counter_delta(begin.nic->tx_packets, end.nic->tx_packets),
                            counter_delta(begin.nic->rx_packets, end.nic->rx_packets)};
  } else {
    result.nic.reset();
  }
  if (begin.interrupts && end.interrupts) {
    result.interrupts = Interrupts{end.interrupts->pattern,
                                   counter_delta(begin.interrupts->total, end.interrupts->total)};
  } else {
    result.interrupts.reset();
  }
  // Counters only some OSes give (Windows): absent at either edge = not measured.
  if (begin.transport && end.transport) {
    result.transport = TransportCounters{
        counter_delta(begin.transport->packets_sent, end.transport->packets_sent),
        counter_delta(begin.transport->packets_received, end.transport->packets_received),
        counter_delta(begin.transport->errors, end.transport->errors)};
  } else {
    result.transport.reset();
  }
  if (begin.dpcs && end.dpcs) {
    result.dpcs = counter_delta(*begin.dpcs, *end.dpcs);
  } else {
    result.dpcs.reset();
  }
  if (begin.queues && end.queues)
    result.queue_window = queue_window(*begin.queues, *end.queues);
  else
    result.queue_window.reset();
}

}  // namespace xttcp
