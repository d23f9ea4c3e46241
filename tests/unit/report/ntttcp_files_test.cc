// NTTTCP-for-Linux XML and JSON files: golden files, plus equality with the original's own
// files in reference/samples (our fixtures reproduce those runs' numbers).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "engine/report/ntttcp_json.hh"
#include "engine/report/ntttcp_xml.hh"
#include "tests/unit/report/golden.hh"
#include "tests/unit/report/sample_results.hh"

namespace xttcp {
namespace {

using test::expect_golden;
using test::read_sample;

// Every key path in document order ("ntttcpr.parameters.port", "...throughputs[1].metric").
void json_paths(const nlohmann::ordered_json& j, const std::string& prefix,
                std::vector<std::string>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      out.push_back(prefix + it.key());
      json_paths(it.value(), prefix + it.key() + ".", out);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      json_paths(j[i], prefix.substr(0, prefix.size() - 1) + "[" + std::to_string(i) + "].", out);
    }
  }
}

std::vector<std::string> json_shape(const std::string& text) {
  std::vector<std::string> paths;
  json_paths(nlohmann::ordered_json::parse(text), "", paths);
  return paths;
}

void every_value_is_a_string(const nlohmann::json& j) {
  if (j.is_object() || j.is_array()) {
    for (const auto& v : j) every_value_is_a_string(v);
  } else {
    EXPECT_TRUE(j.is_string()) << j.dump();
  }
}

TEST(NtttcpXml, ReceiverGolden) {
  expect_golden("ntttcp-receiver.xml", render_ntttcp_xml(test::sample_receiver()));
}

TEST(NtttcpXml, SenderVerboseGolden) {
  expect_golden("ntttcp-sender-verbose.xml", render_ntttcp_xml(test::sample_sender_verbose()));
}

TEST(NtttcpXml, EscapesTheOsLine) {
  Result r = test::sample_receiver();
  r.host.os = "Linux <a&b>\n";
  std::string xml = render_ntttcp_xml(r);
  EXPECT_NE(xml.find("<os>Linux &lt;a&amp;b&gt;</os>"), std::string::npos) << xml;
}

TEST(NtttcpJson, ReceiverGolden) {
  expect_golden("ntttcp-receiver.json", render_ntttcp_json(test::sample_receiver()));
}

TEST(NtttcpJson, SenderVerboseGolden) {
  expect_golden("ntttcp-sender-verbose.json", render_ntttcp_json(test::sample_sender_verbose()));
}

TEST(NtttcpJson, ReceiverEqualsSample) {
  auto sample = read_sample("linux-receiver.json");
  if (!sample) GTEST_SKIP() << "reference samples not available";
  std::string ours = render_ntttcp_json(test::sample_receiver());
  EXPECT_EQ(json_shape(*sample), json_shape(ours));
  EXPECT_EQ(*sample, ours);
}

TEST(NtttcpJson, SenderVerboseEqualsSample) {
  auto sample = read_sample("linux-sender-verbose.json");
  if (!sample) GTEST_SKIP() << "reference samples not available";
  std::string ours = render_ntttcp_json(test::sample_sender_verbose());
  EXPECT_EQ(json_shape(*sample), json_shape(ours));
  EXPECT_EQ(*sample, ours);
}

TEST(NtttcpJson, EveryValueIsAStringAndQuirksKept) {
  std::string text = render_ntttcp_json(test::sample_sender_verbose());
  auto j = nlohmann::json::parse(text);
  every_value_is_a_string(j);
  const auto& s = j["ntttcps"];
  EXPECT_EQ(s["threads"][0]["throughputs"][1]["value"], "1987.219 bps");
  EXPECT_EQ(s["tcpAverageRtt metric"], "183 us");
  EXPECT_EQ(s["packets_retransmitted"], "81");
}

// Every figure of the -j file is a number in a string (as the original writes them all), even
// when nothing was measured: only names, flags and the original's own non-numbers are text.
void expect_number_strings(const nlohmann::json& j, const std::string& path) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& key = it.key();
      if (key == "parameters" || key == "computername" || key == "version" || key == "os" ||
          key == "metric")
        continue;
      expect_number_strings(it.value(), path + "." + key);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      expect_number_strings(j[i], path + "[" + std::to_string(i) + "]");
  } else {
    ASSERT_TRUE(j.is_string()) << path;
    std::string text = j.get<std::string>();
    // The original's quirks: a thread's MB/s ends in " bps", the RTT in " us".
    for (const char* suffix : {" bps", " us"})
      if (text.ends_with(suffix)) text.resize(text.size() - std::string(suffix).size());
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    EXPECT_TRUE(end != text.c_str() && *end == '\0' && std::isfinite(value))
        << path << " holds '" << j.get<std::string>() << "'";
  }
}

TEST(NtttcpJson, EveryFigureIsANumberWhateverWasMeasured) {
  for (const Result& r : {test::sample_sender_verbose(), test::sample_receiver(),
                          test::sender_that_measured_nothing()})
    expect_number_strings(nlohmann::json::parse(render_ntttcp_json(r)), "");
  Result all = test::sender_that_measured_nothing();
  all.tcp_average_rtt_us = 0;
  all.spec.workload.protocol = Protocol::udp;
  expect_number_strings(nlohmann::json::parse(render_ntttcp_json(all)), "");
}

TEST(NtttcpJson, ColonInsideAStringIsNotSpaced) {
  Result r = test::sample_receiver();
  r.host.os = "a\": b";
  auto j = nlohmann::json::parse(render_ntttcp_json(r));
  EXPECT_EQ(j["ntttcpr"]["os"], "a\": b");
}

}  // namespace
}  // namespace xttcp
