#include "engine/rss/spread_check.hh"

#include <cmath>
#include <numeric>

#include <fmt/format.h>

namespace xttcp {

namespace {

// Per queue, the packets it received, else its bytes; empty when the driver counts neither.
std::vector<uint64_t> received_per_queue(const QueueWindow& w, std::string& measure) {
  for (const bool packets : {true, false}) {
    std::vector<uint64_t> counts;
    for (const QueueDelta& q : w.queues) {
      const std::optional<uint64_t>& value = packets ? q.rx_packets : q.rx_bytes;
      if (!value) break;
      counts.push_back(*value);
    }
    if (!w.queues.empty() && counts.size() == w.queues.size()) {
      measure = packets ? "rx_packets" : "rx_bytes";
      return counts;
    }
  }
  return {};
}

std::vector<double> shares(const std::vector<uint64_t>& counts) {
  const double total = static_cast<double>(std::accumulate(counts.begin(), counts.end(), 0.0));
  std::vector<double> out;
  for (const uint64_t c : counts) out.push_back(total > 0 ? static_cast<double>(c) / total : 0.0);
  return out;
}

}  // namespace

SpreadCheck check_spread(const SourcePortSpread& predicted, const QueueWindow* measured) {
  SpreadCheck check;
  if (measured == nullptr) {
    check.unavailable = "the receiver watched no NIC queues (no queue_window in its result)";
    return check;
  }
  std::vector<uint64_t> counts = received_per_queue(*measured, check.measure);
  if (counts.empty()) {
    check.unavailable =
        "the receiver's NIC counts no RX packets or bytes per queue" +
        (measured->queues_unavailable.empty() ? std::string()
                                              : ": " + measured->queues_unavailable);
    return check;
  }
  if (counts.size() != predicted.flows_per_queue.size()) {
    check.unavailable = fmt::format("the receiver counted {} RX queue(s) and the prediction has {}",
                                    counts.size(), predicted.flows_per_queue.size());
    return check;
  }
  if (std::accumulate(counts.begin(), counts.end(), uint64_t{0}) == 0) {
    check.unavailable = "the receiver's RX queues counted nothing over the window";
    return check;
  }
  std::vector<uint64_t> flows(predicted.flows_per_queue.begin(), predicted.flows_per_queue.end());
  check.predicted_share = shares(flows);
  check.measured_share = shares(counts);
  for (std::size_t q = 0; q < counts.size(); ++q) {
    const double gap = std::fabs(check.measured_share[q] - check.predicted_share[q]);
    if (gap > check.widest_gap) {
      check.widest_gap = gap;
      check.widest_queue = static_cast<uint32_t>(q);
    }
  }
  return check;
}

}  // namespace xttcp
