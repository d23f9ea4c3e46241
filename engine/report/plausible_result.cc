#include "engine/report/plausible_result.hh"

#include <fmt/format.h>

#include <string>

namespace xttcp {

namespace {

using namespace plausible;  // NOLINT: this file is where the ceilings are applied

struct Implausible {
  std::string message;
};

// The checks of one result; `prefix` names where it is ("", "peer.", "samples[2].").
class FigureCheck {
 public:
  FigureCheck(std::string prefix, double bit_ceiling)
      : prefix_(std::move(prefix)), bits_(bit_ceiling) {}

  [[noreturn]] void refuse(const std::string& path, const std::string& rule) const {
    throw Implausible{fmt::format("{}{}: {}", prefix_, path, rule)};
  }

  void count(const std::string& path, uint64_t value) const {
    if (value >= count_limit)
      refuse(path,
             fmt::format("{} is not a count (2^63 or more: a counter that wrapped, or -1)", value));
  }
  void count(const std::string& path, const std::optional<uint64_t>& value) const {
    if (value) count(path, *value);
  }

  // Finite and within [low, high].
  void figure(const std::string& path, double value, double low, double high) const {
    if (!(value >= low && value <= high))
      refuse(path, fmt::format("{} is outside {:g} to {:g}", value, low, high));
  }

  void seconds(const std::string& path, double value) const {
    if (!(value == 0 || (value >= min_seconds && value <= max_seconds)))
      refuse(path, fmt::format("{} s is not a measured time (0, or {:g} to {:g} s)", value,
                               min_seconds, max_seconds));
  }

  // `units` of `bits_each` bits over `seconds` (already checked) at most `ceiling` bits per s.
  void rate(const std::string& path, uint64_t units, double bits_each, double seconds,
            const char* unit) const {
    if (units == 0) return;
    if (seconds == 0) refuse(path, fmt::format("{} {} in a window of 0 s", units, unit));
    const double per_s = static_cast<double>(units) * bits_each / seconds;
    if (per_s > bits_)
      refuse(path, fmt::format("{} {} in {} s is {:.3g} bit/s, above the ceiling of {:.3g} bit/s "
                               "(docs/hostile-peers.md)",
                               units, unit, seconds, per_s, bits_));
  }

  double bit_ceiling() const { return bits_; }

