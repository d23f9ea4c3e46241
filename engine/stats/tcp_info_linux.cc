#include "engine/stats/tcp_info.hh"

// <linux/tcp.h> rather than <netinet/tcp.h>: glibc's struct tcp_info stops before
// tcpi_delivery_rate. The two headers must not meet in one file.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstring>

#include "engine/net/address.hh"

namespace xttcp {
namespace {

std::string address_text(int fd, int (*get)(int, sockaddr*, socklen_t*)) {
  SocketAddress address;
  address.length = sizeof address.storage;
  if (get(fd, address.get(), &address.length) != 0) return {};
  if (address.family() != AF_INET && address.family() != AF_INET6) return {};
  return address.to_string();
}

}  // namespace

ConnectionStats read_tcp_info(NativeSocket fd) {
  ConnectionStats stats;
  stats.local = address_text(fd, ::getsockname);
  stats.remote = address_text(fd, ::getpeername);

  char congestion[32] = {};  // TCP_CA_NAME_MAX is 16
  socklen_t name_length = sizeof congestion - 1;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, congestion, &name_length) == 0)
    stats.congestion.assign(congestion, strnlen(congestion, name_length));

  tcp_info info{};
  socklen_t length = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return stats;

  // Older kernels fill a shorter struct: only trust fields that fit in what they wrote.
  auto reported = [length](std::size_t offset, std::size_t size) {
    return offset + size <= static_cast<std::size_t>(length);
  };
  stats.rtt_us = info.tcpi_rtt;
  stats.rttvar_us = info.tcpi_rttvar;
  stats.snd_cwnd = info.tcpi_snd_cwnd;
  stats.pmtu = info.tcpi_pmtu;
  stats.snd_mss = info.tcpi_snd_mss;
  if (reported(offsetof(tcp_info, tcpi_total_retrans), sizeof info.tcpi_total_retrans)) {
    stats.total_retrans = info.tcpi_total_retrans;
  }
  if (reported(offsetof(tcp_info, tcpi_delivery_rate), sizeof info.tcpi_delivery_rate)) {
    stats.delivery_rate_bps = info.tcpi_delivery_rate * 8;
  }
  return stats;
}

std::optional<TcpSample> read_tcp_sample(NativeSocket fd) {
  tcp_info info{};
  socklen_t length = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return std::nullopt;
  auto reported = [length](std::size_t offset, std::size_t size) {
    return offset + size <= static_cast<std::size_t>(length);
  };
  TcpSample sample;
  sample.rtt_us = info.tcpi_rtt;
  sample.rttvar_us = info.tcpi_rttvar;
  sample.snd_cwnd = info.tcpi_snd_cwnd;
  sample.snd_mss = info.tcpi_snd_mss;
  sample.pmtu = info.tcpi_pmtu;
  if (reported(offsetof(tcp_info, tcpi_total_retrans), sizeof info.tcpi_total_retrans))
    sample.total_retrans = info.tcpi_total_retrans;
  if (reported(offsetof(tcp_info, tcpi_snd_wnd), sizeof info.tcpi_snd_wnd))
    sample.snd_wnd = info.tcpi_snd_wnd;
  if (reported(offsetof(tcp_info, tcpi_pacing_rate), sizeof info.tcpi_pacing_rate) &&
      info.tcpi_pacing_rate != ~uint64_t{0})
    sample.pacing_rate_bps = info.tcpi_pacing_rate * 8;  // ~0: unlimited, no pacing
  if (reported(offsetof(tcp_info, tcpi_bytes_received), sizeof info.tcpi_bytes_received)) {
    // Acknowledged sequence space: the SYN (or SYN-ACK) took one number, which is no data.
    sample.bytes_acked = info.tcpi_bytes_acked > 0 ? info.tcpi_bytes_acked - 1 : 0;
    sample.bytes_received = info.tcpi_bytes_received;
  }
  if (reported(offsetof(tcp_info, tcpi_delivery_rate), sizeof info.tcpi_delivery_rate))
    sample.delivery_rate_bps = info.tcpi_delivery_rate * 8;
  if (reported(offsetof(tcp_info, tcpi_sndbuf_limited), sizeof info.tcpi_sndbuf_limited)) {
    sample.busy_us = info.tcpi_busy_time;
    sample.rwnd_limited_us = info.tcpi_rwnd_limited;
    sample.sndbuf_limited_us = info.tcpi_sndbuf_limited;
  }
  return sample;
}

}  // namespace xttcp
