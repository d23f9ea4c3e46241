#include "engine/stats/queue_probe.hh"

#include <algorithm>

#include "base/read_file.hh"
#include "engine/stats/per_cpu_counters.hh"
#include "topology/nic/nic_discovery.hh"

namespace xttcp {

namespace {

std::string watched_nic(const TestSpec& spec) {
  if (!spec.placement.nic.empty()) return spec.placement.nic;
  const std::string& address = spec.layout.address;
  if (address.empty() || address == "*") return "";
  Expected<std::string> nic = interface_toward(address);
  if (!nic || is_loopback_interface(*nic)) return "";
  return *nic;
}

std::uint64_t delta(std::uint64_t begin, std::uint64_t end) {
  return end >= begin ? end - begin : 0;
}

std::optional<std::uint64_t> delta(const std::optional<std::uint64_t>& begin,
                                   const std::optional<std::uint64_t>& end) {
  if (!begin || !end) return std::nullopt;
  return delta(*begin, *end);
}

// max / mean of the figures; nullopt when there are none or all are 0.
std::optional<double> imbalance(const std::vector<std::uint64_t>& figures) {
  if (figures.empty()) return std::nullopt;
  std::uint64_t sum = 0, most = 0;
  for (std::uint64_t figure : figures) {
    sum += figure;
    most = std::max(most, figure);
  }
  if (sum == 0) return std::nullopt;
  return static_cast<double>(most) * static_cast<double>(figures.size()) / static_cast<double>(sum);
}

// Each CPU at both edges, by id, as shares of the ticks it counted in the window. Per field, a
// counter that went backwards (idle and iowait can, on some kernels) counts 0, and the ticks are
// the sum of the fields' deltas, so the shares add up to 1.
std::vector<CpuBusy> cpu_busy(const std::vector<CpuLineTicks>& begin,
                              const std::vector<CpuLineTicks>& end) {
  std::map<std::uint32_t, const CpuTicks*> first;
  for (const CpuLineTicks& cpu : begin) first.emplace(cpu.cpu, &cpu.ticks);
  std::vector<CpuBusy> out;
  for (const CpuLineTicks& cpu : end) {
    const auto found = first.find(cpu.cpu);
    if (found == first.end()) continue;
    const CpuTicks& a = *found->second;
    const CpuTicks& b = cpu.ticks;
    const std::uint64_t user = delta(a.user, b.user) + delta(a.nice, b.nice);
    const std::uint64_t system = delta(a.system, b.system), irq = delta(a.irq, b.irq);
    const std::uint64_t softirq = delta(a.softirq, b.softirq), steal = delta(a.steal, b.steal);
    const std::uint64_t busy = user + system + irq + softirq + steal;
    const std::uint64_t ticks = busy + delta(a.idle, b.idle) + delta(a.iowait, b.iowait);
    auto share = [&](std::uint64_t part) {
      return ticks == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(ticks);
    };
    out.push_back({cpu.cpu, ticks, share(busy), share(user), share(system), share(irq),
                   share(softirq), share(steal)});
  }
  std::sort(out.begin(), out.end(),
            [](const CpuBusy& x, const CpuBusy& y) { return x.cpu < y.cpu; });
  return out;
}

// The CPU with the highest busy share (the lowest id among equals); nullopt when none was busy.
std::optional<std::uint32_t> busiest(const std::vector<CpuBusy>& cpus) {
  const CpuBusy* most = nullptr;
  for (const CpuBusy& cpu : cpus)
    if (cpu.busy > 0 && (most == nullptr || cpu.busy > most->busy)) most = &cpu;
  if (most == nullptr) return std::nullopt;
  return most->cpu;
}

// Packets when every queue counts them, else bytes.
std::optional<double> direction_imbalance(const std::vector<QueueDelta>& queues, bool rx) {
  std::vector<std::uint64_t> packets, bytes;
  for (const QueueDelta& q : queues) {
    const auto& p = rx ? q.rx_packets : q.tx_packets;
    const auto& b = rx ? q.rx_bytes : q.tx_bytes;
    if (p) packets.push_back(*p);
    if (b) bytes.push_back(*b);
  }
  if (!packets.empty() && packets.size() == queues.size()) return imbalance(packets);
  if (!bytes.empty() && bytes.size() == queues.size()) return imbalance(bytes);
  return std::nullopt;
}

}  // namespace

QueueProbe::QueueProbe(const TestSpec& spec, std::string proc_root)
    : proc_root_(std::move(proc_root)), nic_(watched_nic(spec)) {
  if (nic_.empty()) return;
  Expected<NicInfo> info = discover_nic(nic_);
  if (!info) {
    irqs_why_ = info.error().message;
    queues_why_ = info.error().message;
    return;
  }
  if (info->driver) driver_ = info->driver->name;
  if (info->queue_counters)
    source_ = info->queue_counters->source;
  else
    queues_why_ = info->queue_counters.error().message;
  if (!info->irqs) {
    irqs_why_ = info->irqs.error().message;
    return;
  }
  for (const NicIrq& irq : *info->irqs)
    if (irq.kind != QueueKind::other) irqs_.push_back(irq);
  if (irqs_.empty()) irqs_why_ = "not available: no queue IRQ among the NIC's";
}

std::optional<QueueSnapshot> QueueProbe::take() const {
  if (nic_.empty()) return std::nullopt;
  QueueSnapshot snapshot;
  snapshot.nic = nic_;
  snapshot.driver = driver_;
  snapshot.queue_irqs = irqs_;
  if (!source_) {
    snapshot.queues_why = queues_why_;
  } else if (auto queues = read_queue_counters(nic_, *source_); !queues) {
    snapshot.queues_why = queues.error().message;
  } else {
    snapshot.queues = std::move(*queues);
    snapshot.queues_source = queue_stats_source_name(*source_);
  }
  if (!irqs_why_.empty()) {
    snapshot.irqs_why = irqs_why_;
  } else if (auto text = read_whole_file(proc_root_ + "/interrupts"); !text) {
    snapshot.irqs_why = "not available: " + text.error().message;
  } else if (auto lines = parse_proc_interrupts(*text); !lines) {
    snapshot.irqs_why = lines.error().message;
  } else {
    for (const InterruptLine& line : *lines)
      if (std::any_of(irqs_.begin(), irqs_.end(),
                      [&](const NicIrq& irq) { return irq.irq == line.irq; }))
        snapshot.irqs[line.irq] = line.per_cpu;
  }
  if (auto counts = read_net_softirqs(proc_root_); !counts)
    snapshot.softirqs_why = counts.error().message;
  else
    snapshot.softirqs = std::move(*counts);
  if (auto cpus = read_cpu_ticks(proc_root_); !cpus)
    snapshot.cpus_why = cpus.error().message;
  else
    snapshot.cpus = std::move(*cpus);
  return snapshot;
}

QueueWindow queue_window(const QueueSnapshot& begin, const QueueSnapshot& end) {
  QueueWindow w;
  w.nic = end.nic;
  w.driver = end.driver;
  const std::vector<NicIrq>& irqs = end.queue_irqs;
  w.queues_unavailable = !end.queues_why.empty() ? end.queues_why : begin.queues_why;
  if (w.queues_unavailable.empty()) w.queues_source = end.queues_source;
  for (const auto& [queue, last] : end.queues) {
    const auto first = begin.queues.find(queue);
    if (first == begin.queues.end()) continue;
    w.queues.push_back({static_cast<std::uint32_t>(queue),
                        delta(first->second.rx_packets, last.rx_packets),
                        delta(first->second.rx_bytes, last.rx_bytes),
                        delta(first->second.tx_packets, last.tx_packets),
                        delta(first->second.tx_bytes, last.tx_bytes)});
  }
  w.rx_imbalance = direction_imbalance(w.queues, true);
  w.tx_imbalance = direction_imbalance(w.queues, false);

  w.irqs_unavailable = !end.irqs_why.empty() ? end.irqs_why : begin.irqs_why;
  for (const NicIrq& irq : irqs) {
    const auto first = begin.irqs.find(irq.irq);
    const auto last = end.irqs.find(irq.irq);
    if (first == begin.irqs.end() || last == end.irqs.end()) continue;
    QueueIrqDelta row{irq.irq, queue_kind_name(irq.kind), irq.queue, {}};
    for (std::size_t cpu = 0; cpu < last->second.size(); ++cpu)
      row.per_cpu.push_back(
          delta(cpu < first->second.size() ? first->second[cpu] : 0, last->second[cpu]));
    w.irqs.push_back(std::move(row));
  }

  w.softirqs_unavailable = !end.softirqs_why.empty() ? end.softirqs_why : begin.softirqs_why;
  if (begin.softirqs && end.softirqs) {
    auto per_cpu = [](const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
      std::vector<std::uint64_t> out;
      for (std::size_t cpu = 0; cpu < b.size(); ++cpu)
        out.push_back(delta(cpu < a.size() ? a[cpu] : 0, b[cpu]));
      return out;
    };
    w.net_rx_softirqs = per_cpu(begin.softirqs->net_rx, end.softirqs->net_rx);
    w.net_tx_softirqs = per_cpu(begin.softirqs->net_tx, end.softirqs->net_tx);
  }

  w.cpus_unavailable = !end.cpus_why.empty() ? end.cpus_why : begin.cpus_why;
  if (begin.cpus && end.cpus) {
    w.cpus = cpu_busy(*begin.cpus, *end.cpus);
    w.busiest_cpu = busiest(w.cpus);
    if (w.cpus.empty()) w.cpus_unavailable = "not available: no CPU was online at both edges";
  }
  return w;
}

}  // namespace xttcp
