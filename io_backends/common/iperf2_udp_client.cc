#include "io_backends/common/iperf2_udp_client.hh"

#include <poll.h>
#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "engine/iperf2/udp_datagram.hh"
#include "engine/net/address.hh"
#include "io_backends/common/iperf2_udp_server.hh"

namespace xttcp {

namespace {

constexpr int fin_tries = 10;         // iperf 2's client: 10 tries ...
constexpr int fin_try_wait_ms = 250;  // ... a quarter second apart
constexpr char payload_fill = 'B';

iperf2::UdpHead head_now(int64_t sequence) {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);  // iperf 2 stamps gettimeofday(); only differences count
  return {sequence, static_cast<uint32_t>(now.tv_sec), static_cast<uint32_t>(now.tv_nsec / 1000)};
}

std::string endpoint(int fd, int (*get)(int, sockaddr*, socklen_t*)) {
  SocketAddress address;
  address.length = sizeof address.storage;
  if (get(fd, address.get(), &address.length) != 0) return {};
  return address.to_string();
}

}  // namespace

void write_iperf2_udp_headers(const TestSpec& spec, unsigned char* data, uint32_t datagram,
                              uint32_t count) {
  const uint32_t streams = std::max<uint32_t>(static_cast<uint32_t>(spec.sender_connections()), 1);
  const iperf2::ClientHeader header = iperf2::udp_client_header(
      streams, spec.layout.base_port, static_cast<uint32_t>(spec.workload.duration_s),
      spec.iperf2.len_given ? datagram : 0, spec.workload.rate_limit_bps / streams);
  unsigned char encoded[iperf2::udp_header_size];
  iperf2::encode_udp_header(header, encoded);
  const std::size_t fits = std::min<std::size_t>(datagram, sizeof encoded);
  for (uint32_t i = 0; i < count; ++i)
    std::memcpy(data + static_cast<std::size_t>(i) * datagram, encoded, fits);
}

void stamp_iperf2_datagrams(unsigned char* data, uint32_t datagram, uint32_t count,
                            uint64_t first_sent) {
  if (datagram < iperf2::udp_head_size) return;
  iperf2::UdpHead head = head_now(0);
  for (uint32_t i = 0; i < count; ++i) {
    head.sequence = static_cast<int64_t>(first_sent + 1 + i);
    iperf2::encode_head(head, data + static_cast<std::size_t>(i) * datagram);
  }
}

void end_iperf2_udp_streams(const TestSpec& spec, uint32_t datagram,
                            std::vector<Iperf2UdpStreamEnd>& streams,
                            std::vector<std::string>& notes) {
  std::vector<unsigned char> fin(std::max<std::size_t>(datagram, iperf2::udp_head_size),
                                 static_cast<unsigned char>(payload_fill));
  write_iperf2_udp_headers(spec, fin.data(), static_cast<uint32_t>(fin.size()), 1);
  std::vector<bool> answered(streams.size(), false);
  for (Iperf2UdpStreamEnd& s : streams) {
    s.stats->local = endpoint(s.fd, ::getsockname);
    s.stats->remote = endpoint(s.fd, ::getpeername);
  }
  for (int attempt = 0; attempt < fin_tries; ++attempt) {
    std::vector<pollfd> waiting;
    for (std::size_t i = 0; i < streams.size(); ++i) {
      if (answered[i]) continue;
      iperf2::encode_head(head_now(-static_cast<int64_t>(streams[i].sent + 1)), fin.data());
      (void)::send(streams[i].fd, fin.data(), fin.size(), MSG_DONTWAIT);  // lost: the next try
      waiting.push_back({streams[i].fd, POLLIN, 0});
    }
    if (waiting.empty()) break;
    // Read every report that arrives within this try's quarter second.
    timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
      timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      const long spent_ms =
          (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1'000'000;
      if (spent_ms >= fin_try_wait_ms) break;
      if (::poll(waiting.data(), waiting.size(), static_cast<int>(fin_try_wait_ms - spent_ms)) <= 0)
        break;
      for (pollfd& p : waiting) {
        if (p.fd < 0 || (p.revents & POLLIN) == 0) continue;
        unsigned char reply[512];
        const ssize_t got = ::recv(p.fd, reply, sizeof reply, MSG_DONTWAIT);
        const auto report = got > 0
                                ? iperf2::decode_server_report(reply, static_cast<std::size_t>(got))
                                : std::nullopt;
        if (!report) continue;  // not a report (or an ICMP error): wait on
        for (std::size_t i = 0; i < streams.size(); ++i)
          if (streams[i].fd == p.fd && !answered[i]) {
            answered[i] = true;
            streams[i].stats->iperf2_udp = iperf2_stream_figures(*report);
          }
        p.fd = -1;  // answered: poll skips it from now on
      }
      if (std::all_of(waiting.begin(), waiting.end(), [](const pollfd& p) { return p.fd < 0; }))
        break;
    }
  }
  const auto missing =
      static_cast<std::size_t>(std::count(answered.begin(), answered.end(), false));
  if (missing > 0)
    notes.push_back(fmt::format(
        "iperf2: {} of {} UDP streams got no server report after {} tries of their last "
        "datagram ({} ms apart): is the server iperf 2 (iperf -s -u)?",
        missing, streams.size(), fin_tries, fin_try_wait_ms));
}

}  // namespace xttcp
