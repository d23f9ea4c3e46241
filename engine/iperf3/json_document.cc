#include "engine/iperf3/json_document.hh"

#include <algorithm>
#include <ctime>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/stats/system_probe.hh"

namespace xttcp::iperf3 {

namespace {

using Json = nlohmann::ordered_json;

double rate(uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) * 8 / seconds : 0;
}

double percent(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0;
}

Json test_start(const Parameters& p, uint32_t control_mss) {
  // Without -l: 128 KiB for TCP; for UDP the control connection's MSS, else 1460 (README 1).
  const uint32_t udp_default = control_mss > 0 ? control_mss : 1460;
  Json t;
  t["protocol"] = p.protocol == Protocol::udp ? "UDP" : "TCP";
  t["num_streams"] = p.parallel;
  t["blksize"] = p.length > 0 ? p.length : p.protocol == Protocol::udp ? udp_default : 131072;
  t["omit"] = p.omit_s;
  t["duration"] = p.time_s;
  t["bytes"] = p.bytes;
  t["blocks"] = p.blocks;
  t["reverse"] = p.reverse ? 1 : 0;
  t["tos"] = p.tos;
  t["target_bitrate"] = p.rate_bps;
  return t;
}

Json start_object(const DocumentStart& s) {
  Json connected = Json::array();
  for (const ConnectedStream& c : s.connected)
    connected.push_back({{"socket", c.socket},
                         {"local_host", c.local_host},
                         {"local_port", c.local_port},
                         {"remote_host", c.remote_host},
                         {"remote_port", c.remote_port}});
  const std::time_t seconds = std::chrono::system_clock::to_time_t(s.time);
  const Json timestamp = {
      {"time", fmt::format("{:%a, %d %b %Y %H:%M:%S} GMT", fmt::gmtime(seconds))},
      {"timesecs", static_cast<int64_t>(seconds)}};
  const Json peer = {{"host", s.peer_host}, {"port", s.peer_port}};
  const bool udp = s.test.protocol == Protocol::udp;
  Json start;
  start["connected"] = connected;
  start["version"] = "iperf 3.12";
  start["system_info"] = s.system_info;
  // 3.12's UDP server writes target_bitrate here and again after the cookie, the same value. An
  // object holds a key once: it stays here, and the second write below changes nothing.
  if (!s.client && udp) start["target_bitrate"] = s.test.rate_bps;
  // 3.12's ends write the same keys in other orders: a TCP server its listener's buffers first.
  auto buffers = [&] {
    start["sock_bufsize"] = s.test.window;
    start["sndbuf_actual"] = s.sndbuf_actual;
    start["rcvbuf_actual"] = s.rcvbuf_actual;
  };
  if (!s.client && !udp) buffers();
  start["timestamp"] = timestamp;
  start[s.client ? "connecting_to" : "accepted_connection"] = peer;
  start["cookie"] = s.cookie;
  // -M: the segment size asked (3.12 writes it instead of the control connection's).
  if (!udp && s.test.mss > 0)
    start["tcp_mss"] = s.test.mss;
  else if (!udp)
    start["tcp_mss_default"] = s.tcp_mss_default;
  start["target_bitrate"] = s.test.rate_bps;
  if (s.client || udp) buffers();
  start["test_start"] = test_start(s.test, s.tcp_mss_default);
  return start;
}

Json cpu_object(const DocumentEnd& e) {
  return {{"host_total", e.ours.cpu_total},   {"host_user", e.ours.cpu_user},
          {"host_system", e.ours.cpu_system}, {"remote_total", e.theirs.cpu_total},
          {"remote_user", e.theirs.cpu_user}, {"remote_system", e.theirs.cpu_system}};
}

// A group's end sum of `part` ("_sent", "_received", or "" for UDP's mixed sum): "sum_sent",
// or with --bidir's reverse channel "sum_sent_bidir_reverse".
std::string sum_key(const StreamGroup& group, const std::string& part) {
  return "sum" + part + group.sum_name.substr(3);
}

StreamTotals find_stream(const Results& r, int32_t id) {
  for (const StreamTotals& s : r.streams)
    if (s.id == id) return s;
  StreamTotals none;
  none.bytes = 0;
  return none;
}

}  // namespace

std::string system_info() {
  std::string os = read_host_info().os;
  if (os.ends_with(" GNU/Linux")) os.resize(os.size() - 10);  // 3.12 writes uname's first five
  return os;
}

