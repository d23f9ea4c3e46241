// A receiver's native hello, as the sender reads it: its "rss" object (read_peer_rss, bounded
// and checked as hostile input), then the source ports chosen by it (choose_source_ports).
// Input: the frame's JSON, verbatim.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/rss/rss_json.hh"
#include "engine/rss/source_ports.hh"
#include "tests/fuzz/fuzz_check.hh"
#include "topology/nic/rss_hash.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string hello(reinterpret_cast<const char*>(data), size);
  auto peer = xttcp::read_peer_rss(hello);
  if (!peer) {
    FUZZ_CHECK(peer.error().message.find('\n') == std::string::npos);  // one line
    return 0;
  }
  if (!peer->rss) {
    FUZZ_CHECK(!peer->why_none.empty());
    return 0;
  }
  const xttcp::RssDescription& rss = *peer->rss;
  FUZZ_CHECK(xttcp::check_rss_description(rss));
  FUZZ_CHECK(rss.key.size() <= xttcp::rss_limits::max_key_bytes);
  FUZZ_CHECK(rss.indirection.size() <= xttcp::rss_limits::max_table);
  // What we would send back reads the same.
  auto again = xttcp::rss_from_json(xttcp::rss_to_json(rss));
  FUZZ_CHECK(again && again->key == rss.key && again->indirection == rss.indirection &&
             again->port_queues == rss.port_queues);

  // Eight flows over a small range: every chosen port is distinct, in range, and hashes to the
  // queue the choice says; the per-queue counts add up.
  xttcp::SourcePortRequest request;
  request.sender = {10, 0, 0, 2};
  request.receiver = {10, 0, 0, 1};
  for (uint16_t i = 0; i < 8; ++i) request.destination_ports.push_back(5001 + i % 3);
  request.first_port = 40000;
  request.last_port = 40255;
  request.start = static_cast<uint32_t>(size);
  auto choice =
      xttcp::choose_source_ports(rss, request, [](uint16_t port) { return port % 7 != 0; });
  FUZZ_CHECK(choice);
  uint32_t total = 0;
  for (uint32_t count : choice->flows_per_queue) total += count;
  FUZZ_CHECK(total == 8 && choice->ports.size() == 8);
  for (size_t i = 0; i < choice->ports.size(); ++i) {
    const uint16_t port = choice->ports[i];
    FUZZ_CHECK(port >= 40000 && port <= 40255 && port % 7 != 0);
    for (size_t j = 0; j < i; ++j) FUZZ_CHECK(choice->ports[j] != port);
    xttcp::FlowTuple tuple;
    tuple.source = request.sender;
    tuple.destination = request.receiver;
    tuple.source_port = port;
    tuple.destination_port = request.destination_ports[i];
    FUZZ_CHECK(xttcp::rss_queue(xttcp::rss_hash(rss.key, tuple, true), rss.indirection) ==
               static_cast<int>(choice->queues[i]));
  }
  return 0;
}
