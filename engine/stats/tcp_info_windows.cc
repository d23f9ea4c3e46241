// Windows: SIO_TCP_INFO version 0 (Windows 10 1703 and later). Wine and older Windows refuse
// it; then only the addresses are filled, as for a closed socket on Linux.
#include "engine/stats/tcp_info.hh"

#include <mstcpip.h>

#include "engine/net/address.hh"

namespace xttcp {
namespace {

// SIO_TCP_INFO and TCP_INFO_v0 as Windows defines them (mingw-w64 hides both behind
// NTDDI_WIN10_RS2).
constexpr DWORD kSioTcpInfo = _WSAIORW(IOC_VENDOR, 39);
struct TcpInfoV0 {
  int state;  // TCPSTATE
  ULONG mss;
  ULONG64 connection_time_ms;
  BOOLEAN timestamps_enabled;
  ULONG rtt_us, min_rtt_us, bytes_in_flight, cwnd, snd_wnd, rcv_wnd, rcv_buf;
  ULONG64 bytes_out, bytes_in;
  ULONG bytes_reordered, bytes_retrans, fast_retrans, dup_acks_in, timeout_episodes;
  UCHAR syn_retrans;
};

std::string address_text(NativeSocket socket, int(WSAAPI* get)(SOCKET, sockaddr*, int*)) {
  SocketAddress address;
  int length = sizeof address.storage;
  if (get(socket, address.get(), &length) != 0) return {};
  address.length = length;
  if (address.family() != AF_INET && address.family() != AF_INET6) return {};
  return address.to_string();
}

// SIO_TCP_INFO version 0; nullopt where the OS refuses it (Wine, Windows before 10 1703).
std::optional<TcpInfoV0> query_tcp_info(NativeSocket fd) {
  DWORD version = 0;
  TcpInfoV0 info{};
  DWORD returned = 0;
  if (WSAIoctl(fd, kSioTcpInfo, &version, sizeof version, &info, sizeof info, &returned, nullptr,
               nullptr) != 0 ||
      returned < sizeof info)
    return std::nullopt;
  return info;
}

}  // namespace

ConnectionStats read_tcp_info(NativeSocket fd) {
  ConnectionStats stats;
  stats.local = address_text(fd, ::getsockname);
  stats.remote = address_text(fd, ::getpeername);

  const std::optional<TcpInfoV0> queried = query_tcp_info(fd);
  if (!queried) return stats;
  const TcpInfoV0& info = *queried;
  stats.rtt_us = info.rtt_us;
  // Windows counts the window and retransmits in bytes; the model (Linux) in segments of MSS.
  // No path MTU and no delivery rate here: they stay 0 (not reported).
  if (info.mss > 0) {
    stats.snd_cwnd = info.cwnd / info.mss;
    stats.snd_mss = info.mss;
    stats.total_retrans = (info.bytes_retrans + info.mss - 1) / info.mss;
  }
  return stats;
}

std::optional<TcpSample> read_tcp_sample(NativeSocket fd) {
  const std::optional<TcpInfoV0> queried = query_tcp_info(fd);
  if (!queried) return std::nullopt;
  const TcpInfoV0& info = *queried;
  TcpSample sample;
  sample.rtt_us = info.rtt_us;
  sample.bytes_acked = info.bytes_out;  // sent, not acknowledged: Windows keeps no such count
  sample.bytes_received = info.bytes_in;
  if (info.mss > 0) {
    sample.snd_cwnd = info.cwnd / info.mss;
    sample.snd_mss = info.mss;
    sample.total_retrans = (info.bytes_retrans + info.mss - 1) / info.mss;
  }
  return sample;
}

}  // namespace xttcp
