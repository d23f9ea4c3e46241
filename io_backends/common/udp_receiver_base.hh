// The skeleton the Linux kernel-socket UDP receivers (epoll, io_uring) share around their loops:
// the sockets (one per port of the worker, GRO decided once), the first datagram that starts
// -N's clock, --skip-rx-copy's rule for giving GRO up, and the report. A backend derives from it
// (privately) and keeps its own calls: recvmmsg, or multishot ring receives. Nothing here is
// virtual; what runs per buffer is inline.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "engine/backend/data_worker.hh"
#include "io_backends/common/iperf2_udp_server.hh"
#include "io_backends/common/udp_flows.hh"

namespace xttcp {

class UdpReceiverBase {
 protected:
  using Socket = UdpReceiverSocket;

  // Takes the adopted sockets over at once (WorkerContext::adopted): whatever fails later,
  // they are closed.
  explicit UdpReceiverBase(const WorkerContext& context) : context_(context) {
    for (NativeSocket socket : context.adopted) adopted_.emplace_back(socket);
  }

  void record_error(const std::string& what) {
    if (report_.errors++ == 0) report_.first_error = what;
  }
  // open(): one socket per port (blocking when `blocking`: io_uring polls by itself), GRO, and
  // with --skip-rx-copy and no GRO, header-only reads.
  Status open_sockets(bool blocking);
  // A datagram arrived on `socket`: the first one starts -N's clock.
  // The iperf2 layout starts each flow instead (udp::DatagramAccounting's on_flow_start).
  void on_data(Socket& socket) {
    if (socket.seen_data) return;
    socket.seen_data = true;
    if (!iperf2_ && context_.on_accept) context_.on_accept();
  }
  // --skip-rx-copy: GRO only pays when it coalesces. Large datagrams it leaves alone would be
  // copied whole for nothing: after a run of them, the socket drops GRO and reads headers only.
  // True when `socket` has just switched (its receive must be re-armed for headers). -uro asked
  // for coalescing: GRO stays on.
  bool gives_up_gro(Socket& socket, std::size_t length, std::size_t segment) {
    if (!watch_coalescing_ || socket.header_only) return false;
    return note_coalescing(socket, length, segment);
  }
  // The iperf2 dialect, once per turn of the loop: streams silent too long end.
  void sweep_iperf2_streams() {
    if (iperf2_server_) iperf2_server_->sweep(sockets_, report_);
  }
  // finish(): the flows seen on every socket.
  WorkerReport finish_report();

  const WorkerContext& context_;
  std::vector<Socket> sockets_;
  bool gro_ = false;
  bool skip_copy_ = false;  // --skip-rx-copy
  bool iperf2_ = false;     // the iperf2 dialect: every source read, every FIN answered
  std::optional<Iperf2UdpServer> iperf2_server_;  // with iperf2_
  bool filter_ = false;                           // --allow: every datagram's source checked
  WorkerReport report_;

 private:
  bool note_coalescing(Socket& socket, std::size_t length, std::size_t segment);

  bool watch_coalescing_ = false;  // --skip-rx-copy with GRO, without -uro
  std::vector<UniqueFd> adopted_;  // layout.one_port: until open_sockets() takes them
  bool switched_note_ = false;
};

}  // namespace xttcp
