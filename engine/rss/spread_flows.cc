#include "engine/rss/spread_flows.hh"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "engine/net/socket_setup.hh"
#include "engine/rss/source_ports.hh"

namespace xttcp {

namespace {

std::array<std::uint8_t, 16> address_bytes(const SocketAddress& address) {
  std::array<std::uint8_t, 16> bytes{};
  if (address.family() == AF_INET)
    std::memcpy(bytes.data(), &reinterpret_cast<const sockaddr_in*>(address.get())->sin_addr, 4);
  else if (address.family() == AF_INET6)
    std::memcpy(bytes.data(), &reinterpret_cast<const sockaddr_in6*>(address.get())->sin6_addr, 16);
  return bytes;
}

// Why the ports stay as they are, or "" when they may be chosen.
std::string reason_not_to(const SpreadInputs& in, const Plan& plan) {
  const TestSpec& spec = in.spec;
  if (spec.layout.source_base_port != 0)
    return fmt::format("-f fixes the source ports (from {})", spec.layout.source_base_port);
  if (!spec.layout.source_addresses.empty())
    return "--source-addresses spreads the connections over several source addresses";
  if (spec.control.no_sync) return "no sync connection (-N): the receiver's RSS is unknown";
  if (!in.native_peer) return "the receiver is not xttcp (no native hello): its RSS is unknown";
  if (!in.peer_rss || !in.peer_rss->rss)
    return in.peer_rss ? in.peer_rss->why_none : "the receiver sent no hello";
  if (in.peer_rss->rss->hash_function != "toeplitz")
    return fmt::format("the receiver's NIC hashes with {}; only Toeplitz is predicted",
                       in.peer_rss->rss->hash_function);
  if (!in.local || in.local->family() != in.receiver.family())
    return "the control connection's local address is unknown";
  if (plan.flow_count == 0) return "no flows";
  return "";
}

}  // namespace

SourcePortSpread spread_source_ports(const SpreadInputs& in, Plan& plan) {
  SourcePortSpread out;
  const bool udp = in.spec.workload.protocol == Protocol::udp;
  const bool ipv6 = in.receiver.family() == AF_INET6;
  out.flow_type = std::string(udp ? "udp" : "tcp") + (ipv6 ? "6" : "4");
  out.why = reason_not_to(in, plan);
  if (!out.why.empty()) return out;
  const RssDescription& rss = *in.peer_rss->rss;
  out.nic = rss.nic;
  out.queues = rss.queues;

  std::string fields = "src-ip dst-ip src-port dst-port";
  bool fields_given = false;
  for (const auto& [type, words] : rss.hash_fields)
    if (type == out.flow_type) {
      fields = words;
      fields_given = true;
    }
  if (!hashes_ports(fields)) {
    out.why = fmt::format(
        "the receiver's NIC hashes {} on '{}': a source port does not move a "
        "flow",
        out.flow_type, fields);
    return out;
  }

  // Flows to the control peer only (NTttcp-for-Windows mappings may name other hosts).
  SourcePortRequest request;
  request.ipv6 = ipv6;
  request.sender = address_bytes(*in.local);
  request.receiver = address_bytes(in.receiver);
  std::vector<FlowPlan*> flows;
  for (WorkerPlan& worker : plan.workers)
    for (FlowPlan& flow : worker.flows)
      if (flow.host == 0) flows.push_back(&flow);
  std::sort(flows.begin(), flows.end(),
            [](const FlowPlan* a, const FlowPlan* b) { return a->slot < b->slot; });
  for (const FlowPlan* flow : flows) request.destination_ports.push_back(flow->port);
  const auto [first, last] = ephemeral_port_range();
  request.first_port = first;
  request.last_port = last;
  // A different start each run, so a repeated run does not meet its own ports in TIME_WAIT.
  request.start = static_cast<std::uint32_t>(
      std::chrono::steady_clock::now().time_since_epoch().count() & 0xffffffffu);

  SocketAddress source = in.bind_address;
  auto chosen = choose_source_ports(rss, request, [&](std::uint16_t port) {
    source.set_port(port);
    return source_port_free(source, udp);
  });
  if (!chosen) {
    out.why = "the kernel's source ports stay: " + chosen.error().message;
    return out;
  }
  out.spread = true;
  out.flows_per_queue = chosen->flows_per_queue;
  out.flow_queues = chosen->queues;
  out.flow_ports = chosen->ports;
  for (std::size_t i = 0; i < flows.size(); ++i) flows[i]->source_port = chosen->ports[i];
  out.why = fmt::format(
      "source ports chosen by the Toeplitz hash of {}'s key and {}-entry table ({} fields {}): "
      "{} flows over {} RX queues{}{}{}",
      rss.nic, rss.indirection.size(), out.flow_type,
      fields_given ? "as the receiver reported" : "assumed, the receiver reported none",
      flows.size(), rss.queues,
      rss.port_queues.empty() ? "" : ", each onto the queue its receiver worker's CPU takes",
      chosen->off_target > 0
          ? fmt::format("; {} flows off their queue (no free port reached it)", chosen->off_target)
          : "",
      chosen->ports_in_use > 0
          ? fmt::format("; {} ports in use were passed over", chosen->ports_in_use)
          : "");
  return out;
}

}  // namespace xttcp
