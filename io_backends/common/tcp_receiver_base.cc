#include "io_backends/common/tcp_receiver_base.hh"

#include <fmt/format.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "engine/net/socket_setup.hh"
#include "engine/stats/tcp_info.hh"
#include "io_backends/common/socket_buffers.hh"
#include "io_backends/common/tcp_tuning.hh"

namespace xttcp {

namespace {

constexpr int tcp_listen_backlog = 4096;  // the kernel caps it at net.core.somaxconn

}  // namespace

Expected<UniqueFd> TcpReceiverBook::listen_for(const FlowPlan& flow, bool blocking, bool first) {
  const TestSpec& spec = *context_.spec;
  auto fd = listen_tcp(flow_address(context_, flow), tcp_listen_backlog);
  if (!fd) return fd.error();
  if (defers_accept(context_))  // --auth-key: the preamble is there when the accept returns
    if (Status deferred = defer_accept_until_data(fd->get()); !deferred) return deferred.error();
  // -rb / -sb: accepted sockets inherit them, window scale included.
  if (Status sized = apply_socket_buffers(fd->get(), spec); !sized) return sized.error();
  // --congestion, --busy-poll: accepted sockets inherit them too.
  if (Status tuned = apply_tcp_tuning(fd->get(), spec); !tuned) return tuned.error();
  if (first)
    for (const std::string& note :
         {socket_buffer_note(fd->get(), spec), tcp_tuning_note(fd->get(), spec)})
      if (!note.empty()) report_.notes.push_back(note);
  // io_uring waits with its own poll; blocking mode keeps any kernel from answering EAGAIN.
  if (blocking)
    if (Status mode = set_nonblocking(fd->get(), false); !mode) return mode.error();
  return fd;
}

bool TcpReceiverBook::accept_failed(TcpListener& listener, int err) {
  std::string line;
  const bool shortage =
      listener.rest.on_failure(err, listener.port, ListenerRest::Clock::now(), line);
  // A shortage of descriptors or memory is what peers do to the receiver, said as it begins and
  // ends (the notice): no error of the run, so a -H receiver under such a flood still exits 0.
  if (!shortage) record_error(describe_accept_failure(listener.port, err));
  post_notice(context_, line, true);
  if (shortage) ++resting_;
  return shortage;
}

void TcpReceiverBook::connection_ended(TcpReceiveConnection& c, int err) {
  // -H serves test after test: keeping every one would grow for ever.
  std::optional<ConnectionStats> stats;
  if (!context_.spec->control.hold) stats = connection_stats(c);
  unwatch_connection(context_, c.watch_id);  // the caller closes it next
  c.tally = nullptr;                         // given back with the watch
  if (err == 0 || err == ECONNRESET) {
    ++report_.closed_by_peer;
    if (err == ECONNRESET) ++resets_;
  } else {
    record_error(std::string("recv: ") + std::strerror(err));
  }
  // However it ended, the stream is over (count mode's flow; the iperf2 server's stream, whose
  // test ends when every stream has): a reset is a client that closed without reading what it
  // was sent (iperf 2's acknowledgement, unread by a -C client), not a stream still going.
  if (context_.on_flow_done) context_.on_flow_done();
  if (stats) report_.connection_stats.push_back(std::move(*stats));
}

void TcpReceiverBook::note_resets() {
  if (resets_ > 0)
    report_.notes.push_back(fmt::format(
        "{} connection(s) ended with a reset from the sender (it closed without reading what it "
        "was sent), each counted to its end",
        resets_));
}

std::string TcpReceiverBook::peer_text(int fd) {
  SocketAddress peer;
  peer.length = sizeof peer.storage;
  if (::getpeername(fd, peer.get(), &peer.length) != 0) return {};
  return peer.to_string();
}

ConnectionStats TcpReceiverBook::connection_stats(const TcpReceiveConnection& c) const {
  ConnectionStats stats = read_tcp_info(c.fd.get(), c.bytes);
  if (stats.remote.empty()) stats.remote = c.remote;  // reset: the socket no longer says
  if (c.watch_id != ConnectionWatch::not_watched) stats.stream = c.watch_id;
  if (c.tally != nullptr) stats.read_sizes = c.tally->read().sizes;
  return stats;
}

}  // namespace xttcp
