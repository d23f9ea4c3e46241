#include "io_backends/iocp/iperf2_stream_start.hh"

#include <chrono>

#include <fmt/format.h>

#include "engine/iperf2/client_header.hh"
#include "engine/iperf2/stream_preamble.hh"
#include "io_backends/iocp/winsock_error.hh"

namespace xttcp::iocp {

namespace {

constexpr std::chrono::milliseconds ack_wait{2000};

}  // namespace

Status start_iperf2_streams(const TestSpec& spec, const std::vector<SOCKET>& sockets,
                            std::vector<std::string>& notes) {
  const std::vector<unsigned char> header = iperf2::tcp_stream_preamble(spec);
  if (header.empty()) return ok();
  // A fresh connection's send buffer is empty: one send takes the header whole.
  for (std::size_t i = 0; i < sockets.size(); ++i) {
    const int sent = ::send(sockets[i], reinterpret_cast<const char*>(header.data()),
                            static_cast<int>(header.size()), 0);
    if (sent != static_cast<int>(header.size()))
      return fail(
          sent == SOCKET_ERROR
              ? last_wsa_failure(fmt::format("cannot send iperf 2's header on stream {}", i + 1))
              : fmt::format("cannot send iperf 2's header on stream {}: a short send", i + 1));
  }
  std::vector<std::size_t> acked(sockets.size(), 0);
  std::vector<bool> done(sockets.size(), false);
  std::size_t pending = sockets.size();
  const auto deadline = std::chrono::steady_clock::now() + ack_wait;
  while (pending > 0) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    std::vector<WSAPOLLFD> polled;
    std::vector<std::size_t> which;
    for (std::size_t i = 0; i < sockets.size(); ++i)
      if (!done[i]) {
        polled.push_back({sockets[i], POLLRDNORM, 0});
        which.push_back(i);
      }
    const int n =
        WSAPoll(polled.data(), static_cast<ULONG>(polled.size()), static_cast<INT>(left.count()));
    if (n == SOCKET_ERROR) return fail(last_wsa_failure("WSAPoll"));
    for (std::size_t k = 0; k < polled.size(); ++k) {
      if (polled[k].revents == 0) continue;
      const std::size_t i = which[k];
      char ack[iperf2::ack_size];
      const int got = ::recv(sockets[i], ack, static_cast<int>(iperf2::ack_size - acked[i]), 0);
      if (got <= 0) {  // the server closed or reset: the data path reports it
        done[i] = true;
        --pending;
        continue;
      }
      acked[i] += static_cast<std::size_t>(got);
      if (acked[i] == iperf2::ack_size) {
        done[i] = true;
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

void acknowledge_iperf2_stream(const TestSpec& spec, SOCKET socket) {
  if (spec.dialect != Dialect::iperf2) return;
  static const std::vector<unsigned char> reply = iperf2::tcp_accept_reply(spec);
  if (!reply.empty())
    (void)::send(socket, reinterpret_cast<const char*>(reply.data()),
                 static_cast<int>(reply.size()), 0);
}

}  // namespace xttcp::iocp
