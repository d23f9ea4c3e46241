#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "engine/iperf3/control_wire.hh"
#include "engine/iperf3/parameters.hh"
#include "engine/iperf3/results.hh"
#include "engine/iperf3/wire_json.hh"
#include "tests/unit/iperf3/transcript.hh"

namespace xttcp::iperf3 {
namespace {

// Every JSON message of every transcript, in order: {file, text}.
struct Message {
  std::string file;
  std::string text;
};
std::vector<Message> transcript_messages() {
  std::vector<Message> messages;
  for (const auto& entry : std::filesystem::directory_iterator(IPERF3_REFERENCE_DIR)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("wire-")) continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      if (!line.starts_with("JSON len=")) continue;
      const std::size_t brace = line.find('{');
      const std::size_t length = std::stoul(line.substr(9));
      EXPECT_EQ(line.size() - brace, length) << name << ": the transcript's length";
      messages.push_back({name, line.substr(brace)});
    }
  }
  return messages;
}

TEST(Messages, EveryCapturedMessageIsReadAndWrittenAgainByteForByte) {
  const std::vector<Message> messages = transcript_messages();
  ASSERT_GE(messages.size(), 40u);
  std::size_t parameters = 0, results = 0;
  for (const Message& m : messages) {
    if (m.text.starts_with("{\"cpu_util_total\"")) {
      auto read = read_results(m.text, max_results_with_output_bytes);
      ASSERT_TRUE(read) << m.file << ": " << read.error().message;
      EXPECT_EQ(write_results(*read), with_minus_one(m.text)) << m.file;
      EXPECT_EQ(*read_results(write_results(*read), max_results_bytes), *read) << m.file;
      ++results;
    } else {
      auto read = read_parameters(m.text);
      ASSERT_TRUE(read) << m.file << ": " << read.error().message;
      EXPECT_EQ(write_parameters(*read), m.text) << m.file;
      ++parameters;
    }
  }
  EXPECT_EQ(parameters, 17u);  // one per transcript
  EXPECT_GE(results, 30u);
}

TEST(Parameters, WhatTheKeysSet) {
  // wire-many.txt: most options at once.
  auto p = read_parameters(
      R"({"tcp":true,"omit":0,"server_affinity":0,"time":1,"num":0,"blockcount":0,"MSS":1400,)"
      R"("nodelay":true,"parallel":3,"window":1048576,"len":1024,"bandwidth":1000000000,)"
      R"("fqrate":2000000000,"pacing_timer":500,"burst":5,"TOS":16,"title":"mytitle",)"
      R"("extra_data":"xd","congestion":"cubic","repeating_payload":1,"zerocopy":1,)"
      R"("dont_fragment":1,"client_version":"3.12"})");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->protocol, Protocol::tcp);
  EXPECT_EQ(p->server_affinity, 0);
  EXPECT_EQ(p->time_s, 1u);
  EXPECT_EQ(p->mss, 1400u);
  EXPECT_TRUE(p->nodelay);
  EXPECT_EQ(p->parallel, 3u);
  EXPECT_EQ(p->window, 1048576u);
  EXPECT_EQ(p->length, 1024u);
  EXPECT_EQ(p->rate_bps, 1000000000u);
  EXPECT_EQ(p->pacing_timer_us, 500u);
  EXPECT_EQ(p->burst, 5u);
  EXPECT_EQ(p->tos, 16u);
  EXPECT_EQ(p->title, "mytitle");
  EXPECT_EQ(p->congestion, "cubic");
  EXPECT_TRUE(p->repeating_payload && p->zerocopy && p->dont_fragment);
  EXPECT_FALSE(p->reverse || p->bidirectional || p->get_server_output);
}

TEST(Parameters, PresenceDecidesAs312ReadsIt) {
  auto p = read_parameters(R"({"tcp":true,"udp":true,"reverse":false,"len":1400})");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->protocol, Protocol::udp);  // the last of tcp, udp, sctp present
  EXPECT_TRUE(p->reverse);                // "reverse":false still turns it on in 3.12
  EXPECT_EQ(p->time_s, 10u);              // absent: the default
  EXPECT_EQ(p->parallel, 1u);
  // 2^64 - 1 is 3.12's -1: an omit of -1 is none a client can ask for.
  auto minus = read_parameters(R"({"tcp":true,"omit":18446744073709551615})");
  ASSERT_FALSE(minus);
  EXPECT_EQ(minus.error().message, "iperf3 parameters: omit -1 is out of range (0 to 60 s)");
}