void JsonDocument::intervals(const std::vector<IntervalSample>& by_group, bool udp) {
  if (by_group.size() != groups_.size()) return;
  Json element;
  Json streams = Json::array();
  std::vector<std::pair<std::string, Json>> sums;
  for (std::size_t g = 0; g < groups_.size(); ++g)
    sums.emplace_back(groups_[g].sum_name, interval_entries(groups_[g], by_group[g], udp, streams));
  element["streams"] = std::move(streams);
  for (auto& [name, sum] : sums) element[name] = std::move(sum);
  intervals_.push_back(std::move(element));
}

nlohmann::ordered_json JsonDocument::interval_entries(const StreamGroup& group,
                                                      const IntervalSample& sample, bool udp,
                                                      Json& streams) {
  const bool sending = group.sending;
  const double start = sample.start_s, end = sample.start_s + sample.seconds;
  int64_t retransmits = 0;
  // UDP: a sender's datagrams; a receiver's lost of its sequence span (lost + received, as 3.12's
  // change in the highest sequence number) and jitter, whose sum is the streams' mean.
  int64_t lost = 0, packets = 0;
  double jitter_ms = 0;
  auto udp_figures = [&](Json& entry, int64_t lost_packets, int64_t count, double jitter) {
    if (!sending) {
      entry["jitter_ms"] = jitter;
      entry["lost_packets"] = lost_packets;
    }
    entry["packets"] = count;
    if (!sending) entry["lost_percent"] = percent(lost_packets, count);
  };
  // 3.12 keeps TCP_INFO peaks of every stream it reads it on: a sender's, and with --bidir all;
  // the end's peaks are the measured time's, not the omit period's.
  const bool peaks = (sending || !group.role.empty()) && !sample.omitted;
  for (const StreamInterval& s : sample.per_stream) {
    const std::size_t index = group.first + s.key;
    Json entry;
    entry["socket"] = socket_of(index);
    entry["start"] = start;
    entry["end"] = end;
    entry["seconds"] = sample.seconds;
    entry["bytes"] = s.bytes;
    entry["bits_per_second"] = rate(s.bytes, sample.seconds);
    if (udp) {
      const auto lost_here = static_cast<int64_t>(sending ? 0 : s.lost);
      const auto count = static_cast<int64_t>(sending ? s.datagrams : s.lost + s.datagrams);
      udp_figures(entry, lost_here, count, static_cast<double>(s.jitter_ns) / 1e6);
      lost += lost_here;
      packets += count;
      jitter_ms += static_cast<double>(s.jitter_ns) / 1e6;
    } else {
      const ConnectionInterval tcp = s.tcp.value_or(ConnectionInterval{});
      const uint64_t cwnd = uint64_t{tcp.snd_cwnd} * tcp.snd_mss;
      if (sending) {
        entry["retransmits"] = tcp.retransmits;
        entry["snd_cwnd"] = cwnd;
        entry["snd_wnd"] = tcp.snd_wnd;
        entry["rtt"] = tcp.rtt_us;
        entry["rttvar"] = tcp.rttvar_us;
        entry["pmtu"] = tcp.pmtu;
        retransmits += tcp.retransmits;
      }
      if (peaks && s.tcp && index < peaks_.size()) {
        Peaks& p = peaks_[index];
        p.max_snd_cwnd = std::max(p.max_snd_cwnd, cwnd);
        p.max_snd_wnd = std::max<uint64_t>(p.max_snd_wnd, tcp.snd_wnd);
        p.max_rtt = std::max(p.max_rtt, tcp.rtt_us);
        p.min_rtt = p.rtt_count == 0 ? tcp.rtt_us : std::min(p.min_rtt, tcp.rtt_us);
        p.rtt_sum += tcp.rtt_us;
        ++p.rtt_count;
      }
    }
    entry["omitted"] = sample.omitted;  // an interval of the omit period (-O)
    entry["sender"] = sending;
    streams.push_back(std::move(entry));
  }
  Json sum;
  sum["start"] = start;
  sum["end"] = end;
  sum["seconds"] = sample.seconds;
  sum["bytes"] = sample.bytes;
  sum["bits_per_second"] = rate(sample.bytes, sample.seconds);
  if (udp)
    udp_figures(sum, lost, packets, group.count ? jitter_ms / static_cast<double>(group.count) : 0);
  else if (sending)
    sum["retransmits"] = retransmits;
  sum["omitted"] = sample.omitted;
  sum["sender"] = sending;
  return sum;
}

