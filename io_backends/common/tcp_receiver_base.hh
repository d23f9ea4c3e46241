// The skeleton the Linux kernel-socket TCP receivers (epoll, io_uring) share around their
// loops: the listeners (one per port of the worker, -rb/-sb applied), what happens when an
// accept fails or succeeds (a listener that runs out of descriptors rests: ListenerRest), the
// connection slots, how a connection's end is counted, and the report. A backend derives from it
// (privately) and keeps its own calls: epoll_ctl/accept4/recv, or ring operations. Nothing here is
// virtual and nothing runs per buffer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "engine/stats/rate_mark.hh"
#include "io_backends/common/accept_failure.hh"
#include "io_backends/common/iperf2_stream_start.hh"
#include "engine/net/socket_setup.hh"
#include "io_backends/common/socket_buffers.hh"
#include "io_backends/common/tcp_tuning.hh"

namespace xttcp {

// What every listener holds; a backend's listener may derive from it.
struct TcpListener {
  UniqueFd fd;
  uint32_t slot = 0;  // FlowPlan::slot: the counter of every connection it accepts
  uint16_t port = 0;
  ListenerRest rest;  // out of descriptors: not accepting until rest.due()
};

// What every accepted connection holds; a backend's connection derives from it.
struct TcpReceiveConnection {
  UniqueFd fd;  // reset when the connection ends; its slot may then be reused
  uint32_t slot = 0;
  uint64_t bytes = 0;                                // for its ConnectionStats
  RateMark mark;                                     // --receive-mark
  uint32_t watch_id = ConnectionWatch::not_watched;  // unwatched before fd is reset
  // io.count_reads: where its receives are counted (ReadSizeBinning); null when not counted.
  StreamTally* tally = nullptr;
  // Its peer as accepted: a connection the peer reset names no peer any more.
  std::string remote;
  int session = 0;  // one port: its sender's sync connection (ConnectionInbox)
};

// The parts that need neither the listener's nor the connection's type (tcp_receiver_base.cc).
class TcpReceiverBook {
 protected:
  // Takes the adopted connections over at once (WorkerContext::adopted): whatever fails later,
  // they are this worker's to close.
  explicit TcpReceiverBook(const WorkerContext& context) : context_(context) {
    for (NativeSocket socket : context.adopted) adopted_.emplace_back(socket);
  }

  void record_error(const std::string& what) {
    if (report_.errors++ == 0) report_.first_error = what;
  }
  // One listening socket for `flow`, with -rb/-sb (accepted sockets inherit them); blocking
  // when `blocking` (io_uring polls by itself). `first`: the worker's first, which notes what
  // the kernel made of the socket buffers.
  Expected<UniqueFd> listen_for(const FlowPlan& flow, bool blocking, bool first);
  // accept() on `listener` failed with `err`. True: a shortage (out of descriptors or memory);
  // the listener is counted as resting and the caller stops accepting on it until its rest is
  // due. Reports the error (a shortage once) and tells the user at once.
  bool accept_failed(TcpListener& listener, int err);
  // accept() on `listener` worked: if it had been resting, say it is back.
  void accepted(TcpListener& listener) {
    say_back(context_, listener.rest.on_success(listener.port, ListenerRest::Clock::now()));
  }
  // The connection ended: EOF or reset by the peer (err 0 or ECONNRESET), or an error. Counts
  // it, keeps its TCP_INFO and ends its flow (on_flow_done); the caller closes it.
  void connection_ended(TcpReceiveConnection& connection, int err);
  // finish(): how many connections a reset ended, as a note.
  void note_resets();
  // The peer of a connection just accepted, "127.0.0.1:40312" ("" if it is already gone).
  static std::string peer_text(int fd);
  // The connection's TCP_INFO, bytes and, when counted, its receives by size; before it leaves
  // the watch.
  ConnectionStats connection_stats(const TcpReceiveConnection& connection) const;

  // --receive-mark: whether this worker follows its connections' rates (not with -wa, which
  // sets its own mark), and when the next sweep of the marks is due (call_clock_ticks()).
  bool follow_rates_ = false;
  uint64_t next_rate_sweep_ns_ = 0;
  uint32_t highest_mark_ = 0;  // for the note

  const WorkerContext& context_;
  std::vector<UniqueFd> adopted_;  // layout.one_port: until adopt_connections() serves them
  uint32_t resting_ = 0;           // listeners not accepting for want of descriptors
  uint64_t resets_ = 0;            // connections the peer ended with a reset
  WorkerReport report_;
};

template <class Listener, class Connection>
class TcpReceiverBase : protected TcpReceiverBook {
 protected:
  using TcpReceiverBook::TcpReceiverBook;
  ~TcpReceiverBase() {  // before the members close the sockets
    for (Connection& c : connections_) unwatch_connection(context_, c.watch_id);
  }