TEST(Parameters, WhatAPeerMayNotAskIsRefusedInOneLine) {
  const std::pair<const char*, const char*> refused[] = {
      {R"({"omit":0})", "iperf3 parameters: no protocol (tcp, udp or sctp)"},
      {R"({"tcp":true,"parallel":500})",
       "iperf3 parameters: parallel 500 is out of range (1 to 128 streams)"},
      {R"({"tcp":true,"parallel":0})",
       "iperf3 parameters: parallel 0 is out of range (1 to 128 streams)"},
      {R"({"tcp":true,"len":2097152})",
       "iperf3 parameters: len 2097152 is out of range (1 to 1048576 bytes)"},
      {R"({"udp":true,"len":8})", "iperf3 parameters: len 8 is out of range (16 to 65507 bytes)"},
      {R"({"tcp":true,"time":86401})",
       "iperf3 parameters: time 86401 is out of range (0 to 86400 s)"},
      {R"({"tcp":true,"window":1073741824})",
       "iperf3 parameters: window 1073741824 is out of range (0 to 536870912 bytes)"},
      {R"({"tcp":true,"parallel":"4"})", "iperf3 parameters: 'parallel' is not a number"},
      {R"({"tcp":true,"title":7})", "iperf3 parameters: 'title' is not a string"},
      {R"({"tcp":true,"congestion":"a-very-long-algorithm"})",
       "iperf3 parameters: 'congestion' is 21 bytes, over 15"},
      {R"({"tcp":true,"reverse":true,"bidirectional":true})",
       "iperf3 parameters: reverse and bidirectional together (3.12 refuses -R --bidir)"},
      {R"({"tcp":true,"title":{"a":1}})", "iperf3 parameters: nested more than 1 deep"},
      {R"([1,2])", "iperf3 parameters: not a JSON object"},
      {R"("tcp")", "iperf3 parameters: not a JSON object"},
      {R"({"tcp":tru)", "iperf3 parameters: not valid JSON"},
  };
  for (const auto& [json, message] : refused) {
    auto p = read_parameters(json);
    ASSERT_FALSE(p) << json;
    EXPECT_EQ(p.error().message, message) << json;
  }
  const std::string big = R"({"tcp":true,"title":")" + std::string(9000, 'x') + "\"}";
  EXPECT_EQ(read_parameters(big).error().message,
            "iperf3 parameters: 9023 bytes, over the limit of 8192");
}

TEST(Parameters, WrittenAsA312ClientWritesThem) {
  Parameters p;
  p.protocol = Protocol::udp;
  p.time_s = 1;
  p.parallel = 2;
  p.length = 32768;
  p.rate_bps = 10000000;
  // wire-udpp2.txt's message.
  EXPECT_EQ(write_parameters(p),
            R"({"udp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":2,"len":32768,)"
            R"("bandwidth":10000000,"pacing_timer":1000,"client_version":"3.12"})");
  p.title = "a \"quoted\" title";
  EXPECT_EQ(read_parameters(write_parameters(p))->title, p.title);
}

