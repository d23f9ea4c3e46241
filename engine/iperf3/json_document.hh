// iperf3 3.12's -J document (tests/reference/iperf3-3.12/README.md 7; client-tcp*.json,
// client-udp*.json, server-tcp.json, server-udp.json): `start`, `intervals`, `end`, and `error`
// when the test failed, with 3.12's keys in 3.12's nesting and order, so whatever reads iperf3's -J
// reads xttcp's. Built as the test runs: start once the streams connected, each interval as it ends
// (an IntervalSink), the end from both ends' results. Pure, but for system_info().
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/iperf3/directions.hh"
#include "engine/iperf3/paired_intervals.hh"
#include "engine/iperf3/parameters.hh"
#include "engine/iperf3/results.hh"

namespace xttcp::iperf3 {

// One stream's connection, as `start.connected[]` lists it.
struct ConnectedStream {
  int socket = 0;  // the number 3.12 prints (its socket)
  std::string local_host;
  uint16_t local_port = 0;
  std::string remote_host;
  uint16_t remote_port = 0;
};

struct DocumentStart {
  std::vector<ConnectedStream> connected;
  std::string system_info;  // uname -a, as 3.12 writes it
  std::chrono::system_clock::time_point time;
  bool client = true;     // `connecting_to` (client) or `accepted_connection` (server)
  std::string peer_host;  // the server (client) or the client's control connection (server)
  uint16_t peer_port = 0;
  std::string cookie;
  uint32_t tcp_mss_default = 0;  // the control connection's MSS (a server writes 0, as 3.12)
  int64_t sndbuf_actual = 0, rcvbuf_actual = 0;  // a stream's socket buffers
  Parameters test;                               // `test_start`
};

// This end's results and the peer's, for `end` (who sent: the groups'). UDP: the sender's
// StreamTotals give bytes and packets (sent), the receiver's jitter_s, errors (lost) and packets
// (highest sequence number); a stream the peer did not report counts 0 there, as on 3.12's server,
// which writes its document before the client's results come.
struct DocumentEnd {
  double seconds = 0;    // this end's measured window
  Results ours, theirs;  // theirs: as the peer's results message said
  // UDP: a receiving end's datagrams seen out of order, by stream (the results message has no
  // such key, so a sender's are 0); missing: 0.
  std::vector<int64_t> out_of_order = {};
};

// This host's `uname -a`, as 3.12 writes it in start.system_info.
std::string system_info();

class JsonDocument final : public GroupIntervals {
 public:
  // `groups`: this end's directions (stream_groups(); a sending group's interval entries carry
  // TCP_INFO).
  explicit JsonDocument(std::vector<StreamGroup> groups = {}) : groups_(std::move(groups)) {}
  // A server learns its directions from the parameters, after its document began.
  void set_groups(std::vector<StreamGroup> groups) { groups_ = std::move(groups); }

  // Each stream's number (its socket), in stream order, once the streams connected.
  void set_sockets(std::vector<int> sockets) {
    sockets_ = std::move(sockets);
    peaks_.assign(sockets_.size(), Peaks{});
  }

  void set_start(const DocumentStart& start) { start_ = start; }
  void intervals(const std::vector<IntervalSample>& by_group, bool udp) override;
  void set_end(const DocumentEnd& end) { end_ = end; }
  void set_error(const std::string& message) { error_ = message; }
  // --get-server-output: what the server's results carried, at the document's top level.
  void set_server_output(const Results& server) {
    server_output_json_ = server.server_output_json;
    server_output_text_ = server.server_output_text;
  }

  // The whole document, as 3.12 prints it at the end of a test (tab-indented).
  std::string text() const;

 private:
  // What 3.12 keeps of a sending stream's TCP_INFO over the test, for `end.streams[].sender`.
  struct Peaks {
    uint64_t max_snd_cwnd = 0, max_snd_wnd = 0;
    uint32_t max_rtt = 0, min_rtt = 0;
    uint64_t rtt_sum = 0, rtt_count = 0;
  };
  using Json = nlohmann::ordered_json;
  // A group's entries in `streams`, and its sum.
  Json interval_entries(const StreamGroup& group, const IntervalSample& sample, bool udp,
                        Json& streams);
  void tcp_end(const DocumentEnd& e, Json& end) const;
  void udp_end(const DocumentEnd& e, Json& end) const;
  int socket_of(std::size_t index) const {
    return index < sockets_.size() ? sockets_[index] : stream_id(index);
  }

  std::vector<StreamGroup> groups_;
  std::vector<int> sockets_;
  std::vector<Peaks> peaks_;  // by stream
  std::optional<DocumentStart> start_;
  nlohmann::ordered_json intervals_ = nlohmann::ordered_json::array();
  std::optional<DocumentEnd> end_;
  std::optional<std::string> error_;
  std::optional<std::string> server_output_json_, server_output_text_;
};

}  // namespace xttcp::iperf3
