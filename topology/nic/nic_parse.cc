// /proc/interrupts, CPU masks and per-driver IRQ names (see nic_parse.hh).
#include "topology/nic/nic_parse.hh"

#include <algorithm>
#include <charconv>
#include <optional>

#include <fmt/format.h>

namespace xttcp {
namespace {

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    std::size_t end = at;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    if (end > at) out.push_back(line.substr(at, end - at));
    at = end;
  }
  return out;
}

template <class Int>
std::optional<Int> to_int(std::string_view text, int base = 10) {
  Int value{};
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return {};
  return value;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// "<prefix><n><suffix...>" -> n, when `text` starts with prefix followed by digits and then
// `end` (or the end of text when `end` is empty).
std::optional<int> number_after(std::string_view text, std::string_view prefix,
                                std::string_view end = "") {
  if (!starts_with(text, prefix)) return {};
  std::string_view rest = text.substr(prefix.size());
  std::size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  if (digits == 0) return {};
  std::string_view tail = rest.substr(digits);
  if (end.empty() ? !tail.empty() : !starts_with(tail, end)) return {};
  return to_int<int>(rest.substr(0, digits));
}

struct QueueOf {
  QueueKind kind;
  int queue;
};

// "<name>@pci:<bdf>": true when the name is about this device (or the address is unknown).
bool on_device(std::string_view name, const IrqNaming& naming) {
  std::size_t at = name.find("@pci:");
  return at == std::string_view::npos || naming.pci_address.empty() ||
         name.substr(at + 5) == naming.pci_address;
}

// The queue an IRQ name says it serves, per driver. gve's notify blocks need the block count,
// so they are numbered here and split into TX then RX halves by the caller.
std::optional<QueueOf> queue_of(std::string_view name, const IrqNaming& naming) {
  const std::string& d = naming.driver;
  if (d == "ena") {  // "eth0-Tx-Rx-3", management "ena-mgmnt@pci:..."
    if (auto n = number_after(name, naming.ifname + "-Tx-Rx-"))
      return QueueOf{QueueKind::combined, *n};
    return {};
  }
  if (d == "gve") {  // "gve-ntfy-blk5@pci:...", management "gve-mgmnt@pci:..."
    if (!on_device(name, naming)) return {};
    if (auto n = number_after(name, "gve-ntfy-blk", "@")) return QueueOf{QueueKind::other, *n};
    return {};
  }
  if (d == "mana") {  // "mana_q2@pci:...", channel "mana_hwc@pci:..."
    if (!on_device(name, naming)) return {};
    if (auto n = number_after(name, "mana_q", "@")) return QueueOf{QueueKind::combined, *n};
    return {};
  }
  if (d == "mlx5_core") {  // "mlx5_comp7@pci:...", "mlx5_async0@pci:..."
    if (!on_device(name, naming)) return {};
    if (auto n = number_after(name, "mlx5_comp", "@")) return QueueOf{QueueKind::combined, *n};
    return {};
  }
  if (d == "virtio_net") {  // "virtio2-input.0", "virtio2-output.0", "virtio2-config"
    const std::string prefix = naming.device + "-";
    if (!naming.device.empty() && !starts_with(name, prefix)) return {};
    std::string_view rest =
        naming.device.empty() ? name.substr(name.find('-') + 1) : name.substr(prefix.size());
    if (auto n = number_after(rest, "input.")) return QueueOf{QueueKind::rx, *n};
    if (auto n = number_after(rest, "output.")) return QueueOf{QueueKind::tx, *n};
    return {};
  }
  // Intel and most others: "eth0-TxRx-3", "eth0-rx-3", "eth0-tx-3".
  const std::string prefix = naming.ifname + "-";
  if (auto n = number_after(name, prefix + "TxRx-")) return QueueOf{QueueKind::combined, *n};
  if (auto n = number_after(name, prefix + "rx-")) return QueueOf{QueueKind::rx, *n};
  if (auto n = number_after(name, prefix + "tx-")) return QueueOf{QueueKind::tx, *n};
  return {};
}

}  // namespace

const char* queue_kind_name(QueueKind kind) {
  switch (kind) {
    case QueueKind::rx: return "rx";
    case QueueKind::tx: return "tx";
    case QueueKind::combined: return "combined";
    case QueueKind::other: return "other";
  }
  return "other";
}

