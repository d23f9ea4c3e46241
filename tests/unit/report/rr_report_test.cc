// --rr results in the renderers (docs/rr.md): the console block of both roles and of both
// dialects' consoles, and the native JSON "rr" object (with its histogram), golden-tested and
// round-tripped; the spec's "rr" object round-trips too.
#include <gtest/gtest.h>

#include "engine/report/linux_console.hh"
#include "engine/report/native_json.hh"
#include "engine/report/rr_console.hh"
#include "engine/report/windows_console.hh"
#include "engine/run/rr_result.hh"
#include "tests/unit/report/golden.hh"
#include "tests/unit/report/sample_results.hh"

namespace xttcp {
namespace {

using test::expect_golden;
using test::join_lines;

Result rr_requester() {
  Result r = test::sample_sender_verbose();
  r.spec.rr.on = true;
  r.spec.rr.depth = 2;
  r.spec.workload.send_buffer = r.spec.workload.recv_buffer = 64;
  r.spec.rr.response_size = 256;
  HistogramCounts flow0, flow1;
  for (uint64_t i = 0; i < 1000; ++i) {
    flow0.record(20'000 + i * 10);
    flow1.record(30'000 + i * 100);
  }
  RrResult rr;
  rr.depth = 2;
  rr.clock = "TSC, 2596.1 MHz measured against CLOCK_MONOTONIC over 20 ms";
  rr.request_bytes = 64;
  rr.response_bytes = 256;
  rr.transactions = 2000;
  rr.transactions_per_s = 1000;
  rr.cpu_us_per_transaction = 12.5;
  rr.flows = {{0, 1000, 500, rr_latency(flow0)}, {1, 1000, 500, rr_latency(flow1)}};
  HistogramCounts total = flow0;
  total.merge(flow1);
  rr.latency = rr_latency(total);
  rr.sub_bucket_bits = histogram_layout::sub_bucket_bits;
  for (std::size_t i = 0; i < total.buckets.size(); ++i)
    if (total.buckets[i] > 0)
      rr.histogram.emplace_back(histogram_layout::lower_bound(i), total.buckets[i]);
  r.rr = rr;
  return r;
}

Result rr_responder() {
  Result r = test::sample_receiver();
  r.spec.rr.on = true;
  r.spec.rr.delay_us = 500;
  RrResult rr;
  rr.request_bytes = rr.response_bytes = 64;
  rr.delay_us = 500;
  rr.transactions = 1990;
  rr.transactions_per_s = 995;
  rr.cpu_us_per_transaction = 8.25;
  rr.flows = {{0, 1990, 995, {}}};
  r.rr = rr;
  return r;
}

TEST(RrReport, RequesterConsoleGolden) {
  expect_golden("rr-requester-extra.txt", join_lines(xttcp_extra_lines(rr_requester())));
}

TEST(RrReport, ResponderConsoleGolden) {
  expect_golden("rr-responder-extra.txt", join_lines(xttcp_extra_lines(rr_responder())));
}

TEST(RrReport, WindowsConsoleHasTheSameBlock) {
  Result r = rr_requester();
  r.spec.dialect = Dialect::windows;
  const std::string console = render_windows_console(r);
  EXPECT_NE(console.find("Request/response\n"), std::string::npos);
  EXPECT_NE(console.find(join_lines(rr_console_lines(r))), std::string::npos);
  EXPECT_EQ(render_windows_console(test::sample_receiver()).find("Request/response"),
            std::string::npos);
}

TEST(RrReport, NativeJsonGolden) {
  expect_golden("native-rr-requester.json", render_native_json(rr_requester()));
}

TEST(RrReport, NativeJsonRoundTripsTheRrObjectAndSpec) {
  for (const Result& original : {rr_requester(), rr_responder()}) {
    const std::string text = render_native_json(original);
    Expected<Result> parsed = parse_native_json(text);
    ASSERT_TRUE(parsed) << parsed.error().message;
    ASSERT_TRUE(parsed->rr);
    EXPECT_EQ(parsed->rr->transactions, original.rr->transactions);
    EXPECT_EQ(parsed->rr->histogram, original.rr->histogram);
    EXPECT_EQ(parsed->rr->latency.p99_ns, original.rr->latency.p99_ns);
    EXPECT_TRUE(parsed->spec.rr.on);
    EXPECT_EQ(parsed->spec.rr.depth, original.spec.rr.depth);
    EXPECT_EQ(parsed->spec.rr.response_size, original.spec.rr.response_size);
    EXPECT_EQ(parsed->spec.rr.delay_us, original.spec.rr.delay_us);
    EXPECT_EQ(text, render_native_json(*parsed));
  }
}

TEST(RrReport, StreamResultsHaveNoRrObject) {
  const std::string text = render_native_json(test::sample_receiver());
  EXPECT_EQ(text.find("\"rr\""), std::string::npos);
  EXPECT_EQ(join_lines(xttcp_extra_lines(test::sample_receiver())).find("rr transactions"),
            std::string::npos);
}

TEST(RrReport, ABadHistogramBucketIsRefusedNamingIt) {
  std::string text = render_native_json(rr_requester());
  const std::string key = "\"buckets\": [";
  const size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + key.size(), "\"x\",");
  Expected<Result> parsed = parse_native_json(text);
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().message.find("rr.histogram.buckets[]"), std::string::npos)
      << parsed.error().message;
}

}  // namespace
}  // namespace xttcp