void JsonDocument::tcp_end(const DocumentEnd& e, Json& end) const {
  Json streams = Json::array();
  std::vector<std::pair<std::string, Json>> sums;
  std::optional<std::string> sender_congestion, receiver_congestion;
  // --bidir: 3.12 times every entry by the test's first stream (its sender's time and its
  // receiver's), in both directions.
  std::optional<std::pair<double, double>> first_times;
  if (groups_.size() > 1 && groups_.front().count > 0) {
    const StreamGroup& first = groups_.front();
    const StreamTotals sent = find_stream(first.sending ? e.ours : e.theirs, stream_id(0));
    const StreamTotals received = find_stream(first.sending ? e.theirs : e.ours, stream_id(0));
    first_times.emplace(sent.end_time.value_or(e.seconds), received.end_time.value_or(e.seconds));
  }
  for (const StreamGroup& group : groups_) {
    const Results& sender = group.sending ? e.ours : e.theirs;
    const Results& receiver = group.sending ? e.theirs : e.ours;
    // As 3.12: the last direction's (--bidir's reverse channel's) where it knows them.
    if (sender.congestion_used) sender_congestion = sender.congestion_used;
    if (receiver.congestion_used) receiver_congestion = receiver.congestion_used;
    const bool retransmits = sender.sender_has_retransmits == 1;
    const bool peaks = group.sending || !group.role.empty();
    uint64_t sent_bytes = 0, received_bytes = 0;
    int64_t sent_retransmits = 0;
    double sent_s = 0, received_s = 0;
    for (std::size_t i = group.first; i < group.first + group.count; ++i) {
      const int32_t id = stream_id(i);
      const StreamTotals sent = find_stream(sender, id), received = find_stream(receiver, id);
      const int socket = socket_of(i);
      // 3.12: each entry's end is its own end's time; a receiver entry's seconds is this end's.
      const double sent_time = first_times ? first_times->first : sent.end_time.value_or(e.seconds);
      const double received_time =
          first_times ? first_times->second : received.end_time.value_or(e.seconds);
      Json s;
      s["socket"] = socket;
      s["start"] = 0;
      s["end"] = sent_time;
      s["seconds"] = sent_time;
      s["bytes"] = sent.bytes;
      s["bits_per_second"] = rate(sent.bytes, sent_time);
      if (retransmits) {
        const Peaks p = peaks && i < peaks_.size() ? peaks_[i] : Peaks{};
        s["retransmits"] = std::max<int64_t>(0, sent.retransmits);
        s["max_snd_cwnd"] = p.max_snd_cwnd;
        s["max_snd_wnd"] = p.max_snd_wnd;
        s["max_rtt"] = p.max_rtt;
        s["min_rtt"] = p.min_rtt;
        s["mean_rtt"] = p.rtt_count ? p.rtt_sum / p.rtt_count : 0;
      }
      s["sender"] = group.sending;
      Json r;
      r["socket"] = socket;
      r["start"] = 0;
      r["end"] = received_time;
      r["seconds"] = e.seconds;
      r["bytes"] = received.bytes;
      r["bits_per_second"] = rate(received.bytes, received_time);
      r["sender"] = group.sending;
      streams.push_back(Json{{"sender", s}, {"receiver", r}});
      sent_bytes += sent.bytes;
      received_bytes += received.bytes;
      sent_retransmits += std::max<int64_t>(0, sent.retransmits);
      sent_s = sent_time;  // as 3.12's sums: the last stream's times
      received_s = received_time;
    }
    Json sum_sent;
    sum_sent["start"] = 0;
    sum_sent["end"] = sent_s;
    sum_sent["seconds"] = sent_s;
    sum_sent["bytes"] = sent_bytes;
    sum_sent["bits_per_second"] = rate(sent_bytes, sent_s);
    if (retransmits) sum_sent["retransmits"] = sent_retransmits;
    sum_sent["sender"] = group.sending;
    sums.emplace_back(sum_key(group, "_sent"), std::move(sum_sent));
    sums.emplace_back(sum_key(group, "_received"),
                      Json{{"start", 0},
                           {"end", received_s},
                           {"seconds", received_s},
                           {"bytes", received_bytes},
                           {"bits_per_second", rate(received_bytes, received_s)},
                           {"sender", group.sending}});
  }
  end["streams"] = std::move(streams);
  for (auto& [name, sum] : sums) end[name] = std::move(sum);
  end["cpu_utilization_percent"] = cpu_object(e);
  if (sender_congestion) end["sender_tcp_congestion"] = *sender_congestion;
  if (receiver_congestion) end["receiver_tcp_congestion"] = *receiver_congestion;
}