TEST(Results, TheFieldsAConsumerUses) {
  // wire-tcp1.txt: the server's results (a pure receiver: -1 as 3.12 writes it).
  auto r = read_results(
      R"({"cpu_util_total":18.761470224569408,"cpu_util_user":0.80844188569244479,)"
      R"("cpu_util_system":17.953028338876965,"sender_has_retransmits":18446744073709551615,)"
      R"("congestion_used":"bbr","streams":[{"id":1,"bytes":2682453963,)"
      R"("retransmits":18446744073709551615,"jitter":0,"errors":0,"packets":0,"start_time":0,)"
      R"("end_time":2.00408}]})",
      max_results_bytes);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->sender_has_retransmits, -1);
  EXPECT_EQ(r->congestion_used, "bbr");
  ASSERT_EQ(r->streams.size(), 1u);
  EXPECT_EQ(r->streams[0].bytes, 2682453963u);
  EXPECT_EQ(r->streams[0].retransmits, -1);
  EXPECT_EQ(r->streams[0].end_time, 2.00408);
  // Servers before 3.2 sent no times.
  auto old = read_results(
      R"({"cpu_util_total":1,"cpu_util_user":0,"cpu_util_system":1,"sender_has_retransmits":0,)"
      R"("streams":[{"id":1,"bytes":5,"retransmits":-1,"jitter":0.5,"errors":2,"packets":9}]})",
      max_results_bytes);
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_FALSE(old->streams[0].end_time);
  EXPECT_EQ(old->streams[0].jitter_s, 0.5);
}

TEST(Results, WhatAPeerMayNotSendIsRefusedInOneLine) {
  const std::string head =
      R"({"cpu_util_total":1,"cpu_util_user":0,"cpu_util_system":1,"sender_has_retransmits":1,)";
  const std::string stream =
      R"({"id":1,"bytes":5,"retransmits":0,"jitter":0,"errors":0,"packets":0})";
  const std::pair<std::string, const char*> refused[] = {
      {R"({"cpu_util_user":0,"cpu_util_system":1,"sender_has_retransmits":1,"streams":[]})",
       "iperf3 results: has no 'cpu_util_total'"},
      {head + R"("streams":{}})", "iperf3 results: has no 'streams' array"},
      {head + R"("streams":[{"id":1,"retransmits":0,"jitter":0,"errors":0,"packets":0}]})",
       "iperf3 results: streams[0] has no 'bytes'"},
      {head + R"("streams":[)" + stream + "," + stream + "]}", "iperf3 results: stream id 1 twice"},
      {head +
           R"("streams":[{"id":0,"bytes":5,"retransmits":0,"jitter":0,"errors":0,"packets":0}]})",
       "iperf3 results: streams[0] id 0 is no stream of a test"},
      {head +
           R"("streams":[{"id":1,"bytes":-5,"retransmits":0,"jitter":0,"errors":0,"packets":0}]})",
       "iperf3 results: streams[0] bytes -5 is negative"},
      {head +
           R"("streams":[{"id":1,"bytes":5,"retransmits":0,"jitter":"x","errors":0,"packets":0}]})",
       "iperf3 results: streams[0] 'jitter' is not a number"},
      {head + R"("streams":[[[[[[[[[[[[[[1]]]]]]]]]]]]]]})",
       "iperf3 results: nested more than 12 deep"},
  };
  for (const auto& [json, message] : refused) {
    auto r = read_results(json, max_results_bytes);
    ASSERT_FALSE(r) << json;
    EXPECT_EQ(r.error().message, message) << json;
  }
  std::string many = head + R"("streams":[)";
  for (int id = 1; id <= 258; ++id) {
    if (id > 1) many += ',';
    many += fmt::format(
        R"({{"id":{},"bytes":5,"retransmits":0,"jitter":0,"errors":0,"packets":0}})", id);
  }
  many += "]}";
  EXPECT_EQ(read_results(many, max_results_with_output_bytes).error().message,
            "iperf3 results: 258 streams, over 256");
  EXPECT_EQ(read_results(many, 1000).error().message,
            "iperf3 results: " + std::to_string(many.size()) + " bytes, over the limit of 1000");
}

TEST(Numbers, As312WritesThem) {
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_number(2683043840.0), "2683043840");
  EXPECT_EQ(format_number(-1), "-1");
  EXPECT_EQ(format_number(2.00408), "2.00408");
  EXPECT_EQ(format_number(29.616729662289217), "29.616729662289217");  // 15 digits do not do
  EXPECT_EQ(format_number(1.2582279436567179e-05), "1.2582279436567179e-05");
  EXPECT_EQ(format_number(1.78469568051771), "1.78469568051771");
  EXPECT_EQ(format_number(std::numeric_limits<double>::infinity()), "0");
}

}  // namespace
}  // namespace xttcp::iperf3
