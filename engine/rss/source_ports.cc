#include "engine/rss/source_ports.hh"

#include <fmt/format.h>

#include <algorithm>
#include <bitset>
#include <memory>

#include "topology/nic/rss_hash.hh"

namespace xttcp {

namespace {

// Toeplitz is linear in its input (XOR), so a flow's hash is the hash with source port 0 XOR
// the source port's own share: the share is computed once per candidate port, not per flow.
std::uint32_t port_share(const RssDescription& rss, bool ipv6, std::uint16_t port) {
  FlowTuple tuple;
  tuple.ipv6 = ipv6;
  tuple.source_port = port;
  return rss_hash(rss.key, tuple, true);
}

}  // namespace

Expected<SourcePortChoice> choose_source_ports(
    const RssDescription& rss, const SourcePortRequest& request,
    const std::function<bool(std::uint16_t)>& port_free) {
  if (request.first_port == 0 || request.last_port < request.first_port)
    return fail(
        fmt::format("source ports {}..{}: not a range", request.first_port, request.last_port));
  const std::uint32_t range = std::uint32_t{request.last_port} - request.first_port + 1;
  const std::size_t flows = request.destination_ports.size();
  if (flows > range)
    return fail(fmt::format("{} flows need more source ports than {}..{} holds", flows,
                            request.first_port, request.last_port));

  std::vector<std::uint32_t> share(range);
  for (std::uint32_t i = 0; i < range; ++i)
    share[i] = port_share(rss, request.ipv6, static_cast<std::uint16_t>(request.first_port + i));
  std::vector<bool> reachable(rss.queues, false);
  for (std::uint32_t queue : rss.indirection) reachable[queue] = true;

  SourcePortChoice choice;
  choice.flows_per_queue.assign(rss.queues, 0);
  auto taken = std::make_unique<std::bitset<65536>>();
  std::uint32_t cursor = request.start % range;
  for (std::uint16_t destination : request.destination_ports) {
    FlowTuple tuple;
    tuple.ipv6 = request.ipv6;
    tuple.source = request.sender;
    tuple.destination = request.receiver;
    tuple.destination_port = destination;
    const std::uint32_t base = rss_hash(rss.key, tuple, true);

    std::int64_t wanted = -1;
    for (const auto& [port, queue] : rss.port_queues)
      if (port == destination && reachable[queue]) wanted = queue;
    if (wanted < 0)
      for (std::uint32_t queue = 0; queue < rss.queues; ++queue)
        if (reachable[queue] &&
            (wanted < 0 || choice.flows_per_queue[queue] < choice.flows_per_queue[wanted]))
          wanted = queue;

    std::int64_t fallback = -1;  // the first free port of the scan, whatever its queue
    std::int64_t found = -1;
    for (std::uint32_t step = 0; step < range && found < 0; ++step) {
      const std::uint32_t index = (cursor + step) % range;
      const auto port = static_cast<std::uint16_t>(request.first_port + index);
      if ((*taken)[port]) continue;
      const bool on_target =
          rss_queue(base ^ share[index], rss.indirection) == static_cast<int>(wanted);
      if (!on_target && fallback >= 0) continue;
      if (!port_free(port)) {
        if (on_target) ++choice.ports_in_use;
        (*taken)[port] = true;  // not offered again to a later flow
        continue;
      }
      if (on_target)
        found = index;
      else
        fallback = index;
    }
    if (found < 0) {
      // No free port is left on that queue: later flows need not scan for it again.
      if (wanted >= 0) reachable[static_cast<std::size_t>(wanted)] = false;
      if (fallback < 0)
        return fail(fmt::format("no free source port in {}..{} for flow {}", request.first_port,
                                request.last_port, choice.ports.size()));
      found = fallback;
      ++choice.off_target;
    }
    const auto port = static_cast<std::uint16_t>(request.first_port + found);
    (*taken)[port] = true;
    const auto queue = static_cast<std::uint32_t>(rss_queue(base ^ share[found], rss.indirection));
    choice.ports.push_back(port);
    choice.queues.push_back(queue);
    ++choice.flows_per_queue[queue];
    cursor = static_cast<std::uint32_t>(found + 1) % range;
  }
  return choice;
}

}  // namespace xttcp