Expected<std::vector<InterruptLine>> parse_proc_interrupts(std::string_view text) {
  std::vector<InterruptLine> lines;
  std::size_t cpu_count = 0;
  bool header = false;
  while (!text.empty()) {
    std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    std::vector<std::string_view> fields = words(line);
    if (fields.empty()) continue;
    if (!header) {
      for (std::string_view field : fields) {
        if (!starts_with(field, "CPU"))
          return fail(fmt::format(
              "/proc/interrupts: the first line is not the CPU header (got '{}')", line));
      }
      cpu_count = fields.size();
      header = true;
      continue;
    }
    std::string_view label = fields[0];
    if (label.empty() || label.back() != ':') continue;
    std::optional<int> irq = to_int<int>(label.substr(0, label.size() - 1));
    if (!irq) continue;  // NMI:, LOC:, ERR: ... are not device interrupts
    if (fields.size() < 1 + cpu_count + 1)
      return fail(fmt::format("/proc/interrupts line '{}': fewer than {} CPU counts and a name",
                              line, cpu_count));
    InterruptLine parsed;
    parsed.irq = *irq;
    for (std::size_t cpu = 0; cpu < cpu_count; ++cpu) {
      std::optional<std::uint64_t> count = to_int<std::uint64_t>(fields[1 + cpu]);
      if (!count)
        return fail(
            fmt::format("/proc/interrupts line '{}': '{}' is not a count", line, fields[1 + cpu]));
      parsed.per_cpu.push_back(*count);
    }
    parsed.name = std::string(fields.back());
    lines.push_back(std::move(parsed));
  }
  if (!header) return fail("/proc/interrupts: empty");
  return lines;
}

Expected<std::vector<NicIrq>> map_queue_irqs(const IrqNaming& naming,
                                             const std::vector<InterruptLine>& lines) {
  if (naming.driver == "hv_netvsc")
    return fail("hv_netvsc has no IRQ per queue (its channels interrupt through VMBus)");
  std::vector<NicIrq> irqs;
  int gve_blocks = 0;
  for (const InterruptLine& line : lines) {
    const bool of_device = std::find(naming.device_irqs.begin(), naming.device_irqs.end(),
                                     line.irq) != naming.device_irqs.end();
    std::optional<QueueOf> queue = queue_of(line.name, naming);
    if (!of_device && !queue) continue;
    // Without msi_irqs the name alone decides; with it, a same-named IRQ of another device
    // is not ours.
    if (!naming.device_irqs.empty() && !of_device) continue;
    NicIrq irq;
    irq.irq = line.irq;
    irq.name = line.name;
    if (queue) {
      irq.kind = queue->kind;
      irq.queue = queue->queue;
      if (naming.driver == "gve") ++gve_blocks;
    }
    irqs.push_back(std::move(irq));
  }
  if (naming.driver == "gve") {
    // gve gives TX queue i notify block i and RX queue i block (blocks / 2) + i.
    for (NicIrq& irq : irqs) {
      if (irq.queue < 0) continue;
      const bool rx = irq.queue >= gve_blocks / 2;
      irq.kind = rx ? QueueKind::rx : QueueKind::tx;
      irq.queue = rx ? irq.queue - gve_blocks / 2 : irq.queue;
    }
  }
  if (irqs.empty())
    return fail(fmt::format("no interrupt in /proc/interrupts is {}'s (driver {})", naming.ifname,
                            naming.driver.empty() ? "unknown" : naming.driver));
  std::stable_sort(irqs.begin(), irqs.end(), [](const NicIrq& a, const NicIrq& b) {
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.queue < b.queue;
  });
  return irqs;
}

Expected<std::vector<int>> parse_cpu_mask(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.empty()) return fail("empty CPU mask");
  std::vector<int> cpus;
  int bit = 0;
  // Hex digits from the right, commas separating 32-bit words.
  for (std::size_t i = text.size(); i-- > 0;) {
    const char c = text[i];
    if (c == ',') continue;
    std::optional<int> digit = to_int<int>(text.substr(i, 1), 16);
    if (!digit) return fail(fmt::format("'{}' is not a CPU mask (hex words, commas)", text));
    for (int b = 0; b < 4; ++b) {
      if ((*digit >> b) & 1) cpus.push_back(bit + b);
    }
    bit += 4;
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

std::string describe_hash_fields(std::uint64_t rxh_bits) {
  // The RXH_* bits of linux/ethtool.h (an ABI; nic_linux.cc checks them against the header).
  static constexpr struct {
    std::uint64_t bit;
    const char* name;
  } kFields[] = {{1ULL << 1, "l2-dst"},  {1ULL << 2, "vlan"},   {1ULL << 3, "l3-proto"},
                 {1ULL << 4, "src-ip"},  {1ULL << 5, "dst-ip"}, {1ULL << 6, "src-port"},
                 {1ULL << 7, "dst-port"}};
  if (rxh_bits & (1ULL << 31)) return "discard";
  std::string out;
  for (const auto& field : kFields) {
    if (!(rxh_bits & field.bit)) continue;
    if (!out.empty()) out += ' ';
    out += field.name;
  }
  return out.empty() ? "none" : out;
}

}  // namespace xttcp
