// A server's output for --get-server-output (engine/iperf3/server_output.hh): its lines of the
// test, or with -J its document, never more than a results message carries.
#include "engine/iperf3/server_output.hh"

#include <gtest/gtest.h>

namespace xttcp::iperf3 {
namespace {

TEST(ServerOutput, TheTestsLinesAsTheClientAskedThem) {
  ServerOutput output;
  output.add("Accepted connection from 127.0.0.1, port 34454");
  output.add("[ ID] Interval           Transfer     Bitrate");
  Results results;
  output.attach(std::nullopt, results);
  EXPECT_EQ(results.server_output_text,
            "Accepted connection from 127.0.0.1, port 34454\n"
            "[ ID] Interval           Transfer     Bitrate\n");
  EXPECT_FALSE(results.server_output_json);
}

TEST(ServerOutput, NotKeptWhenNotAsked) {
  ServerOutput output;
  output.add("Accepted connection from 127.0.0.1, port 34454");
  output.stop();
  output.add("[  5] local 127.0.0.1 port 5999 connected to 127.0.0.1 port 34466");
  Results results;
  output.attach(std::nullopt, results);
  EXPECT_EQ(results.server_output_text, "");
}

TEST(ServerOutput, BoundedByWhatAResultsMessageCarries) {
  ServerOutput output;
  const std::string line(1000, 'x');
  for (int i = 0; i < 4000; ++i) output.add(line);  // about 4 MB: past the bound
  Results results;
  output.attach(std::nullopt, results);
  ASSERT_TRUE(results.server_output_text);
  EXPECT_LE(results.server_output_text->size(), ServerOutput::max_bytes + 200);
  EXPECT_NE(results.server_output_text->find("more lines not sent"), std::string::npos);
}

TEST(ServerOutput, WithJsonTheDocumentSoFar) {
  ServerOutput output;
  std::optional<JsonDocument> json;
  json.emplace(one_direction(false, 1));
  Results results;
  output.attach(json, results);
  ASSERT_TRUE(results.server_output_json);
  EXPECT_EQ(results.server_output_json->front(), '{');
  EXPECT_FALSE(results.server_output_text);
}

}  // namespace
}  // namespace xttcp::iperf3
