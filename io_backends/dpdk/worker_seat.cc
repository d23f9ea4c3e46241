#include "io_backends/dpdk/worker_seat.hh"

#include <algorithm>

#include <fmt/format.h>

namespace xttcp::dpdk {

WorkerSeat::~WorkerSeat() {
  if (registered_) unregister_thread();
}

void WorkerSeat::take(std::vector<std::string>& notes) {
  if (std::string placed = place_worker(*port_, plan_->index, plan_->cpu); !placed.empty())
    notes.push_back(std::move(placed));
  registered_ = register_thread();
}

WorkerSeat::Polling WorkerSeat::start_polling() {
  stats_start_ = read_stats(port_->id);
  stats_taken_ = true;
  return Polling(*port_);
}

void WorkerSeat::leave(WorkerReport& report) {
  if (stats_taken_ && plan_->index == 0) {
    report.notes.insert(report.notes.end(), port_->notes.begin(), port_->notes.end());
    report.notes.push_back(stats_note(*port_, stats_start_, read_stats(port_->id)));
  }
  if (registered_) {
    unregister_thread();
    registered_ = false;
  }
}

uint32_t largest_frame(const Port& port) {
  return std::min<uint32_t>(uint32_t{port.mtu} + frame::ethernet_bytes, port.frame_room);
}

Expected<std::vector<uint16_t>> receive_queues(const Port& port, uint32_t index, uint32_t workers,
                                               std::string_view role) {
  if (index >= port.queues)
    return fail(fmt::format("--dpdk-port {}: {} queue(s): run at most {} {} worker(s) (--threads)",
                            port.name, port.queues, port.queues, role));
  std::vector<uint16_t> queues;
  for (uint32_t q = index; q < port.queues; q += std::max<uint32_t>(workers, 1))
    queues.push_back(static_cast<uint16_t>(q));
  return queues;
}

void note_count(std::vector<std::string>& notes, uint64_t n, std::string_view what) {
  if (n > 0) notes.push_back(fmt::format("dpdk: {}", fmt::format(fmt::runtime(what), n)));
}

}  // namespace xttcp::dpdk
