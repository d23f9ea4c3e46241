// What every dpdk worker does around its poll loop, written once for the four of them: its CPU
// and EAL thread id (open), the port's counters when polling starts and its place among the
// port's pollers (run), the port's notes and counter deltas from worker 0 and the thread id given
// back (finish, or the destructor after an open that failed).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <rte_ethdev.h>

#include "base/status.hh"
#include "engine/backend/data_worker.hh"
#include "engine/plan.hh"
#include "io_backends/dpdk/runtime.hh"

namespace xttcp::dpdk {

class WorkerSeat {
 public:
  WorkerSeat(Port& port, const WorkerPlan& plan) : port_(&port), plan_(&plan) {}
  ~WorkerSeat();
  WorkerSeat(const WorkerSeat&) = delete;
  WorkerSeat& operator=(const WorkerSeat&) = delete;

  // open(): the worker's CPU (on the port's NUMA node unless pinned) and an EAL lcore id.
  void take(std::vector<std::string>& notes);

  // run(): counted among the port's pollers while this lives; the port's counters are read first.
  class Polling {
   public:
    explicit Polling(Port& port) : port_(&port) { port_->pollers.fetch_add(1); }
    ~Polling() { port_->pollers.fetch_sub(1); }
    Polling(const Polling&) = delete;
    Polling& operator=(const Polling&) = delete;

   private:
    Port* port_;
  };
  [[nodiscard]] Polling start_polling();

  // finish(): worker 0 reports the port's notes and its counters over the run; then the lcore
  // id goes back.
  void leave(WorkerReport& report);

 private:
  Port* port_;
  const WorkerPlan* plan_;
  bool registered_ = false;
  bool stats_taken_ = false;
  rte_eth_stats stats_start_{};
};

// The largest frame the port carries in one mbuf: MTU plus Ethernet header, within the pool's
// frame room.
uint32_t largest_frame(const Port& port);

// The RX queues receiving worker `index` of `workers` polls (index, index + workers, ...), or,
// when the port has fewer queues than workers, the error naming --threads.
Expected<std::vector<uint16_t>> receive_queues(const Port& port, uint32_t index, uint32_t workers,
                                               std::string_view role);

// "dpdk: <what>" with n in it, appended to notes when n > 0 (counts a worker reports at the end).
void note_count(std::vector<std::string>& notes, uint64_t n, std::string_view what);

}  // namespace xttcp::dpdk
