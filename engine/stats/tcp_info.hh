// TCP_INFO of one of our own connections (RTT, retransmits, cwnd, path MTU, delivery rate).
// Per platform: tcp_info_linux.cc (getsockopt TCP_INFO), tcp_info_windows.cc (SIO_TCP_INFO,
// Windows 10 1703+; where it fails only the addresses are filled).
#pragma once

#include <cstdint>
#include <optional>

#include "engine/net/os_socket.hh"
#include "engine/result.hh"

namespace xttcp {

// Reads getsockopt(TCP_INFO) and the connection's addresses ("127.0.0.1:5001", "[::1]:5001").
// Fields the kernel does not report stay 0; a non-TCP or closed fd gives an all-zero record.
// delivery_rate_bps is in bits per second (the kernel reports bytes per second). bytes is left
// for the caller, who counts them.
ConnectionStats read_tcp_info(NativeSocket fd);
// The cumulative TCP_INFO figures an interval needs, read at every interval (no address or
// congestion lookups); nullopt when the socket gives none (closed, not TCP, or the OS refuses).
std::optional<TcpSample> read_tcp_sample(NativeSocket fd);

// The same, with the bytes the application counted on that connection.
inline ConnectionStats read_tcp_info(NativeSocket fd, uint64_t bytes) {
  ConnectionStats stats = read_tcp_info(fd);
  stats.bytes = bytes;
  return stats;
}

}  // namespace xttcp