  // open(): one listener per flow of the worker.
  Status open_listeners(bool blocking) {
    for (const FlowPlan& flow : context_.plan->flows) {
      auto fd = listen_for(flow, blocking, listeners_.empty());
      if (!fd) return fd.error();
      Listener& listener = listeners_.emplace_back();
      listener.fd = std::move(*fd);
      listener.slot = flow.slot;
      listener.port = flow.port;
    }
    return ok();
  }
  // A connection accepted on `listener` as `fd` from `peer` (nullptr: the socket is asked): a
  // fresh slot (a freed one when there is one), counted. Returns its index in connections_.
  uint32_t add_connection(const Listener& listener, int fd, const SocketAddress* peer = nullptr) {
    const uint32_t index = add_connection_to(listener.slot, fd, peer);
    acknowledge_iperf2_stream(*context_.spec, fd);  // the iperf2 dialect's server: its header ack
    return index;
  }
  // layout.one_port: every connection the control plane made (WorkerContext::adopted), taken
  // over in flow order as the flows' connections, in blocking mode when `blocking` (io_uring
  // polls by itself); `serve(index)` then serves each. The sockets are this worker's from
  // here, whatever fails.
  template <class Serve>
  Status adopt_connections(bool blocking, Serve&& serve) {
    std::vector<UniqueFd> taken = std::move(adopted_);
    adopted_.clear();
    for (size_t i = 0; i < taken.size(); ++i) {
      auto index = adopt_one(std::move(taken[i]), context_.plan->flows[i].slot, blocking);
      if (!index) return index.error();
      serve(*index);
    }
    return ok();
  }
  // layout.one_port, receivers: what the inbox holds since the last call (its pollable() came
  // back readable): each connection handed (blocking when `blocking`) is served by
  // `serve(index)` (one that cannot be set up is closed, its error recorded), then each order
  // closes its sessions' connections by `close(index)`.
  template <class Serve, class Close>
  void take_mail(bool blocking, Serve&& serve, Close&& close) {
    ConnectionInbox::Mail mail = context_.inbox->take();
    for (ConnectionInbox::Handed& handed : mail.handed) {
      auto index = adopt_one(UniqueFd(handed.socket.release()), handed.slot, blocking);
      if (!index) {
        record_error(index.error().message);
        continue;
      }
      connections_[*index].session = handed.session;
      serve(*index);
    }
    for (const ConnectionInbox::Order& order : mail.orders)
      for (uint32_t i = 0; i < connections_.size(); ++i)
        if (connections_[i].fd.valid() && order.closes(connections_[i].session)) close(i);
  }
  // A connection made elsewhere, as flow `slot`'s: blocking or not as asked, -rb/-sb and the
  // TCP options applied, counted. Its index in connections_.
  Expected<uint32_t> adopt_one(UniqueFd fd, uint32_t slot, bool blocking) {
    if (Status mode = set_nonblocking(fd.get(), !blocking); !mode) return mode.error();
    if (Status sized = apply_socket_buffers(fd.get(), *context_.spec); !sized) return sized.error();
    if (Status tuned = apply_tcp_tuning(fd.get(), *context_.spec); !tuned) return tuned.error();
    return add_connection_to(slot, fd.release());
  }
  // A connection as flow `slot`'s: a fresh slot (a freed one when there is one), counted.
  uint32_t add_connection_to(uint32_t slot, int fd, const SocketAddress* peer = nullptr) {
    uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      index = static_cast<uint32_t>(connections_.size());
      connections_.emplace_back();
    }
    Connection& c = connections_[index];
    c = Connection{};
    c.fd.reset(fd);
    c.slot = slot;
    c.watch_id = watch_connection(context_, fd, c.slot, &c.tally);
    c.remote = peer != nullptr ? peer->to_string() : peer_text(fd);
    ++report_.connections;
    return index;
  }
  // Every resting listener whose rest is over resumes (resume(index) puts it back to accepting).
  // Returns the earliest time one still resting is due, or `next` if sooner.
  template <class Resume>
  ListenerRest::Clock::time_point resume_due_listeners(ListenerRest::Clock::time_point now,
                                                       ListenerRest::Clock::time_point next,
                                                       Resume&& resume) {
    for (uint32_t i = 0; i < listeners_.size() && resting_ > 0; ++i) {
      TcpListener& listener = listeners_[i];
      if (!listener.rest.resting()) continue;
      if (!listener.rest.due(now)) {
        next = std::min(next, listener.rest.resume_at());
        continue;
      }
      listener.rest.resume();
      --resting_;
      resume(i);
    }
    return next;
  }
  // --receive-mark: once per sample period (not once per wakeup: a busy worker wakes far more
  // often), each open connection's SO_RCVLOWAT re-measured from its rate. Returns the ns until
  // the next sweep is due, which bounds the caller's wait: a held-back mark must be re-measured.
  uint64_t follow_rates(uint64_t now) {
    if (now < next_rate_sweep_ns_) return next_rate_sweep_ns_ - now;
    next_rate_sweep_ns_ = now + rate_mark::sample_ns;
    for (Connection& c : connections_)
      if (c.fd.valid()) {
        follow_receive_rate(c.fd.get(), c.mark, c.bytes, now);
        highest_mark_ = std::max(highest_mark_, c.mark.current());
      }
    return rate_mark::sample_ns;
  }
  // finish(): TCP_INFO and bytes of every connection still open, and what the marks did.
  WorkerReport finish_report() {
    for (const Connection& c : connections_)
      if (c.fd.valid()) report_.connection_stats.push_back(connection_stats(c));
    if (highest_mark_ > rate_mark::off) report_.notes.push_back(receive_mark_note(highest_mark_));
    note_resets();
    return report_;
  }

  std::vector<Listener> listeners_;
  std::vector<Connection> connections_;
  std::vector<uint32_t> free_;  // reusable slots in connections_
};

}  // namespace xttcp
