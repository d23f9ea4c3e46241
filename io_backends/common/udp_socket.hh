// UDP socket set-up shared by the kernel-socket backends (control path): connected sender
// sockets, bound receiver sockets, and the offloads (UDP_SEGMENT, UDP_GRO) probed per socket.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.hh"
#include "base/unique_fd.hh"
#include "engine/net/address.hh"
#include "engine/net/socket_setup.hh"

namespace xttcp {

// A non-blocking UDP socket connected to `remote` (bound to options.source first if set); with
// `connected` false (-uc) it stays unconnected and each send names `remote` (sendto).
Expected<UniqueFd> open_udp_sender(const SocketAddress& remote, const ConnectOptions& options,
                                   bool connected = true);
// Whether a UDP receiver wants the kernel's receive time of each datagram (SO_TIMESTAMPNS).
enum class UdpReceiveTimes { kernel, none };
// Whether a UDP receiver's port is its own, or shared by every worker's socket (--one-port:
// SO_REUSEPORT, the kernel spreading the flows over them by their addresses and ports).
enum class UdpPort { own, shared };
// A non-blocking UDP socket bound to `local` (SO_REUSEADDR), or "port N: <reason>".
Expected<UniqueFd> open_udp_receiver(const SocketAddress& local,
                                     UdpReceiveTimes times = UdpReceiveTimes::kernel,
                                     UdpPort port = UdpPort::own);

// UDP_SEGMENT (Linux 4.18): each send of up to 64 x segment bytes leaves as datagrams of
// `segment` bytes. False when the kernel refuses it.
bool enable_udp_gso(int fd, uint32_t segment);
// UDP_GRO (Linux 5.0): datagrams of one flow may arrive coalesced, with their size in a cmsg.
bool enable_udp_gro(int fd);
bool disable_udp_gro(int fd);
// Asks for a larger socket buffer (SO_*BUFFORCE as root, else up to the sysctl maximum); the
// default ~200 KiB drops datagrams at Mpps rates long before the CPU is busy.
void enlarge_buffer(int fd, bool receive, int bytes);

// The path MTU of a connected UDP socket (IP_MTU / IPV6_MTU), 0 if unknown.
uint32_t path_mtu(int fd, bool ipv6);

// Sets up GSO on a connected sender socket when it pays: `wanted` (--udp-gso), more than one
// datagram per send, a datagram that fits the path MTU (a GSO segment must; a plain datagram
// would leave as IP fragments), and a kernel that takes UDP_SEGMENT. Returns the datagrams per
// send (0 = no GSO); `note` says why not when it matters.
uint32_t choose_gso(int fd, const SocketAddress& remote, uint32_t datagram, bool wanted,
                    std::string& note);

// Datagrams per GSO send of `segment`-byte datagrams: the kernel takes at most 64 segments and
// 64 KiB per send; 1 means GSO gains nothing.
uint32_t gso_segments_for(uint32_t segment);

}  // namespace xttcp
