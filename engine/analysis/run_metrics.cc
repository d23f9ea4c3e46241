#include "engine/analysis/run_metrics.hh"

#include <optional>

namespace xttcp {

namespace {

enum MetricIndex {
  throughput,
  packet_rate,
  cycles_per_byte,
  cpu_per_gb,
  retransmits_per_gb,
  udp_loss,
  latency_average,
  latency_max,
  rr_transactions,
  rr_round_trip_p50,
  rr_round_trip_p99,
};

}  // namespace

const std::vector<MetricDefinition>& metric_definitions() {
  static const std::vector<MetricDefinition> table = {
      {"throughput_gbps", "throughput", "Gbit/s", Better::higher},
      {"packets_per_s", "packets", "pkt/s", Better::higher},
      {"cycles_per_byte", "cycles/byte", "cycles", Better::lower, true},
      {"cpu_s_per_gb", "CPU-s/GB", "s", Better::lower, true},
      {"retransmits_per_gb", "retransmits/GB", "segs", Better::lower, true},
      {"udp_loss_pct", "UDP loss", "%", Better::lower},
      {"latency_average_us", "call latency avg", "us", Better::lower},
      {"latency_max_us", "call latency max", "us", Better::lower},
      // --rr's requester: what a driver change to one connection's latency moves. The tail is
      // what other processes on the host move most: shown, judged with --judge-all.
      {"transactions_per_s", "transactions", "1/s", Better::higher},
      {"round_trip_p50_us", "round trip p50", "us", Better::lower},
      {"round_trip_p99_us", "round trip p99", "us", Better::lower, true},
  };
  return table;
}

std::vector<MetricValue> run_metrics(const Result& run) {
  const auto& defs = metric_definitions();
  std::vector<MetricValue> out;
  auto add = [&](MetricIndex index, double value) { out.push_back({&defs[index], value}); };
  const double gigabytes = static_cast<double>(run.total_bytes) / 1e9;
  add(throughput, run.throughput_bps() / 1e9);
  // Packets: UDP counts its own datagrams; otherwise the interface's, when it was watched.
  std::optional<double> pps;
  if (run.udp) {
    pps = run.udp->window_pps;
  } else if (run.nic && run.duration_s > 0) {
    const uint64_t packets = run.role == Role::receiver ? run.nic->rx_packets : run.nic->tx_packets;
    pps = static_cast<double>(packets) / run.duration_s;
  }
  if (pps) add(packet_rate, *pps);
  if (run.cpu.cycles_per_byte > 0) add(cycles_per_byte, run.cpu.cycles_per_byte);
  if (gigabytes > 0) {
    add(cpu_per_gb, (run.cpu.process_user_s + run.cpu.process_system_s) / gigabytes);
    if (run.spec.workload.protocol == Protocol::tcp)
      add(retransmits_per_gb, static_cast<double>(run.tcp.retrans_segs) / gigabytes);
  }
  if (run.udp) add(udp_loss, run.udp->loss_percent);
  if (run.latency) {
    add(latency_average, run.latency->average_ns / 1e3);
    add(latency_max, run.latency->max_ns / 1e3);
  }
  if (run.rr && run.rr->latency.count > 0) {
    add(rr_transactions, run.rr->transactions_per_s);
    add(rr_round_trip_p50, static_cast<double>(run.rr->latency.p50_ns) / 1e3);
    add(rr_round_trip_p99, static_cast<double>(run.rr->latency.p99_ns) / 1e3);
  }
  return out;
}

}  // namespace xttcp
