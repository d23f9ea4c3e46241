// iocp UDP sender: one connected UDP socket per flow (unconnected with -uc: WSASendTo), each with
// N overlapped sends of one -b datagram in flight, reposted as they complete (paced by -B /
// -thr). In native payload mode every datagram starts with xttcp's header (flow id
// udp_flow_base | slot, sequence, send time), stamped just before its send; compat mode sends
// NTttcp's 'B's. Count mode (-n N): each flow posts N datagrams; once all N completed, its end
// markers (end_marker.hh) leave as plain synchronous sends, then the flow is done (on_flow_done).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/udp/end_marker.hh"
#include "engine/udp/flow_registry.hh"
#include "io_backends/iocp/overlapped_socket.hh"
#include "io_backends/iocp/send_worker.hh"

namespace xttcp::iocp {

namespace udp_send {
struct Flow;
struct SendRequest {
  OVERLAPPED overlapped{};  // first: a completion hands back its address
  Flow* flow = nullptr;
  unsigned char* datagram = nullptr;  // its own: the header differs per datagram
  uint64_t started = 0;  // -lm: CallTimer stamp taken just before the send that started it
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
  // Count mode: datagrams not started yet / not completed yet, then the end markers.
  uint64_t unposted = 0;
  uint64_t uncounted = 0;
  udp::EndMarkerSchedule end;
  std::unique_ptr<unsigned char[]> buffers;
  std::vector<SendRequest> requests;  // never resized: the kernel holds their addresses
};
}  // namespace udp_send

class UdpSender final : public SendWorker<UdpSender, udp_send::Flow, udp_send::SendRequest> {
 public:
  explicit UdpSender(const WorkerContext& context) : SendWorker(context) {}
  ~UdpSender() override { shut_down(); }
  Status open() override;
  WorkerReport finish() override;

 private:
  friend SendWorker;
  using Flow = udp_send::Flow;
  using SendRequest = udp_send::SendRequest;
  static constexpr const char* sends_name = "UDP sends";

  template <bool Paced>
  void post_send(SendRequest& request);
  template <bool Paced>
  void on_send_completion(const OVERLAPPED_ENTRY& entry);
  // Counts a datagram of `bytes` sent by the send started at `started` (-lm: timed).
  void count_sent(Flow& flow, DWORD bytes, uint64_t started);
  // false: the flow failed (recorded); true: go on (a refusal is counted and ignored).
  bool on_send_error(Flow& flow, int error);
  // Count mode: the end markers that are due; SendWorker's hook between two waits.
  DWORD between_waits(DWORD timeout);
  void send_end_marker(Flow& flow);

  ULONG datagram_ = 0;        // bytes per datagram (-b)
  bool native_ = true;        // xttcp's header in every datagram
  bool unconnected_ = false;  // -uc
  uint64_t budget_ = 0;       // count mode: datagrams per flow (N); 0 = timed
  uint32_t ending_ = 0;       // count mode: flows sending their end markers
  uint64_t refused_ = 0;      // sends answered by an ICMP port unreachable
};

}  // namespace xttcp::iocp
