// The iperf2 dialect's UDP server at the kernel-socket receivers (epoll, io_uring;
// docs/iperf2.md): iperf 2 names no flow in its datagrams, so a flow is its source (address and
// port); a stream's FIN is answered with the report datagram iperf 2's client waits for.
#pragma once

#include <cstdint>

#include "engine/backend/data_worker.hh"
#include "engine/iperf2/udp_datagram.hh"
#include "engine/net/address.hh"
#include "io_backends/common/udp_accounting.hh"

namespace xttcp {

// The flow id of a source: its port, and 15 bits of its address above (never compat_flow or
// retired_flow).
uint32_t iperf2_flow_of(const SocketAddress& source);

// A report's figures as a Result holds them.
Iperf2UdpStream iperf2_stream_figures(const iperf2::ServerReport& report);

// After a datagram from `source` was accounted: if it was a FIN, sends the report back from
// `fd`; a stream's first FIN also records the stream (endpoints and its figures) in `report`.
// If it was a stream's first datagram, names the stream (its ends) in the context's flow
// registry, for the live -y C rows (once per stream).
void answer_iperf2_fin(UdpSocketAccounting& accounting, int fd, const SocketAddress& source,
                       const WorkerContext& context, uint32_t slot, WorkerReport& report);

}  // namespace xttcp
