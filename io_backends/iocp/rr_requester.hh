// iocp --rr requester (docs/rr.md): every flow keeps --rr-depth requests of -b bytes in flight and
// times each until its response is whole, into the flow's histogram, with the clock every path
// uses (RrClock: QueryPerformanceCounter on Windows). Each flow keeps one overlapped receive
// pending. TCP (TCP_NODELAY): one WSASend at a time takes every request owed from a shared buffer
// of 'A'; responses are counted out of the byte stream and complete the oldest request in flight.
// UDP (a connected socket): every request is its own datagram, stamped with its send time in its
// first 8 bytes, sent from one of the flow's send slots; a flow that hears nothing for the loss
// pause gives its requests in flight up as lost (rr_lost) and sends new ones.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/stats/rr_clock.hh"
#include "io_backends/common/rr_flow.hh"
#include "io_backends/common/rr_udp_gate.hh"
#include "io_backends/iocp/iocp_worker.hh"
#include "io_backends/iocp/overlapped_socket.hh"

namespace xttcp::iocp {

class RrRequester final : public IocpWorker {
 public:
  explicit RrRequester(const WorkerContext& context) : IocpWorker(context) {}
  ~RrRequester() override;
  Status open() override;
  void run(const std::atomic<bool>& stop) override;
  WorkerReport finish() override;

 private:
  struct Flow;
  struct Operation {
    OVERLAPPED overlapped{};  // first: a completion hands back its address
    Flow* flow = nullptr;
    bool send = false;
    bool busy = false;              // the kernel holds it, or it waits in queued_
    unsigned char* data = nullptr;  // UDP sends: the slot's datagram
  };
  struct Flow {
    OverlappedSocket socket;
    uint32_t slot = 0;
    bool skips_port = false;
    bool open = true;  // false once the peer went away or an operation failed
    std::string local, remote;
    Operation receive;
    std::unique_ptr<unsigned char[]> in;  // the receive's buffer
    // TCP
    StampQueue stamps;  // send times of the requests in flight, oldest first
    MessageCounter responses;
    uint64_t unsent = 0;  // request bytes owed, not yet taken by a send
    // UDP
    UdpRrWindow window;
    std::unique_ptr<unsigned char[]> datagrams;  // one request per send slot
    std::vector<Operation*> idle_sends;          // send slots free to use (capacity: all)
    std::vector<Operation> sends;  // TCP: one; UDP: the slots. Never resized: the kernel holds
                                   // their addresses
  };

  // Starts a receive on a busy `op`; handles what completes inline, up to the budget.
  void post_receive(Operation& op);
  // A receive of `flow` ended with `bytes` (in flow.in) or `error`; false when the flow failed
  // (no receive follows).
  bool take_receive(Flow& flow, DWORD bytes, int error);
  // TCP: `n` bytes of responses arrived; the whole ones complete requests, which go again.
  void tcp_responses(Flow& flow, uint64_t n);
  // TCP: starts the flow's send when it is idle and requests are owed.
  void tcp_kick(Flow& flow);
  // TCP: sends on the busy `op` until one is pending, nothing is owed or the budget is spent.
  void tcp_post_send(Operation& op);
  // UDP: a datagram of `n` bytes (in flow.in) arrived.
  void udp_response(Flow& flow, DWORD n);
  // UDP: sends requests while the window has room and a slot is free.
  void udp_send(Flow& flow);
  // UDP: a send that did not leave (`error`); false when the flow failed.
  bool udp_send_error(Flow& flow, int error);
  void udp_check_loss();
  void dispatch(const OVERLAPPED_ENTRY& entry);
  void fail_flow(Flow& flow, const char* call, int error);
  // At the end: lets the sends started finish (bounded), ends the TCP streams gracefully,
  // cancels what is left and drains the port (bounded).
  void shut_down();

  uint32_t request_ = 0, response_ = 0, depth_ = 1;
  bool udp_ = false;
  std::vector<std::unique_ptr<Flow>> flows_;
  std::unique_ptr<unsigned char[]> out_;  // TCP requests: bytes of 'A', shared by every flow
  ULONG out_size_ = 0;
  ULONG in_size_ = 0;
  uint64_t pending_sends_ = 0;      // of pending_: the sends
  std::vector<Operation*> queued_;  // past the inline budget: go on next turn
  std::vector<Operation*> swap_;
  uint32_t refused_ = 0;  // UDP: sends and receives told of an ICMP port unreachable
  bool opened_ = false;
  // Round trips: stamped in this clock's ticks, recorded in ns (engine/stats/rr_clock.hh).
  const RrClock& clock_ = RrClock::get();
  const uint64_t loss_pause_ticks_ = clock_.from_ns(rr_udp_loss_pause_ns);
};

}  // namespace xttcp::iocp
