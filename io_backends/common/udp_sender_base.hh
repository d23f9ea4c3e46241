// The skeleton the Linux kernel-socket UDP senders (epoll, io_uring) share around their loops:
// the flows they open (one socket each, GSO decided once), the payload mode, count mode's
// budget, what a send that the kernel took counts, and the report. A backend derives from it
// (privately) and keeps its own calls: sendmmsg/sendmsg, or linked ring sends. Nothing here is
// virtual; count_sent() is inlined into the backends' loops.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/data_worker.hh"
#include "engine/net/socket_io.hh"
#include "engine/udp/flow_registry.hh"
#include "io_backends/common/iperf2_udp_client.hh"
#include "io_backends/common/udp_flows.hh"

namespace xttcp {

// The parts that need no flow type (udp_sender_base.cc).
class UdpSenderBook {
 protected:
  // Takes the adopted sockets over at once (WorkerContext::adopted): whatever fails later,
  // they are closed.
  explicit UdpSenderBook(const WorkerContext& context) : context_(context) {
    for (NativeSocket socket : context.adopted) adopted_.emplace_back(socket);
  }

  void record_error(const std::string& what) {
    if (report_.errors++ == 0) report_.first_error = what;
  }
  // Opens one socket per flow (blocking when `blocking`: io_uring polls by itself) and decides
  // the datagram size, payload mode, GSO and count mode's budget.
  Expected<std::vector<UdpSenderFlow>> open_sockets(bool blocking);
  // The notes every sender leaves: GSO (with `gso_detail` appended) and refused sends.
  void add_notes(const std::string& gso_detail);
  // Stamps `count` datagrams at `data` of one flow (its id and token) with their heads,
  // numbered from `first`, sent at `now_ns` (once per send: they leave back to back).
  void stamp(unsigned char* data, uint32_t count, uint32_t flow_id, uint16_t token, uint64_t first,
             uint64_t now_ns) const;
  bool native() const { return head_ == udp::DatagramLayout::native; }
  // The heads carry a send time (xttcp's, iperf3's): stamp() wants the clock read.
  bool stamps_time() const { return head_ && *head_ != udp::DatagramLayout::iperf2; }

  const WorkerContext& context_;
  uint32_t datagram_ = 0;  // bytes per datagram
  // What heads every datagram: xttcp's header, iperf 2's head and client header, iperf3's
  // head (udp_flows.hh: datagram_layout()); nullopt: NTTTCP's 'B's alone (compat, or a datagram
  // too short for xttcp's header).
  std::optional<udp::DatagramLayout> head_;
  uint32_t gso_segments_ = 0;  // > 0: GSO sends of that many datagrams
  uint64_t budget_ = 0;        // count mode: datagrams per flow (N); 0 = timed
  uint32_t ending_ = 0;        // count mode: flows sending their end markers
  uint64_t refused_ = 0;       // sends answered by ICMP port unreachable
  WorkerReport report_;

 private:
  std::vector<UniqueFd> adopted_;  // layout.one_port: until open_sockets() takes them
};

template <class Flow>
class UdpSenderBase : protected UdpSenderBook {
 protected:
  using UdpSenderBook::UdpSenderBook;

  // open(): the flows, with count mode's budget.
  Status open_flows(bool blocking) {
    auto sockets = open_sockets(blocking);
    if (!sockets) return sockets.error();
    for (UdpSenderFlow& opened : *sockets) {
      Flow& flow = flows_.emplace_back();
      static_cast<UdpSenderFlow&>(flow) = std::move(opened);
      if (budget_ > 0) flow.left = budget_;
    }
    report_.connections = static_cast<uint32_t>(flows_.size());
    return ok();
  }
  // The kernel took `datagrams` of `flow`'s: the engine's counter, the flow's datagram counters
  // and count mode's budget. Returns the bytes.
  uint64_t count_sent(Flow& flow, uint64_t datagrams) {
    const uint64_t bytes = datagrams * datagram_;
    context_.counters[flow.slot].add(bytes);
    add(flow.counters->datagrams, datagrams);
    add(flow.counters->bytes, bytes);
    flow.left -= datagrams;
    return bytes;
  }
  // finish(): the notes and every flow's bytes.
  WorkerReport finish_report(const std::string& gso_detail) {
    add_notes(gso_detail);
    for (const Flow& flow : flows_) {
      ConnectionStats stats;
      stats.bytes = read(context_.counters[flow.slot]).bytes;
      stats.stream = flow.slot;
      // Its 4-tuple, as for TCP: the source port is what RSS-spread chose (engine/rss/).
      if (auto local = local_address_of(flow.fd.get())) stats.local = local->to_string();
      stats.remote = flow.remote.to_string();
      report_.connection_stats.push_back(std::move(stats));
    }
    if (head_ == udp::DatagramLayout::iperf2) {  // the test is over: each stream's FIN and
                                                 // the server's report back
      std::vector<Iperf2UdpStreamEnd> ends;
      for (std::size_t i = 0; i < flows_.size(); ++i)
        ends.push_back({flows_[i].fd.get(),
                        flows_[i].counters->datagrams.load(std::memory_order_relaxed),
                        &report_.connection_stats[i]});
      end_iperf2_udp_streams(*context_.spec, datagram_, ends, report_.notes);
    }
    return report_;
  }

  std::vector<Flow> flows_;

 private:
  // Only this worker's thread writes the flow's counters; the engine reads them.
  static void add(std::atomic<uint64_t>& counter, uint64_t n) {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
};

}  // namespace xttcp
