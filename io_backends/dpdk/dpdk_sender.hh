// dpdk UDP sender: one TX queue per worker (queue = worker index), a frame template per flow
// built once (Ethernet/IPv4 or IPv6/UDP, the destination MAC from --peer-mac or resolved by
// ARP/ND), bursts of 32 frames per flow in turn, each stamped with the native header (flow,
// sequence, TSC time). Counts like the kernel senders (FlowCounter bytes, UdpFlowCounters), plus
// its queue's frames for the port's per-queue figures.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include <rte_ethdev.h>

#include "engine/backend/data_worker.hh"
#include "engine/udp/end_marker.hh"
#include "engine/udp/sequence_tracker.hh"
#include "io_backends/dpdk/runtime.hh"
#include "io_backends/dpdk/worker_seat.hh"

namespace xttcp::dpdk {

class DpdkUdpSender final : public DataWorker {
 public:
  DpdkUdpSender(const WorkerContext& context, Port& port)
      : context_(context), port_(&port), seat_(port, *context.plan) {}
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Flow {
    uint32_t slot = 0;
    uint32_t flow_id = 0;
    uint32_t next_sequence = 0;
    std::vector<uint8_t> frame;  // the whole frame, header encoded, sequence and time 0
    uint32_t checksum_sum = 0;   // UDP sum of `frame` before the per-frame fields (software)
    udp::UdpFlowCounters* counters = nullptr;
    // Count mode (-n): datagrams left to send (UINT64_MAX in a timed run), then the end
    // markers, each built whole (checksums in software) from `marker`.
    uint64_t left = UINT64_MAX;
    udp::EndMarkerSchedule end;
    std::vector<uint8_t> marker;
  };
  template <bool Paced>
  void send_loop(const std::atomic<bool>& stop, uint32_t burst_frames, double ticks_per_byte);
  uint16_t send_burst(Flow& flow, uint16_t count, const TscClock& clock,
                      const std::atomic<bool>& stop);
  // Count mode, once per turn: each ending flow's due end marker; a flow whose markers are all
  // out is done (WorkerContext::on_flow_done).
  void send_end_markers(const TscClock& clock);
  bool send_end_marker(Flow& flow, uint64_t now_ns);

  WorkerContext context_;
  Port* port_;
  WorkerSeat seat_;
  QueueCounters* queue_counters_ = nullptr;
  uint16_t queue_ = 0;
  uint32_t datagram_ = 0;
  bool native_ = true;
  bool ipv6_ = false;
  std::size_t header_at_ = 0;    // the native header's offset in a frame
  std::size_t checksum_at_ = 0;  // the UDP checksum's
  uint64_t offload_flags_ = 0;   // mbuf ol_flags when the NIC computes checksums
  uint16_t l3_len_ = 0;
  std::vector<Flow> flows_;
  uint64_t tx_full_ = 0;  // retries of frames the queue did not take
  uint64_t alloc_failed_ = 0;
  uint64_t budget_ = 0;  // count mode: datagrams per flow (N); 0 = timed
  uint32_t ending_ = 0;  // count mode: flows sending their end markers
  WorkerReport report_;
};

}  // namespace xttcp::dpdk
