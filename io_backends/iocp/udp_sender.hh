// iocp UDP sender: one connected UDP socket per flow (unconnected with -uc: WSASendTo), each with
// N overlapped sends of one -b datagram in flight, reposted as they complete (paced by -B /
// -thr). In native payload mode every datagram starts with xttcp's header (flow id
// udp_flow_base | slot, sequence, send time), stamped just before its send; compat mode sends
// NTttcp's 'B's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/stats/call_timer.hh"
#include "engine/udp/flow_registry.hh"
#include "io_backends/backend.hh"
#include "io_backends/iocp/iocp_port.hh"
#include "io_backends/iocp/overlapped_socket.hh"
#include "io_backends/iocp/send_pacer.hh"

namespace xttcp::iocp {

class UdpSender final : public DataWorker {
 public:
  explicit UdpSender(const WorkerContext& context)
      : context_(context), timer_(context.latency_period) {}
  ~UdpSender() override;
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Flow;
  struct SendRequest {
    OVERLAPPED overlapped{};  // first: a completion hands back its address
    Flow* flow = nullptr;
    unsigned char* datagram = nullptr;  // its own: the header differs per datagram
    uint64_t started = 0;  // -lm: CallTimer stamp taken just before the call that started it
  };
  struct Flow {
    OverlappedSocket socket;
    SocketAddress remote;  // for WSASendTo (-uc)
    uint32_t slot = 0;
    uint32_t flow_id = 0;
    uint32_t next_sequence = 0;
    udp::UdpFlowCounters* counters = nullptr;
    bool skips_port = false;
    bool open = true;
    std::unique_ptr<unsigned char[]> buffers;
    std::vector<SendRequest> requests;  // never resized: the kernel holds their addresses
  };

  template <bool Paced>
  void post_send(SendRequest& request);
  template <bool Paced>
  void send_loop(const std::atomic<bool>& stop);
  template <bool Paced>
  void on_send_completion(const OVERLAPPED_ENTRY& entry);
  // Counts a datagram of `bytes` sent by the send started at `started` (-lm: timed).
  void count_sent(Flow& flow, DWORD bytes, uint64_t started);
  // false: the flow failed (recorded); true: go on (a refusal is counted and ignored).
  bool on_send_error(Flow& flow, int error);
  void wait_for_sends(DWORD timeout_ms);
  void shut_down();

  const WorkerContext& context_;
  const CallTimer timer_;  // -lm: each send from WSASend(To) to its completion
  CompletionPort port_;  // first member: destroyed after every socket
  std::vector<std::unique_ptr<Flow>> flows_;
  ULONG datagram_ = 0;        // bytes per datagram (-b)
  bool native_ = true;        // xttcp's header in every datagram
  bool unconnected_ = false;  // -uc
  SendPacer pacer_;
  std::vector<SendRequest*> queued_;  // waiting for the pacer or past the inline budget
  std::vector<SendRequest*> swap_;
  uint64_t pending_ = 0;
  uint64_t refused_ = 0;  // sends answered by an ICMP port unreachable
  uint32_t outstanding_ = 2;
  bool opened_ = false;  // open() succeeded: run() has something to send on
  bool stopping_ = false;
  bool shut_down_ = false;
  bool leak_ = false;
  WorkerReport report_;
};

}  // namespace xttcp::iocp
