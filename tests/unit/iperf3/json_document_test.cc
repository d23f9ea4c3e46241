// The client's -J document (engine/iperf3/json_document.hh) against 3.12's own: the same key
// paths as client-tcp-P2.json (sending) and client-tcp-R.json (receiving), and the figures a
// consumer reads where they belong. UDP: the figures of client-udp*.json and server-udp.json's
// runs give those documents' keys, key order and numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "engine/iperf3/json_document.hh"

namespace xttcp::iperf3 {
namespace {

using Json = nlohmann::json;

std::set<std::string> key_paths(const Json& value, const std::string& path = "") {
  std::set<std::string> paths;
  if (value.is_object()) {
    for (const auto& [key, inner] : value.items()) {
      paths.insert(path + "/" + key);
      paths.merge(key_paths(inner, path + "/" + key));
    }
  } else if (value.is_array() && !value.empty()) {
    paths.merge(key_paths(value.front(), path + "[]"));
  }
  return paths;
}

Json reference(const std::string& name) {
  std::ifstream in(std::string(IPERF3_REFERENCE_DIR) + "/" + name);
  return Json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
}

// A two-stream test of one second, as this end saw it and as its peer's results said; with
// `omit`, an omit period's interval (-O) first, whose RTT is the highest.
Json document(bool sending, bool omit = false) {
  JsonDocument doc(one_direction(sending, 2));
  doc.set_sockets({5, 7});
  DocumentStart start;
  start.connected = {{5, "127.0.0.1", 43256, "127.0.0.1", 5999},
                     {7, "127.0.0.1", 43258, "127.0.0.1", 5999}};
  start.system_info = "Linux vm 6.18.44 #1 SMP x86_64";
  start.peer_host = "127.0.0.1";
  start.peer_port = 5999;
  start.cookie = "gamvbpxmz6vru63dvhnwznb6up2psdmynves";
  start.test.parallel = 2;
  start.test.reverse = !sending;
  start.test.time_s = 1;
  doc.set_start(start);
  IntervalSample sample;
  sample.seconds = 1;
  sample.bytes = 3000;
  ConnectionInterval tcp;
  tcp.snd_cwnd = 10;
  tcp.snd_mss = 1000;
  tcp.rtt_us = 48;
  tcp.retransmits = 2;
  if (omit) {
    IntervalSample omitted = sample;
    ConnectionInterval slow = tcp;
    slow.rtt_us = 99;
    omitted.per_stream = {{0, 900, 1, 0, 0, 0, 0, slow, {}}, {1, 900, 1, 0, 0, 0, 0, slow, {}}};
    omitted.omitted = true;
    doc.intervals({omitted}, false);
  }
  sample.per_stream = {{0, 1000, 1, 0, 0, 0, 0, tcp, {}}, {1, 2000, 1, 0, 0, 0, 0, tcp, {}}};
  doc.intervals({sample}, false);
  DocumentEnd end;
  end.seconds = 1;
  Results& sender = sending ? end.ours : end.theirs;
  Results& receiver = sending ? end.theirs : end.ours;
  sender.sender_has_retransmits = 1;
  sender.congestion_used = "bbr";
  receiver.congestion_used = "bbr";
  sender.streams = {{1, 1000, 2, 0, 0, 0, 0, 1.0}, {3, 2000, 0, 0, 0, 0, 0, 1.0}};
  receiver.streams = {{1, 990, -1, 0, 0, 0, 0, 1.001}, {3, 1990, -1, 0, 0, 0, 0, 1.001}};
  end.ours.cpu_total = 30;
  end.theirs.cpu_total = 60;
  doc.set_end(end);
  return Json::parse(doc.text());
}

TEST(JsonDocument, TheKeysOf312sClientSending) {
  EXPECT_EQ(key_paths(document(true)), key_paths(reference("client-tcp-P2.json")));
}

TEST(JsonDocument, TheKeysOf312sClientReceiving) {
  EXPECT_EQ(key_paths(document(false)), key_paths(reference("client-tcp-R.json")));
}

TEST(JsonDocument, WhatAConsumerReads) {
  const Json sending = document(true);
  EXPECT_EQ(sending["end"]["sum_sent"]["bytes"], 3000);
  EXPECT_EQ(sending["end"]["sum_sent"]["retransmits"], 2);
  EXPECT_EQ(sending["end"]["sum_received"]["bytes"], 2980);
  EXPECT_DOUBLE_EQ(sending["end"]["sum_received"]["end"].get<double>(), 1.001);
  EXPECT_EQ(sending["end"]["cpu_utilization_percent"]["host_total"], 30);
  EXPECT_EQ(sending["end"]["cpu_utilization_percent"]["remote_total"], 60);
  EXPECT_EQ(sending["intervals"][0]["sum"]["bits_per_second"], 24000);
  EXPECT_EQ(sending["intervals"][0]["streams"][1]["socket"], 7);
  EXPECT_EQ(sending["intervals"][0]["streams"][1]["snd_cwnd"], 10000);
  EXPECT_EQ(sending["end"]["streams"][0]["sender"]["max_rtt"], 48);
  EXPECT_EQ(sending["start"]["test_start"]["num_streams"], 2);
  const Json receiving = document(false);
  EXPECT_EQ(receiving["end"]["sum_sent"]["bytes"], 3000);             // from the server's results
  EXPECT_EQ(receiving["end"]["streams"][0]["sender"]["max_rtt"], 0);  // unknown here, as 3.12
  EXPECT_EQ(receiving["start"]["test_start"]["reverse"], 1);
  EXPECT_FALSE(receiving["intervals"][0]["streams"][0].contains("snd_cwnd"));
}

// -O: the omit period's interval is listed first, it and its streams marked omitted, and its
// TCP_INFO is in none of the end's peaks.
TEST(JsonDocument, TheOmitPeriodsIntervalIsListedMarkedAndLeftOutOfThePeaks) {
  const Json doc = document(true, true);
  ASSERT_EQ(doc["intervals"].size(), 2u);
  EXPECT_EQ(doc["intervals"][0]["sum"]["omitted"], true);
  EXPECT_EQ(doc["intervals"][0]["streams"][1]["omitted"], true);
  EXPECT_EQ(doc["intervals"][1]["sum"]["omitted"], false);
  EXPECT_EQ(doc["intervals"][1]["streams"][0]["omitted"], false);
  EXPECT_EQ(doc["end"]["streams"][0]["sender"]["max_rtt"], 48);
}

TEST(JsonDocument, TheServersOutputAtTheTopAsClientTcpGetServerOutput) {
  // client-tcp-get-server-output.json: the server's text after `end`.
  JsonDocument doc(one_direction(true, 1));
  Results server;
  server.server_output_text = "Accepted connection from 127.0.0.1, port 34454\n";
  doc.set_server_output(server);
  Json with_text = Json::parse(doc.text());
  EXPECT_EQ(with_text["server_output_text"], *server.server_output_text);
  const Json ref = reference("client-tcp-get-server-output.json");
  std::vector<std::string> top;
  for (const auto& [key, value] : ref.items()) top.push_back(key);
  std::vector<std::string> ours;
  for (const auto& [key, value] : with_text.items()) ours.push_back(key);
  EXPECT_EQ(std::set<std::string>(ours.begin(), ours.end()),
            std::set<std::string>(top.begin(), top.end()));
  server = Results{};
  server.server_output_json = R"({"start":{},"intervals":[],"end":{}})";
  doc.set_server_output(server);
  const Json with_json = Json::parse(doc.text());
  EXPECT_TRUE(with_json["server_output_json"]["intervals"].is_array());
  EXPECT_FALSE(with_json.contains("server_output_text"));
}

TEST(JsonDocument, AFailedTestsDocumentSaysWhy) {
  JsonDocument doc(one_direction(true, 1));
  doc.set_error("the server is busy running a test. try again later");
  const Json failed = Json::parse(doc.text());
  EXPECT_EQ(failed["error"], "the server is busy running a test. try again later");
  EXPECT_TRUE(failed["start"].empty());
  EXPECT_TRUE(failed["intervals"].empty());
}

// Every number within a relative `tolerance` of the reference's, every other value equal, the
// same keys.
void expect_near(const Json& ours, const Json& ref, double tolerance, const std::string& path) {
  if (ref.is_number()) {
    ASSERT_TRUE(ours.is_number()) << path << ": " << ours;
    const double a = ours.get<double>(), b = ref.get<double>();
    EXPECT_NEAR(a, b, std::abs(b) * tolerance + 1e-12) << path;
  } else if (ref.is_object()) {
    EXPECT_EQ(key_paths(ours), key_paths(ref)) << path;
    for (const auto& [key, inner] : ref.items())
      if (ours.contains(key)) expect_near(ours[key], inner, tolerance, path + "/" + key);
  } else if (ref.is_array()) {
    ASSERT_EQ(ours.size(), ref.size()) << path;
    for (std::size_t i = 0; i < ref.size(); ++i)
      expect_near(ours[i], ref[i], tolerance, path + "[" + std::to_string(i) + "]");
  } else {
    EXPECT_EQ(ours, ref) << path;
  }
}

// A UDP test of one second as 3.12 ran it: the reference's start, first interval and both ends'
// results (from its `end`), fed to our document. `client`: a client's document, else a
// receiving server's, which (as 3.12's) has not heard the client's results.
Json udp_document(const std::string& name, bool client) {
  const Json ref = reference(name);
  const Json& rs = ref["start"];
  const bool sending = ref["intervals"][0]["sum"]["sender"].get<bool>();
  JsonDocument doc(one_direction(sending, ref["start"]["connected"].size()));
  std::vector<int> sockets;
  DocumentStart start;
  for (const Json& c : rs["connected"]) {
    sockets.push_back(c["socket"]);
    start.connected.push_back(
        {c["socket"], c["local_host"], c["local_port"], c["remote_host"], c["remote_port"]});
  }
  doc.set_sockets(sockets);
  start.system_info = rs["system_info"];
  start.client = client;
  const Json& peer = rs[client ? "connecting_to" : "accepted_connection"];
  start.peer_host = peer["host"];
  start.peer_port = peer["port"];
  start.cookie = rs["cookie"];
  start.sndbuf_actual = rs["sndbuf_actual"];
  start.rcvbuf_actual = rs["rcvbuf_actual"];
  start.test.protocol = Protocol::udp;
  start.test.parallel = rs["test_start"]["num_streams"];
  start.test.length = rs["test_start"]["blksize"];
  start.test.time_s = rs["test_start"]["duration"];
  start.test.reverse = rs["test_start"]["reverse"] == 1;
  start.test.rate_bps = rs["test_start"]["target_bitrate"];
  doc.set_start(start);
  const Json& first = ref["intervals"][0];
  IntervalSample sample;
  sample.seconds = first["sum"]["seconds"];
  sample.bytes = first["sum"]["bytes"];
  for (std::size_t i = 0; i < first["streams"].size(); ++i) {
    const Json& st = first["streams"][i];
    StreamInterval s{i, st["bytes"]};
    s.lost = sending ? 0 : st["lost_packets"].get<uint64_t>();
    s.datagrams = st["packets"].get<uint64_t>() - s.lost;
    s.jitter_ns = sending ? 0 : std::llround(st["jitter_ms"].get<double>() * 1e6);
    sample.per_stream.push_back(s);
  }
  doc.intervals({sample}, true);
  // Each end's results: the sender's bytes, packets and time; the receiver's jitter (s), lost,
  // highest sequence number and time.
  const Json& e = ref["end"];
  DocumentEnd end;
  end.seconds = 1;
  Results& sender = sending ? end.ours : end.theirs;
  Results& receiver = sending ? end.theirs : end.ours;
  const double n = static_cast<double>(e["streams"].size());
  for (std::size_t i = 0; i < e["streams"].size(); ++i) {
    const Json& u = e["streams"][i]["udp"];
    const auto id = static_cast<int32_t>(i == 0 ? 1 : i + 2);
    sender.streams.push_back({id, u["bytes"], -1, 0, 0,
                              e["sum_sent"]["packets"].get<int64_t>() / static_cast<int64_t>(n), 0,
                              e["sum_sent"]["end"].get<double>()});
    receiver.streams.push_back(
        {id, static_cast<uint64_t>(e["sum_received"]["bytes"].get<double>() / n), -1,
         u["jitter_ms"].get<double>() / 1000, u["lost_packets"],
         e["sum_received"]["packets"].get<int64_t>() / static_cast<int64_t>(n), 0,
         e["sum_received"]["end"].get<double>()});
  }
  if (!client) end.theirs.streams.clear();  // 3.12's server writes before the client's results
  const Json& cpu = e["cpu_utilization_percent"];
  end.ours.cpu_total = cpu["host_total"];
  end.ours.cpu_user = cpu["host_user"];
  end.ours.cpu_system = cpu["host_system"];
  end.theirs.cpu_total = cpu["remote_total"];
  end.theirs.cpu_user = cpu["remote_user"];
  end.theirs.cpu_system = cpu["remote_system"];
  doc.set_end(end);
  return Json::parse(doc.text());
}

std::vector<std::string> start_keys(const std::string& text) {
  std::vector<std::string> keys;
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text);  // outlives the loop
  for (const auto& [key, value] : doc["start"].items()) keys.push_back(key);
  return keys;
}

void expect_as_reference(const std::string& name, bool client) {
  SCOPED_TRACE(name);
  const Json ours = udp_document(name, client), ref = reference(name);
  EXPECT_EQ(key_paths(ours), key_paths(ref));
  // 3.12's key order (its UDP server's second target_bitrate falls on the first).
  EXPECT_EQ(start_keys(ours.dump()), start_keys(ref.dump()));
  expect_near(ours["start"]["test_start"], ref["start"]["test_start"], 0, "/start/test_start");
  // An interval's seconds and jitter came through a float and whole ns.
  expect_near(ours["intervals"][0], ref["intervals"][0], 1e-4, "/intervals[0]");
  expect_near(ours["end"], ref["end"], 1e-12, "/end");
}

TEST(JsonDocumentUdp, TheClientSendingAsClientUdp) { expect_as_reference("client-udp.json", true); }

TEST(JsonDocumentUdp, TwoStreamsAsClientUdpP2) { expect_as_reference("client-udp-P2.json", true); }

TEST(JsonDocumentUdp, TheClientReceivingAsClientUdpR) {
  expect_as_reference("client-udp-R.json", true);
}

TEST(JsonDocumentUdp, TheServerReceivingAsServerUdp) {
  expect_as_reference("server-udp.json", false);
}

TEST(JsonDocumentUdp, TheServerSendingHasServerUdpsKeysButASendersIntervals) {
  // No 3.12 sample of a sending UDP server's -J: its keys are server-udp.json's, less a
  // receiver's interval figures.
  JsonDocument doc(one_direction(true, 1));
  doc.set_sockets({5});
  DocumentStart start;
  start.connected = {{5, "127.0.0.1", 5999, "127.0.0.1", 45780}};
  start.client = false;
  start.test.protocol = Protocol::udp;
  start.test.reverse = true;
  doc.set_start(start);
  IntervalSample sample;
  sample.seconds = 1;
  sample.bytes = 2000;
  sample.per_stream = {{0, 2000, 0, 2}};
  doc.intervals({sample}, true);
  DocumentEnd end;
  end.ours.streams = {{1, 2000, -1, 0, 0, 2, 0, 1.0}};
  doc.set_end(end);
  std::set<std::string> expected = key_paths(reference("server-udp.json"));
  for (const char* receivers : {"jitter_ms", "lost_packets", "lost_percent"}) {
    expected.erase(std::string("/intervals[]/streams[]/") + receivers);
    expected.erase(std::string("/intervals[]/sum/") + receivers);
  }
  const Json sending = Json::parse(doc.text());
  EXPECT_EQ(key_paths(sending), expected);
  EXPECT_EQ(sending["intervals"][0]["sum"]["packets"], 2);
  EXPECT_EQ(sending["end"]["sum_sent"]["packets"], 2);
  EXPECT_EQ(sending["end"]["streams"][0]["udp"]["sender"], true);
}

TEST(JsonDocumentUdp, JitterLossAndPackets) {
  // A receiving client of two streams: 1000 datagrams sent on each, 50 and 0 lost.
  JsonDocument doc(one_direction(false, 2));
  doc.set_sockets({5, 7});
  DocumentStart start;
  start.test.protocol = Protocol::udp;
  start.test.parallel = 2;
  doc.set_start(start);
  IntervalSample sample;
  sample.seconds = 1;
  sample.per_stream = {{0, 1900, 0, 95, 5, 0, 200000}, {1, 2000, 0, 100, 0, 0, 400000}};
  sample.bytes = 3900;
  doc.intervals({sample}, true);
  DocumentEnd end;
  end.seconds = 2;
  end.ours.streams = {{1, 19000, -1, 0.0002, 50, 1000, 0, 2.0},
                      {3, 20000, -1, 0.0004, 0, 1000, 0, 2.0}};
  end.theirs.streams = {{1, 20000, -1, 0, 0, 1000, 0, 1.5}, {3, 20000, -1, 0, 0, 1000, 0, 1.5}};
  end.out_of_order = {3};
  doc.set_end(end);
  const Json d = Json::parse(doc.text());
  const Json& stream = d["intervals"][0]["streams"][0];
  EXPECT_DOUBLE_EQ(stream["jitter_ms"].get<double>(), 0.2);
  EXPECT_EQ(stream["lost_packets"], 5);
  EXPECT_EQ(stream["packets"], 100);
  EXPECT_DOUBLE_EQ(stream["lost_percent"].get<double>(), 5);
  const Json& sum = d["intervals"][0]["sum"];
  EXPECT_DOUBLE_EQ(sum["jitter_ms"].get<double>(), 0.3);  // the streams' mean
  EXPECT_EQ(sum["packets"], 200);
  EXPECT_DOUBLE_EQ(sum["lost_percent"].get<double>(), 2.5);
  const Json& udp = d["end"]["streams"][0]["udp"];
  EXPECT_DOUBLE_EQ(udp["jitter_ms"].get<double>(), 0.2);  // jitter_s x 1000
  EXPECT_EQ(udp["lost_packets"], 50);
  EXPECT_EQ(udp["packets"], 1000);
  EXPECT_DOUBLE_EQ(udp["lost_percent"].get<double>(), 5);
  EXPECT_EQ(udp["out_of_order"], 3);
  EXPECT_EQ(udp["bytes"], 20000);  // the sender's
  EXPECT_DOUBLE_EQ(udp["end"].get<double>(), 1.5);
  EXPECT_EQ(d["end"]["streams"][1]["udp"]["out_of_order"], 0);
  EXPECT_EQ(d["end"]["sum_received"]["bytes"], 39000);
  EXPECT_EQ(d["end"]["sum_received"]["lost_packets"], 50);
  EXPECT_DOUBLE_EQ(d["end"]["sum_received"]["lost_percent"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(d["end"]["sum_received"]["jitter_ms"].get<double>(), 0.3);
  EXPECT_EQ(d["end"]["sum_sent"]["lost_packets"], 0);
  EXPECT_EQ(d["end"]["sum_sent"]["packets"], 2000);
  // Without the sender's counts (3.12's server): packets are the receiver's, lost % 0.
  end.theirs.streams.clear();
  doc.set_end(end);
  const Json alone = Json::parse(doc.text());
  EXPECT_EQ(alone["end"]["streams"][0]["udp"]["packets"], 1000);
  EXPECT_EQ(alone["end"]["streams"][0]["udp"]["lost_percent"], 0);
  EXPECT_DOUBLE_EQ(alone["end"]["sum"]["lost_percent"].get<double>(), 2.5);
  EXPECT_EQ(alone["end"]["sum_sent"]["bytes"], 0);
}

}  // namespace
}  // namespace xttcp::iperf3

namespace xttcp::iperf3 {
namespace {

// A --bidir TCP test of one stream each way, as one end saw it and its peer's results said:
// `client` 1 (id 1) sent 2000 and 3 (id 3) received 1500; the server the other way round.
Json bidir_document(bool client) {
  Parameters p;
  p.parallel = 1;
  p.bidirectional = true;
  p.time_s = 1;
  JsonDocument doc(stream_groups(client, p));
  doc.set_sockets({5, client ? 7 : 8});
  DocumentStart start;
  start.client = client;
  start.connected = {{5, "127.0.0.1", 44966, "127.0.0.1", 5999},
                     {client ? 7 : 8, "127.0.0.1", 44968, "127.0.0.1", 5999}};
  start.test = p;
  doc.set_start(start);
  ConnectionInterval tcp;
  tcp.snd_cwnd = 10;
  tcp.snd_mss = 1000;
  tcp.rtt_us = 40;
  tcp.retransmits = 1;
  IntervalSample client_sends, server_sends;
  client_sends.seconds = server_sends.seconds = 1;
  client_sends.bytes = 2000;
  client_sends.per_stream = {{0, 2000, 1, 0, 0, 0, 0, tcp, {}}};
  server_sends.bytes = 1500;
  server_sends.per_stream = {{0, 1500, 1, 0, 0, 0, 0, tcp, {}}};
  // Both ends' first group is the client's sends (the client's send streams, the server's
  // receive streams).
  doc.intervals({client_sends, server_sends}, false);
  DocumentEnd end;
  end.seconds = 1;
  Results& c = client ? end.ours : end.theirs;
  Results& s = client ? end.theirs : end.ours;
  c.sender_has_retransmits = s.sender_has_retransmits = 1;
  c.congestion_used = s.congestion_used = "cubic";
  c.streams = {{1, 2000, 1, 0, 0, 0, 0, 1.0}, {3, 1500, -1, 0, 0, 0, 0, 1.0}};
  s.streams = {{1, 1990, -1, 0, 0, 0, 0, 1.002}, {3, 1510, 4, 0, 0, 0, 0, 1.002}};
  doc.set_end(end);
  return Json::parse(doc.text());
}

TEST(JsonDocumentBidir, TheKeysOf312sClientTcpBidir) {
  const Json ours = bidir_document(true);
  EXPECT_EQ(key_paths(ours), key_paths(reference("client-tcp-bidir.json")));
  // The client's sends are `sum` and `sum_sent`; the server's, the reverse channel.
  EXPECT_EQ(ours["intervals"][0]["sum"]["bytes"], 2000);
  EXPECT_EQ(ours["intervals"][0]["sum"]["retransmits"], 1);
  EXPECT_EQ(ours["intervals"][0]["sum_bidir_reverse"]["bytes"], 1500);
  EXPECT_FALSE(ours["intervals"][0]["sum_bidir_reverse"].contains("retransmits"));
  EXPECT_EQ(ours["intervals"][0]["streams"][1]["socket"], 7);
  EXPECT_EQ(ours["end"]["sum_sent"]["bytes"], 2000);
  EXPECT_EQ(ours["end"]["sum_received"]["bytes"], 1990);
  EXPECT_EQ(ours["end"]["sum_sent_bidir_reverse"]["bytes"], 1510);      // the server's count
  EXPECT_EQ(ours["end"]["sum_sent_bidir_reverse"]["retransmits"], 4);   // ... and retransmits
  EXPECT_EQ(ours["end"]["sum_received_bidir_reverse"]["bytes"], 1500);  // ours
  EXPECT_EQ(ours["end"]["sum_received_bidir_reverse"]["sender"], false);
  // As 3.12, every entry takes the first stream's times: its sender's (this client, 1.0) and
  // its receiver's (the server, 1.002), the reverse channel's too.
  EXPECT_DOUBLE_EQ(ours["end"]["streams"][1]["sender"]["end"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(ours["end"]["streams"][1]["receiver"]["end"].get<double>(), 1.002);
  EXPECT_DOUBLE_EQ(ours["end"]["sum_sent_bidir_reverse"]["end"].get<double>(), 1.0);
  EXPECT_EQ(ours["start"]["test_start"]["reverse"], 0);
}

TEST(JsonDocumentBidir, The312ServersKeysAndEachDirectionsFigures) {
  const Json ours = bidir_document(false);
  std::set<std::string> missing;
  for (const std::string& path : key_paths(reference("server-tcp-bidir.json")))
    if (!key_paths(ours).contains(path)) missing.insert(path);
  EXPECT_TRUE(missing.empty()) << ::testing::PrintToString(missing);
  // The server's receive streams are `sum` (the client's sends), its own sends the reverse.
  EXPECT_EQ(ours["intervals"][0]["streams"][0]["sender"], false);
  EXPECT_EQ(ours["intervals"][0]["sum"]["bytes"], 2000);
  EXPECT_FALSE(ours["intervals"][0]["sum"].contains("retransmits"));
  EXPECT_EQ(ours["intervals"][0]["sum_bidir_reverse"]["bytes"], 1500);
  EXPECT_EQ(ours["intervals"][0]["sum_bidir_reverse"]["retransmits"], 1);
  EXPECT_EQ(ours["end"]["sum_received"]["bytes"], 1990);
  EXPECT_EQ(ours["end"]["sum_sent_bidir_reverse"]["bytes"], 1510);
  EXPECT_EQ(ours["end"]["streams"][1]["sender"]["socket"], 8);
}

}  // namespace
}  // namespace xttcp::iperf3

namespace xttcp::iperf3 {
namespace {

TEST(JsonDocument, MinusMsStartSaysTcpMssAs312) {
  // 3.12 writes tcp_mss (the -M asked) instead of tcp_mss_default (the control connection's).
  JsonDocument doc(one_direction(true, 1));
  DocumentStart start;
  start.tcp_mss_default = 32768;
  start.test.mss = 1400;
  doc.set_start(start);
  const Json with_mss = Json::parse(doc.text());
  EXPECT_EQ(with_mss["start"]["tcp_mss"], 1400);
  EXPECT_FALSE(with_mss["start"].contains("tcp_mss_default"));
  start.test.mss = 0;
  doc.set_start(start);
  const Json without = Json::parse(doc.text());
  EXPECT_EQ(without["start"]["tcp_mss_default"], 32768);
  EXPECT_FALSE(without["start"].contains("tcp_mss"));
}

}  // namespace
}  // namespace xttcp::iperf3
