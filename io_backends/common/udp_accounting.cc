#include "io_backends/common/udp_accounting.hh"

#include <netinet/udp.h>
#include <time.h>

#include <algorithm>
#include <cstring>

#include "engine/udp/datagram_header.hh"

namespace xttcp {

uint64_t monotonic_ns() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(now.tv_nsec);
}

#ifndef UDP_GRO
#define UDP_GRO 104  // include/uapi/linux/udp.h, Linux 5.0
#endif

void read_receive_cmsg(const cmsghdr& message, ReceiveInfo& info) {
  if (message.cmsg_level == SOL_UDP && message.cmsg_type == UDP_GRO) {
    int size;
    std::memcpy(&size, CMSG_DATA(&message), sizeof size);
    if (size > 0) info.segment = static_cast<std::size_t>(size);
  } else if (message.cmsg_level == SOL_SOCKET && message.cmsg_type == SCM_TIMESTAMPNS) {
    timespec at;
    std::memcpy(&at, CMSG_DATA(&message), sizeof at);
    info.receive_ns =
        static_cast<uint64_t>(at.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(at.tv_nsec);
  }
}

void stamp_datagrams(unsigned char* data, uint32_t datagram, uint32_t count, uint32_t flow_id,
                     uint16_t token, uint32_t first_sequence, uint64_t now_ns) {
  for (uint32_t i = 0; i < count; ++i)
    udp::encode(udp::DatagramHeader{flow_id, first_sequence + i, now_ns, token},
                data + static_cast<std::size_t>(i) * datagram);
}

std::size_t UdpSocketAccounting::on_buffer(const unsigned char* data, std::size_t in_buffer,
                                           std::size_t length, std::size_t segment,
                                           uint64_t now_ns) {
  if (segment == 0 || segment > length) segment = length;
  in_buffer = std::min(in_buffer, length);
  std::size_t offset = 0;
  std::size_t data_bytes = length;
  do {  // a zero-length datagram is a datagram too
    const std::size_t one = std::min(segment, length - offset);
    const std::size_t available = offset < in_buffer ? std::min(one, in_buffer - offset) : 0;
    if (!datagrams_.on_datagram(data + offset, available, one, now_ns)) data_bytes -= one;
    offset += segment;
  } while (offset < length);
  return data_bytes;
}

}  // namespace xttcp
