// Receive-side UDP accounting shared by the Linux backends: one per receiving socket. A buffer
// may hold several datagrams of one flow coalesced by UDP_GRO; each is accounted on its own by
// udp::DatagramAccounting. Also the sender's header stamping and the receive cmsgs.
#pragma once

#include <sys/socket.h>
#include <time.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "engine/udp/datagram_accounting.hh"

namespace xttcp {

class UdpSocketAccounting {
 public:
  // `on_flow_end` (count mode: WorkerContext::on_flow_done) is called once per flow whose end
  // marker arrived, by announce_ended(); may be null or empty, must outlive this object.
  // `layout` and `on_flow_start`: udp::DatagramAccounting's.
  UdpSocketAccounting(udp::UdpFlowRegistry& registry, uint32_t slot,
                      const std::function<void()>* on_flow_end = nullptr,
                      udp::DatagramLayout layout = udp::DatagramLayout::native,
                      const std::function<void()>* on_flow_start = nullptr)
      : datagrams_(registry, slot, on_flow_end, layout, on_flow_start) {}

  // A received buffer of `length` bytes (`in_buffer` of them present in `data`, fewer when read
  // with MSG_TRUNC) holding datagrams of `segment` bytes (the last may be shorter); segment =
  // length when the buffer is one datagram. Returns the bytes of data in it: `length` less any
  // end markers (count mode), which are not data.
  std::size_t on_buffer(const unsigned char* data, std::size_t in_buffer, std::size_t length,
                        std::size_t segment, uint64_t now_ns);
  uint32_t flows() const { return datagrams_.flows(); }
  // Count mode: tells the engine of the flows whose end marker arrived; call it after counting
  // the bytes on_buffer() returned (DatagramAccounting::announce_ended).
  void announce_ended() { datagrams_.announce_ended(); }
  // Count mode: see DatagramAccounting::end_compat_after.
  void end_compat_after(uint64_t datagrams) { datagrams_.end_compat_after(datagrams); }
  // The iperf2 layout (io_backends/common/iperf2_udp_server.hh).
  void set_source(uint32_t flow_id, const SocketAddress& source, uint64_t steady_ns) {
    datagrams_.set_source(flow_id, source, steady_ns);
  }
  const std::vector<udp::Iperf2StreamEvent>& stream_events() const {
    return datagrams_.stream_events();
  }
  void clear_stream_events() { datagrams_.clear_stream_events(); }
  void end_silent_streams(uint64_t steady_ns) { datagrams_.end_silent_streams(steady_ns); }
  std::optional<uint32_t> take_began() { return datagrams_.take_began(); }

 private:
  udp::DatagramAccounting datagrams_;
};

// Writes xttcp's header at the start of `count` datagrams of `datagram` bytes laid out back to
// back from `data`: flow id and token, sequence first_sequence + i, one send time for the batch.
void stamp_datagrams(unsigned char* data, uint32_t datagram, uint32_t count, uint32_t flow_id,
                     uint16_t token, uint32_t first_sequence, uint64_t now_ns);

uint64_t monotonic_ns();

// What a UDP receiver asks the kernel for with each buffer: UDP_GRO's segment size and the
// receive time of the packet (SO_TIMESTAMPNS), which jitter needs per packet, not per batch.
inline constexpr std::size_t udp_control_bytes =
    CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(timespec));
struct ReceiveInfo {
  std::size_t segment = 0;  // 0: one datagram
  uint64_t receive_ns = 0;  // 0: no kernel timestamp (the caller's clock read stands in)
};
// Reads one control message into `info`; others are ignored.
void read_receive_cmsg(const cmsghdr& message, ReceiveInfo& info);

}  // namespace xttcp
