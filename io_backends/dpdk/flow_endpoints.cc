#include "io_backends/dpdk/flow_endpoints.hh"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace xttcp::dpdk {

namespace {

constexpr uint16_t ephemeral_base = 49152;

uint32_t ipv4_of(const SocketAddress& address) {
  if (address.family() != AF_INET) return 0;
  return ntohl(reinterpret_cast<const sockaddr_in*>(address.get())->sin_addr.s_addr);
}

Status resolve_destination(const WorkerContext& context, Port& port, bool ipv6,
                           frame::UdpEndpoints& endpoints, std::vector<std::string>& notes) {
  const TestSpec& spec = *context.spec;
  if (!spec.dpdk.peer_mac.empty()) {
    auto mac = frame::parse_mac(spec.dpdk.peer_mac);
    if (!mac) return fail("--peer-mac: " + mac.error().message);
    endpoints.destination_mac = *mac;
    return ok();
  }
  if (port.has_receiver.load()) {  // --local: the receiver is this very port
    endpoints.destination_mac = port.mac;
    return ok();
  }
  auto mac = Runtime::instance().resolve(port, context.local, context.remote,
                                         std::max(spec.control.connect_timeout_s, 1u) * 1000);
  if (!mac) return mac.error();
  endpoints.destination_mac = *mac;
  if (context.plan->index == 0)
    notes.push_back(fmt::format("dpdk: {} is at {} ({})", context.remote.host(),
                                frame::to_string(*mac), ipv6 ? "neighbour discovery" : "ARP"));
  return ok();
}

}  // namespace

Expected<frame::UdpEndpoints> sending_endpoints(const WorkerContext& context, Port& port,
                                                std::vector<std::string>& notes) {
  const bool ipv6 = context.remote.family() == AF_INET6;
  frame::UdpEndpoints endpoints;
  endpoints.source_mac = port.mac;
  endpoints.ipv6 = ipv6;
  if (Status resolved = resolve_destination(context, port, ipv6, endpoints, notes); !resolved)
    return resolved.error();
  if (ipv6) {
    std::memcpy(endpoints.destination_ip6.data(),
                &reinterpret_cast<const sockaddr_in6*>(context.remote.get())->sin6_addr, 16);
    if (context.local.family() == AF_INET6)
      std::memcpy(endpoints.source_ip6.data(),
                  &reinterpret_cast<const sockaddr_in6*>(context.local.get())->sin6_addr, 16);
  } else {
    endpoints.destination_ip = ipv4_of(context.remote);
    endpoints.source_ip = ipv4_of(context.local);
  }
  if (context.spec->layout.source_address.empty()) {
    if (!ipv6)
      endpoints.source_ip = endpoints.destination_ip;
    else
      endpoints.source_ip6 = endpoints.destination_ip6;
    if (context.plan->index == 0)
      notes.push_back(
          "dpdk: no -a: frames carry the receiver's address as their source "
          "(a kernel receiver drops them: give -a)");
  }
  return endpoints;
}

uint16_t flow_source_port(const FlowPlan& plan) {
  return plan.source_port != 0 ? plan.source_port
                               : static_cast<uint16_t>(ephemeral_base + plan.slot % 16384);
}

}  // namespace xttcp::dpdk
