#include "engine/iperf3/directions.hh"

namespace xttcp::iperf3 {

std::vector<StreamGroup> one_direction(bool sending, std::size_t streams) {
  return {{sending, 0, streams, "", "sum"}};
}

std::vector<StreamGroup> stream_groups(bool client, const Parameters& p) {
  const std::size_t streams = p.parallel;
  if (!p.bidirectional) return one_direction(client != p.reverse, streams);
  const char* end = client ? "C" : "S";
  auto group = [&](bool sending, std::size_t first) {
    return StreamGroup{sending, first, streams, std::string(sending ? "[TX-" : "[RX-") + end + "]",
                       // the data the server sends is the reverse channel, at both ends
                       client != sending ? "sum_bidir_reverse" : "sum"};
  };
  return {group(client, 0), group(!client, streams)};
}

}  // namespace xttcp::iperf3
