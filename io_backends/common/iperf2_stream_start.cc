#include "io_backends/common/iperf2_stream_start.hh"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "engine/iperf2/client_header.hh"
#include "engine/iperf2/stream_preamble.hh"

namespace xttcp {

namespace {

constexpr std::chrono::milliseconds ack_wait{2000};

}  // namespace

Status start_iperf2_streams(const TestSpec& spec, const std::vector<UniqueFd>& sockets,
                            std::vector<std::string>& notes) {
  const std::vector<unsigned char> header = iperf2::tcp_stream_preamble(spec);
  if (header.empty()) return ok();
  UniqueFd epoll(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll.valid()) return fail(std::string("epoll_create1: ") + std::strerror(errno));
  // A fresh connection's send buffer is empty: one non-blocking send takes the header whole.
  for (std::size_t i = 0; i < sockets.size(); ++i) {
    const ssize_t sent = ::send(sockets[i].get(), header.data(), header.size(), MSG_NOSIGNAL);
    if (sent != static_cast<ssize_t>(header.size()))
      return fail(fmt::format("cannot send iperf 2's header on stream {}: {}", i + 1,
                              sent < 0 ? std::strerror(errno) : "a short send"));
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = i;
    if (epoll_ctl(epoll.get(), EPOLL_CTL_ADD, sockets[i].get(), &event) != 0)
      return fail(std::string("epoll_ctl: ") + std::strerror(errno));
  }
  std::vector<std::size_t> acked(sockets.size(), 0);
  std::size_t pending = sockets.size();
  const auto deadline = std::chrono::steady_clock::now() + ack_wait;
  epoll_event events[64];
  while (pending > 0) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    const int n = epoll_wait(epoll.get(), events, 64, static_cast<int>(left.count()));
    if (n < 0 && errno != EINTR) return fail(std::string("epoll_wait: ") + std::strerror(errno));
    for (int k = 0; k < n; ++k) {
      const std::size_t i = events[k].data.u64;
      unsigned char ack[iperf2::ack_size];
      const ssize_t got = ::recv(sockets[i].get(), ack, iperf2::ack_size - acked[i], MSG_DONTWAIT);
      if (got <= 0) {  // the server closed or reset: the data path reports it
        epoll_ctl(epoll.get(), EPOLL_CTL_DEL, sockets[i].get(), nullptr);
        --pending;
        continue;
      }
      acked[i] += static_cast<std::size_t>(got);
      if (acked[i] == iperf2::ack_size) {
        epoll_ctl(epoll.get(), EPOLL_CTL_DEL, sockets[i].get(), nullptr);
        --pending;
      }
    }
  }
  if (pending > 0)
    notes.push_back(
        fmt::format("iperf2: {} of {} streams got no acknowledgement of their header "
                    "within {} ms (an iperf 2 server before 2.1 sends none)",
                    pending, sockets.size(), ack_wait.count()));
  return ok();
}

void acknowledge_iperf2_stream(const TestSpec& spec, int fd) {
  if (spec.dialect != Dialect::iperf2) return;
  static const std::vector<unsigned char> reply = iperf2::tcp_accept_reply(spec);
  if (!reply.empty()) (void)::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace xttcp