 private:
  std::string prefix_;
  double bits_;
};

void check_latency(const FigureCheck& c, const IoLatency& l, const std::string& path) {
  c.count(path + ".calls", l.calls);
  c.figure(path + ".average_ns", l.average_ns, 0, max_figure);
  c.figure(path + ".min_ns", l.min_ns, 0, max_figure);
  c.figure(path + ".max_ns", l.max_ns, 0, max_figure);
}

void check_cpu(const FigureCheck& c, const CpuSplit& cpu) {
  for (auto [key, value] :
       {std::pair{"cpu.user_pct", cpu.user}, std::pair{"cpu.system_pct", cpu.system},
        std::pair{"cpu.idle_pct", cpu.idle}, std::pair{"cpu.iowait_pct", cpu.iowait},
        std::pair{"cpu.softirq_pct", cpu.softirq}})
    c.figure(key, value, 0, 100);  // a share of the whole system's CPU time
  c.figure("cpu.cycles_per_byte", cpu.cycles_per_byte, 0, max_figure);
  c.figure("cpu.process_busy_pct", cpu.process_busy, 0, 100 * max_cpus);
  c.figure("cpu.process_user_s", cpu.process_user_s, 0, max_cpus * max_seconds);
  c.figure("cpu.process_system_s", cpu.process_system_s, 0, max_cpus * max_seconds);
  if (cpu.softirq_threads_s)
    c.figure("cpu.softirq_threads_s", *cpu.softirq_threads_s, 0, max_cpus * max_seconds);
}

void check_udp(const FigureCheck& c, const UdpResult& u, double seconds) {
  const double max_pps = c.bit_ceiling() / min_packet_bits;
  c.count("udp.window.datagrams", u.window_datagrams);
  c.rate("udp.window.datagrams", u.window_datagrams, min_packet_bits, seconds, "datagrams");
  c.figure("udp.window.pps", u.window_pps, 0, max_pps);
  for (auto [key, value] :
       {std::pair{"udp.run.sent", u.sent}, std::pair{"udp.run.received", u.received},
        std::pair{"udp.run.lost", u.lost}, std::pair{"udp.run.duplicates", u.duplicates},
        std::pair{"udp.run.reordered", u.reordered},
        std::pair{"udp.run.unattributed", u.unattributed},
        std::pair{"udp.run.foreign.datagrams", u.foreign_datagrams},
        std::pair{"udp.run.foreign.bytes", u.foreign_bytes},
        std::pair{"udp.run.foreign.end_markers", u.foreign_end_markers}})
    c.count(key, value);
  c.figure("udp.run.loss_percent", u.loss_percent, 0, 100);
  c.figure("udp.run.jitter_ms", u.jitter_ms, 0, max_figure);
  for (const UdpFlowResult& f : u.flows) {
    for (auto [key, value] :
         {std::pair{"udp.flows[].sent", f.sent}, std::pair{"udp.flows[].received", f.received},
          std::pair{"udp.flows[].lost", f.lost}, std::pair{"udp.flows[].duplicates", f.duplicates},
          std::pair{"udp.flows[].reordered", f.reordered}})
      c.count(key, value);
    c.figure("udp.flows[].jitter_ms", f.jitter_ms, 0, max_figure);
  }
}

void check_device(const FigureCheck& c, const DeviceResult& d, double seconds) {
  c.count("device.frames", d.frames);
  c.rate("device.frames", d.frames, min_packet_bits, seconds, "frames");
  c.count("device.frame_bytes", d.frame_bytes);
  c.rate("device.frame_bytes", d.frame_bytes, 8, seconds, "bytes");
  c.figure("device.mpps", d.mpps, 0, c.bit_ceiling() / min_packet_bits / 1e6);
  for (auto [key, value] :
       {std::pair{"device.l1_gbps", d.l1_gbps}, std::pair{"device.l2_gbps", d.l2_gbps},
        std::pair{"device.l4_gbps", d.l4_gbps}})
    c.figure(key, value, 0, c.bit_ceiling() / 1e9);
  c.figure("device.cycles_per_frame", d.cycles_per_frame, 0, max_figure);
  for (const DeviceQueueResult& q : d.queues)
    for (auto [key, value] : {std::pair{"device.queues[].tx_frames", q.tx_frames},
                              std::pair{"device.queues[].tx_bytes", q.tx_bytes},
                              std::pair{"device.queues[].rx_frames", q.rx_frames},
                              std::pair{"device.queues[].rx_bytes", q.rx_bytes}})
      c.count(key, value);
  for (const auto& [name, value] : d.counters) c.count("device.counters." + name, value);
}

// What a window has, the whole one and each -sam sample alike.
void check_window(const FigureCheck& c, const Result& r) {
  c.seconds("summary.duration_s", r.duration_s);
  c.count("summary.total_bytes", r.total_bytes);
  c.rate("summary.total_bytes", r.total_bytes, 8, r.duration_s, "bytes");
  c.count("summary.operations", r.total_operations);
  if (r.duration_s == 0 && r.total_operations > 0)
    c.refuse("summary.operations", fmt::format("{} in a window of 0 s", r.total_operations));
  if (r.latency) check_latency(c, *r.latency, "summary.latency");
  for (const ThreadResult& t : r.threads) {
    c.seconds("threads[].seconds", t.seconds);
    c.count("threads[].bytes", t.bytes);
    c.count("threads[].operations", t.operations);
    if (t.latency) check_latency(c, *t.latency, "threads[].latency");
  }
  check_cpu(c, r.cpu);
  for (auto [key, value] : {std::pair{"tcp.retrans_segs", r.tcp.retrans_segs},
                            std::pair{"tcp.lost_retransmit", r.tcp.lost_retransmit},
                            std::pair{"tcp.syn_retrans", r.tcp.syn_retrans},
                            std::pair{"tcp.fast_retrans", r.tcp.fast_retrans},
                            std::pair{"tcp.forward_retrans", r.tcp.forward_retrans},
                            std::pair{"tcp.slow_start_retrans", r.tcp.slow_start_retrans},
                            std::pair{"tcp.retrans_fail", r.tcp.retrans_fail}})
    c.count(key, value);
  if (r.nic) {
    for (auto [key, value] : {std::pair{"nic.tx_packets", r.nic->tx_packets},
                              std::pair{"nic.rx_packets", r.nic->rx_packets}}) {
      c.count(key, value);
      c.rate(key, value, min_packet_bits, r.duration_s, "packets");
    }
  }
  if (r.interrupts) c.count("interrupts.total", r.interrupts->total);
  if (r.transport) {
    c.count("transport.packets_sent", r.transport->packets_sent);
    c.count("transport.packets_received", r.transport->packets_received);
    c.count("transport.errors", r.transport->errors);
  }
  c.count("dpcs", r.dpcs);
  if (r.udp) check_udp(c, *r.udp, r.duration_s);
  if (r.device) check_device(c, *r.device, r.duration_s);
}

void check_rr_latency(const FigureCheck& c, const RrLatency& l, const std::string& path) {
  c.count(path + ".count", l.count);
  c.figure(path + ".mean_ns", l.mean_ns, 0, max_figure);
  for (auto [key, value] : {std::pair{".p50_ns", l.p50_ns}, std::pair{".p90_ns", l.p90_ns},
                            std::pair{".p99_ns", l.p99_ns}, std::pair{".p99_9_ns", l.p999_ns},
                            std::pair{".p99_99_ns", l.p9999_ns}, std::pair{".max_ns", l.max_ns}})
    c.count(path + key, value);
}

void check_rr(const FigureCheck& c, const RrResult& rr) {
  c.count("rr.transactions", rr.transactions);
  c.count("rr.lost", rr.lost);
  c.figure("rr.transactions_per_s", rr.transactions_per_s, 0, max_figure);
  c.figure("rr.cpu_us_per_transaction", rr.cpu_us_per_transaction, 0, max_figure);
  check_rr_latency(c, rr.latency, "rr.latency");
  for (const auto& [lowest, hits] : rr.histogram) {
    c.count("rr.histogram.buckets[]", lowest);
    c.count("rr.histogram.buckets[]", hits);
  }
  for (const RrFlowResult& f : rr.flows) {
    c.count("rr.flows[].transactions", f.transactions);
    c.figure("rr.flows[].transactions_per_s", f.transactions_per_s, 0, max_figure);
    check_rr_latency(c, f.latency, "rr.flows[].latency");
  }
}

void check_intervals(const FigureCheck& c, const Result& r) {
  for (const IntervalSample& i : r.intervals) {
    c.figure("intervals[].start_s", i.start_s, -max_seconds, max_seconds);
    // No rate here: an interval's edges may be nanoseconds apart at the window's end.
    c.seconds("intervals[].seconds", i.seconds);
    for (auto [key, value] :
         {std::pair{"intervals[].bytes", i.bytes}, std::pair{"intervals[].datagrams", i.datagrams},
          std::pair{"intervals[].lost", i.lost}, std::pair{"intervals[].reordered", i.reordered}})
      c.count(key, value);
    // Not pacing_rate_bps: TCP_INFO says ~0 (2^64 - 1) there for "not paced".
    for (const ConnectionInterval& ci : i.connections)
      for (auto [key, value] :
           {std::pair{"intervals[].connections[].bytes", ci.bytes},
            std::pair{"intervals[].connections[].delivery_rate_bps", ci.delivery_rate_bps},
            std::pair{"intervals[].connections[].busy_us", ci.busy_us},
            std::pair{"intervals[].connections[].rwnd_limited_us", ci.rwnd_limited_us},
            std::pair{"intervals[].connections[].sndbuf_limited_us", ci.sndbuf_limited_us}})
        c.count(key, value);
  }
}

void check_result(const Result& r, PlausibilityRules rules, const std::string& prefix) {
  const bool counted_only = rules.counted_only_allowed && r.backend == "null";
  const FigureCheck c(prefix, counted_only ? max_counted_bits_per_s : max_bits_per_s);
  if (rules.window_required && r.duration_s == 0)
    c.refuse("summary.duration_s", "0 s: the run measured no window, so it has no figures");
  check_window(c, r);
  check_intervals(c, r);
  for (const ConnectionStats& cs : r.connections) {
    c.count("connections[].bytes", cs.bytes);
    c.count("connections[].delivery_rate_bps", cs.delivery_rate_bps);
  }
  c.count("connections_not_watched", r.connections_not_watched);
  c.count("tcp.tcp_info_retransmits", r.tcp_info_retransmits);
  c.figure("host.cpu_mhz", r.host.cpu_mhz, 0, max_figure);
  if (r.rr) check_rr(c, *r.rr);
  if (r.queue_window) {
    if (r.queue_window->rx_imbalance)
      c.figure("queue_window.rx_imbalance", *r.queue_window->rx_imbalance, 0, max_figure);
    if (r.queue_window->tx_imbalance)
      c.figure("queue_window.tx_imbalance", *r.queue_window->tx_imbalance, 0, max_figure);
  }
  if (r.spread_check) c.figure("spread_check.widest_gap", r.spread_check->widest_gap, 0, 1);
  for (std::size_t i = 0; i < r.samples.size(); ++i)
    check_window(FigureCheck(fmt::format("{}samples[{}].", prefix, i), c.bit_ceiling()),
                 r.samples[i]);
  if (r.peer) check_result(*r.peer, {false, rules.counted_only_allowed}, prefix + "peer.");
}

}  // namespace

Status check_plausible(const Result& result, PlausibilityRules rules) {
  try {
    check_result(result, rules, "");
  } catch (const Implausible& e) {
    return fail(e.message);
  }
  return ok();
}

}  // namespace xttcp
