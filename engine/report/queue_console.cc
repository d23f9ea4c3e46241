#include "engine/report/queue_console.hh"

#include <fmt/format.h>

#include <algorithm>

#include "engine/rss/rss_json.hh"

namespace xttcp {

namespace {

std::string figure(const std::optional<uint64_t>& value) {
  return value ? std::to_string(*value) : "-";
}

std::string ratio(const std::optional<double>& value) {
  return value ? fmt::format("{:.2f}", *value) : "n/a";
}

std::string joined(const std::vector<uint64_t>& counts) {
  std::string out;
  for (std::size_t cpu = 0; cpu < counts.size(); ++cpu)
    out += fmt::format("{}cpu{} {}", cpu == 0 ? "" : ", ", cpu, counts[cpu]);
  return out;
}

std::string pct(double share) { return fmt::format("{:.1f}", 100.0 * share); }

// The busiest CPU, then one row per CPU: shares of its ticks in percent.
void append_cpu_lines(std::vector<std::string>& lines, const QueueWindow& w) {
  if (w.cpus.empty()) {
    lines.push_back("CPU busy\t: " + w.cpus_unavailable);
    return;
  }
  const auto busiest = std::find_if(w.cpus.begin(), w.cpus.end(), [&](const CpuBusy& cpu) {
    return w.busiest_cpu && cpu.cpu == *w.busiest_cpu;
  });
  if (busiest == w.cpus.end())
    lines.push_back("CPU busy\t: no CPU was busy in the window");
  else
    lines.push_back(fmt::format(
        "CPU busy\t: busiest cpu{} {}% (user {}%, system {}%, irq {}%, softirq {}%, steal {}%)",
        busiest->cpu, pct(busiest->busy), pct(busiest->user), pct(busiest->system),
        pct(busiest->irq), pct(busiest->softirq), pct(busiest->steal)));
  lines.push_back("\t cpu\tbusy%\tuser%\tsystem%\tirq%\tsoftirq%\tsteal%\tticks");
  for (const CpuBusy& cpu : w.cpus)
    lines.push_back(fmt::format("\t {}\t{}\t{}\t{}\t{}\t{}\t{}\t{}", cpu.cpu, pct(cpu.busy),
                                pct(cpu.user), pct(cpu.system), pct(cpu.irq), pct(cpu.softirq),
                                pct(cpu.steal), cpu.ticks));
}

}  // namespace

std::vector<std::string> queue_window_lines(const QueueWindow& w) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("queues of {}{}\t: imbalance (max/mean) rx {}, tx {}{}", w.nic,
                              w.driver.empty() ? "" : " (" + w.driver + ")", ratio(w.rx_imbalance),
                              ratio(w.tx_imbalance),
                              w.queues_source.empty() ? "" : "; from " + w.queues_source));
  if (w.queues.empty()) {
    lines.push_back("\t " + w.queues_unavailable);
  } else {
    lines.push_back("\t queue\trx_packets\trx_bytes\ttx_packets\ttx_bytes");
    for (const QueueDelta& q : w.queues)
      lines.push_back(fmt::format("\t {}\t{}\t{}\t{}\t{}", q.queue, figure(q.rx_packets),
                                  figure(q.rx_bytes), figure(q.tx_packets), figure(q.tx_bytes)));
  }
  if (w.irqs.empty()) {
    lines.push_back("queue IRQs\t: " + w.irqs_unavailable);
  } else {
    for (const QueueIrqDelta& irq : w.irqs)
      lines.push_back(fmt::format("queue IRQ {}\t: {} {}: {}", irq.irq, irq.kind, irq.queue,
                                  joined(irq.per_cpu)));
  }
  if (w.net_rx_softirqs.empty()) {
    lines.push_back("softirqs\t: " + w.softirqs_unavailable);
  } else {
    lines.push_back("NET_RX softirqs\t: " + joined(w.net_rx_softirqs));
    lines.push_back("NET_TX softirqs\t: " + joined(w.net_tx_softirqs));
  }
  append_cpu_lines(lines, w);
  return lines;
}

std::vector<std::string> device_description_lines(const DeviceResult& device) {
  if (!device.description) return {};
  const DeviceDescription& d = *device.description;
  std::vector<std::string> lines;
  std::string offloads;
  for (const std::string& type : d.rss_offloads) offloads += (offloads.empty() ? "" : " ") + type;
  lines.push_back(fmt::format(
      "device {} ({})\t: NUMA node {}; queues rx {} tx {} (max {}/{}); RETA size {}, key size "
      "{}; RSS types {}",
      device.device, device.driver, d.numa_node ? std::to_string(*d.numa_node) : d.numa_unavailable,
      d.rx_queues, d.tx_queues, d.max_rx_queues, d.max_tx_queues, d.reta_size, d.hash_key_size,
      offloads.empty() ? "none" : offloads));
  std::string fields;
  for (const auto& [type, words] : d.rss.hash_fields)
    fields += fmt::format("{}{} {}", fields.empty() ? "" : ", ", type, words);
  lines.push_back(fmt::format("\t RSS hash {}; hashed: {}", d.rss.hash_function,
                              fields.empty() ? d.hash_fields_unavailable : fields));
  lines.push_back(d.rss.key.empty() ? "\t RSS key: " + d.key_unavailable
                                    : fmt::format("\t RSS key ({} bytes): {}", d.rss.key.size(),
                                                  rss_key_hex(d.rss.key)));
  if (d.rss.indirection.empty()) {
    lines.push_back("\t indirection table: " + d.indirection_unavailable);
  } else {
    std::string table;
    for (uint32_t queue : d.rss.indirection)
      table.append(table.empty() ? "" : " ").append(std::to_string(queue));
    lines.push_back(
        fmt::format("\t indirection table ({} entries): {}", d.rss.indirection.size(), table));
  }
  for (const std::string& warning : d.warnings) lines.push_back("\t warning: " + warning);
  return lines;
}

std::vector<std::string> spread_check_lines(const SpreadCheck& check) {
  if (!check.unavailable.empty())
    return {"spread as predicted?\t: not known: " + check.unavailable};
  std::string shares;
  for (std::size_t q = 0; q < check.measured_share.size(); ++q)
    shares += fmt::format("{}q{} {:.1f}/{:.1f}", q == 0 ? "" : ", ", q,
                          100.0 * check.predicted_share[q], 100.0 * check.measured_share[q]);
  return {fmt::format("spread as predicted?\t: % per RX queue, predicted/measured ({}): {}",
                      check.measure, shares),
          fmt::format("\t widest gap {:.1f} points, on queue {}", 100.0 * check.widest_gap,
                      check.widest_queue)};
}

std::vector<std::string> source_port_lines(const SourcePortSpread& spread) {
  if (!spread.spread) return {"source ports\t: the kernel's: " + spread.why};
  std::string counts;
  for (std::size_t q = 0; q < spread.flows_per_queue.size(); ++q)
    counts += fmt::format("{}{}", q == 0 ? "" : " ", spread.flows_per_queue[q]);
  return {fmt::format("source ports\t: spread over the {} RX queues of {}, flows per queue: {}",
                      spread.queues, spread.nic, counts)};
}

}  // namespace xttcp
