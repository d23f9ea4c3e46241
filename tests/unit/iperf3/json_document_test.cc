// The client's -J document (engine/iperf3/json_document.hh) against 3.12's own: the same key
// paths as client-tcp-P2.json (sending) and client-tcp-R.json (receiving), and the figures a
// consumer reads where they belong.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

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

// A two-stream test of one second, as this end saw it and as its peer's results said.
Json document(bool sending) {
  JsonDocument doc(sending);
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
  sample.per_stream = {{0, 1000, 1, 0, 0, 0, 0, tcp, {}}, {1, 2000, 1, 0, 0, 0, 0, tcp, {}}};
  doc.interval(sending ? Role::sender : Role::receiver, {}, sample, false);
  DocumentEnd end;
  end.sending = sending;
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

TEST(JsonDocument, AFailedTestsDocumentSaysWhy) {
  JsonDocument doc(true);
  doc.set_error("the server is busy running a test. try again later");
  const Json failed = Json::parse(doc.text());
  EXPECT_EQ(failed["error"], "the server is busy running a test. try again later");
  EXPECT_TRUE(failed["start"].empty());
  EXPECT_TRUE(failed["intervals"].empty());
}

}  // namespace
}  // namespace xttcp::iperf3
