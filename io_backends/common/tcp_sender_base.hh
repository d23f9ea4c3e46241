// The skeleton the Linux kernel-socket TCP senders (epoll, io_uring) share around their loops:
// the connections they open and count, how a connection ends (the peer went away, an error,
// count mode's budget sent), the zero-copy figures and the report. A backend derives from it
// (privately) and keeps only its own calls: send(), or ring operations. Nothing here is virtual
// and nothing runs per buffer; the hot loops stay in the backends, instantiated per mode.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/unique_fd.hh"
#include "engine/backend/data_worker.hh"
#include "engine/count_mode.hh"
#include "io_backends/common/connect_flows.hh"

namespace xttcp {

// What every sender connection holds; a backend's connection derives from it.
struct TcpSendConnection {
  UniqueFd fd;
  uint32_t slot = 0;           // FlowPlan::slot: its counter
  uint64_t left = UINT64_MAX;  // count mode: bytes still to send (a timed run never gets there)
  bool closed = false;
  ZeroCopyStats zerocopy;
  uint32_t watch_id = ConnectionWatch::not_watched;  // unwatched before fd closes
};

// The worker-wide zero-copy note: --zerocopy=auto gave up on zero-copy sends.
std::string zerocopy_fallback_note(const ZeroCopyStats& total);

// The parts of a sender that need no connection type (tcp_sender_base.cc).
class TcpSenderBook {
 protected:
  // Takes the adopted connections over at once (WorkerContext::adopted): whatever fails later,
  // they are this worker's to close.
  explicit TcpSenderBook(const WorkerContext& context) : context_(context) {
    for (NativeSocket socket : context.adopted) adopted_.emplace_back(socket);
  }

  void record_error(const std::string& what) {
    if (report_.errors++ == 0) report_.first_error = what;
  }
  // Every flow connected (connect_flows), in blocking mode when `blocking`; the caller keeps
  // them as connections.
  Expected<std::vector<UniqueFd>> connect_all(bool blocking);
  // layout.one_port: the connections the control plane made (WorkerContext::adopted), taken
  // over in flow order, in the mode asked.
  Expected<std::vector<UniqueFd>> adopt_all(bool blocking);
  // A send failed with `err`: the connection is closed; the peer going away is counted, any
  // other error reported.
  void connection_lost(TcpSendConnection& connection, int err);
  // Count mode: the connection sent its budget; shut its sending side down (the receiver sees
  // the end) and tell the engine.
  void budget_sent(TcpSendConnection& connection);
  // Zero-copy completions read for `connection`: its figures and the worker's total.
  void count_zerocopy(TcpSendConnection& connection, const ZeroCopyStats& fresh) {
    connection.zerocopy += fresh;
    zerocopy_total_ += fresh;
  }

  const WorkerContext& context_;
  std::vector<UniqueFd> adopted_;  // layout.one_port: until adopt_all() hands them on
  ZeroCopyStats zerocopy_total_;   // what --zerocopy=auto decides on
  WorkerReport report_;
};

template <class Connection>
class TcpSenderBase : protected TcpSenderBook {
 protected:
  using TcpSenderBook::TcpSenderBook;
  ~TcpSenderBase() {  // before the members close the sockets
    for (Connection& c : connections_) unwatch_connection(context_, c.watch_id);
  }

  // open(): connects every flow and keeps it as a connection, counted as open.
  Status open_connections(bool blocking) {
    auto sockets = connect_all(blocking);
    if (!sockets) return sockets.error();
    const uint64_t budget = flow_send_budget(*context_.spec);
    connections_.reserve(sockets->size());
    for (size_t i = 0; i < sockets->size(); ++i) {
      Connection& c = connections_.emplace_back();
      c.fd = std::move((*sockets)[i]);
      c.slot = context_.plan->flows[i].slot;
      c.watch_id = watch_connection(context_, c.fd.get(), c.slot);
      if (budget > 0) c.left = budget;
    }
    if (context_.open_connections)
      *context_.open_connections += static_cast<int64_t>(connections_.size());
    report_.connections = static_cast<uint32_t>(connections_.size());
    return ok();
  }
  // --zerocopy=auto: plain sends from now on; every connection's figures say so, and a note.
  void fall_back_from_zerocopy() {
    for (Connection& c : connections_) c.zerocopy.fell_back = true;
    zerocopy_total_.fell_back = true;
    report_.notes.push_back(zerocopy_fallback_note(zerocopy_total_));
  }
  // finish(): TCP_INFO, bytes and zero-copy figures of every connection.
  WorkerReport finish_report() {
    for (size_t i = 0; i < connections_.size(); ++i) {
      const Connection& c = connections_[i];
      ConnectionStats stats = sender_connection_stats(context_, i, c.fd.get());
      stats.bytes = read(context_.counters[c.slot]).bytes;
      stats.stream = c.slot;
      stats.zerocopy = c.zerocopy;
      report_.connection_stats.push_back(std::move(stats));
    }
    return report_;
  }

  std::vector<Connection> connections_;
};

}  // namespace xttcp