// 3.12's UDP `end` (iperf_print_results): one `udp` object per stream mixing both ends (bytes
// and time the sender's, jitter and lost the receiver's), and each group's sums.
void JsonDocument::udp_end(const DocumentEnd& e, Json& end) const {
  // Every entry takes the test's first stream's times: this end's, and the peer's where it
  // said them.
  double local_s = e.seconds, peer_s = e.seconds;
  if (!e.ours.streams.empty()) {
    local_s = e.ours.streams.front().end_time.value_or(e.seconds);
    const StreamTotals peer = find_stream(e.theirs, e.ours.streams.front().id);
    peer_s = peer.end_time.value_or(0) > 0 ? *peer.end_time : local_s;
  }
  Json streams = Json::array();
  std::vector<std::pair<std::string, Json>> sums;
  for (const StreamGroup& group : groups_) {
    const bool sending = group.sending;
    const Results& sender = sending ? e.ours : e.theirs;
    const Results& receiver = sending ? e.theirs : e.ours;
    // As 3.12, by the first stream's direction in every group (--bidir: the first group's).
    const bool first_sending = groups_.front().sending;
    const double sent_s = first_sending ? local_s : peer_s;
    const double received_s = first_sending ? peer_s : local_s;
    uint64_t sent_bytes = 0, received_bytes = 0;
    int64_t lost = 0, packets = 0, sent_packets = 0, received_packets = 0;
    double jitter_s = 0;
    for (std::size_t i = group.first; i < group.first + group.count; ++i) {
      const int32_t id = stream_id(i);
      const StreamTotals sent = find_stream(sender, id), received = find_stream(receiver, id);
      // 3.12's one packet count: the sender's if known, else the receiver's.
      const int64_t count = sent.packets ? sent.packets : received.packets;
      Json u;
      u["socket"] = socket_of(i);
      u["start"] = 0;
      u["end"] = sent_s;
      u["seconds"] = sent_s;
      u["bytes"] = sent.bytes;
      u["bits_per_second"] = rate(sent.bytes, sent_s);
      u["jitter_ms"] = received.jitter_s * 1000;
      u["lost_packets"] = received.errors;
      u["packets"] = count;
      u["lost_percent"] = percent(received.errors, sent.packets);  // 0: the sender's unknown
      u["out_of_order"] = i < e.out_of_order.size() ? e.out_of_order[i] : 0;
      u["sender"] = sending;
      streams.push_back(Json{{"udp", std::move(u)}});
      sent_bytes += sent.bytes;
      received_bytes += received.bytes;
      lost += received.errors;
      packets += count;
      sent_packets += sent.packets;
      received_packets += received.packets;
      jitter_s += received.jitter_s;
    }
    const double jitter_ms = group.count ? jitter_s * 1000 / static_cast<double>(group.count) : 0;
    const double lost_percent = percent(lost, packets);
    auto sum = [](double seconds, uint64_t bytes, double bps, double jitter, int64_t lost_packets,
                  int64_t count, double lost_pc, bool sender_flag) {
      return Json{{"start", 0},
                  {"end", seconds},
                  {"seconds", seconds},
                  {"bytes", bytes},
                  {"bits_per_second", bps},
                  {"jitter_ms", jitter},
                  {"lost_packets", lost_packets},
                  {"packets", count},
                  {"lost_percent", lost_pc},
                  {"sender", sender_flag}};
    };
    // 3.12's old mixed `sum`: the receiver's time over the bytes sent, at the sender's rate.
    sums.emplace_back(sum_key(group, ""), sum(received_s, sent_bytes, rate(sent_bytes, sent_s),
                                              jitter_ms, lost, packets, lost_percent, sending));
    sums.emplace_back(sum_key(group, "_sent"), sum(sent_s, sent_bytes, rate(sent_bytes, sent_s), 0,
                                                   0, sent_packets, 0, true));
    sums.emplace_back(sum_key(group, "_received"),
                      sum(received_s, received_bytes, rate(received_bytes, received_s), jitter_ms,
                          lost, received_packets, lost_percent, false));
  }
  end["streams"] = std::move(streams);
  for (auto& [name, sum] : sums) end[name] = std::move(sum);
  end["cpu_utilization_percent"] = cpu_object(e);
}

std::string JsonDocument::text() const {
  Json doc;
  doc["start"] = start_ ? start_object(*start_) : Json::object();
  doc["intervals"] = intervals_;
  Json end = Json::object();
  if (end_ && start_ && start_->test.protocol == Protocol::udp)
    udp_end(*end_, end);
  else if (end_)
    tcp_end(*end_, end);
  doc["end"] = end;
  if (error_) doc["error"] = *error_;
  if (server_output_json_) {
    Json server = Json::parse(*server_output_json_, nullptr, false);
    if (!server.is_discarded()) doc["server_output_json"] = std::move(server);
  }
  if (server_output_text_) doc["server_output_text"] = *server_output_text_;
  return doc.dump(1, '\t', false, Json::error_handler_t::replace);
}

}  // namespace xttcp::iperf3
