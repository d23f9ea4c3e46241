// The NTttcp-for-Windows XML renderer: byte-for-byte against the reference samples and against
// golden files (regenerate with XTTCP_UPDATE_GOLDEN=1 meson test unit-report).
#include "engine/report/windows_xml.hh"

#include <gtest/gtest.h>

#include <pugixml.hpp>

#include "tests/unit/report/golden.hh"
#include "tests/unit/report/windows_sample_results.hh"

namespace xttcp {
namespace {

using test::expect_golden;
using test::read_sample;

std::string without_carriage_returns(std::string text) {
  std::erase(text, '\r');
  return text;
}

std::string parameter(const std::string& xml, const char* name) {
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_string(xml.c_str())) << xml;
  pugi::xml_node node = doc.first_child().child("parameters").child(name);
  return node ? node.text().get() : "<missing>";
}

TEST(WindowsXml, SenderMatchesSample) {
  auto sample = read_sample("windows-sender.xml");
  if (!sample) GTEST_SKIP() << "reference samples not available";
  EXPECT_EQ(without_carriage_returns(*sample),
            render_windows_xml(test::sample_windows_sender_xml()));
}

TEST(WindowsXml, ReceiverMatchesSample) {
  auto sample = read_sample("windows-receiver.xml");
  if (!sample) GTEST_SKIP() << "reference samples not available";
  EXPECT_EQ(without_carriage_returns(*sample),
            render_windows_xml(test::sample_windows_receiver_xml()));
}

// The UDP sample's DPC count went backwards under Wine (negative rates), which no counter of
// ours can reproduce: everything else, line by line.
TEST(WindowsXml, UdpReceiverMatchesSampleExceptDpcs) {
  auto sample = read_sample("windows-udp-receiver.xml");
  if (!sample) GTEST_SKIP() << "reference samples not available";
  // The window behind the sample's "5.023580" s and "1164479.6" Bps.
  Result r = test::windows_base("-r -u -m 2,*,127.0.0.1 -t 5 -xml F", 5849856 / 1164479.6);
  r.total_bytes = 5849856;  // 45702 datagrams of 128 bytes
  r.total_operations = 45702;
  r.threads = {test::thread_row(0, 0, 2929792, 22889), test::thread_row(1, 0, 2920064, 22813)};
  r.transport = TransportCounters{53843, 45664, 8177};
  r.interrupts = Interrupts{"", 0};
  r.dpcs = 0;
  test::set_cpu(r, 82.610, 2973.885);
  auto expected = test::split_lines(without_carriage_returns(*sample));
  auto actual = test::split_lines(render_windows_xml(r));
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i].find("dpc") != std::string::npos) continue;
    if (expected[i].find("thread index") != std::string::npos) continue;
    // Per-thread throughput: the sample's exact window is not recoverable from 3 decimals.
    if (expected[i].starts_with("\t\t<throughput")) continue;
    EXPECT_EQ(expected[i], actual[i]) << "line " << i + 1;
  }
}

TEST(WindowsXml, SenderGolden) {
  expect_golden("windows-sender.xml", render_windows_xml(test::sample_windows_sender_xml()));
}

TEST(WindowsXml, UnavailableFiguresAreNaGolden) {
  const std::string xml = render_windows_xml(test::linux_windows_receiver());
  expect_golden("windows-receiver-linux.xml", xml);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(xml.c_str()));
  pugi::xml_node root = doc.child("ntttcpr");
  EXPECT_STREQ(root.attribute("computername").value(), "rx<&>");  // escaped in the text
  EXPECT_STREQ(root.child("dpcs").text().get(), "NA");
  EXPECT_STREQ(root.child("packets_sent").text().get(), "NA");
  EXPECT_STREQ(root.child("errors").text().get(), "NA");
  EXPECT_STREQ(root.child("packets_retransmitted").text().get(), "0");
  EXPECT_STREQ(root.child("threads_avg_bytes_per_compl").text().get(), "NA");
  EXPECT_STREQ(root.child("avg_bytes_per_compl").text().get(), "65536.000");
  EXPECT_STREQ(root.child("cpu").text().get(), "37.500");
}

TEST(WindowsXml, ParametersInMillisecondsAndWindowsDefaults) {
  const std::string xml = render_windows_xml(test::linux_windows_receiver());
  EXPECT_EQ(parameter(xml, "run_time"), "10000");
  EXPECT_EQ(parameter(xml, "warmup_time"), "2000");
  EXPECT_EQ(parameter(xml, "cooldown_time"), "1000");
  EXPECT_EQ(parameter(xml, "dash_n_timeout"), "10800000");
  EXPECT_EQ(parameter(xml, "port"), "6004");  // base + 3 threads
  EXPECT_EQ(parameter(xml, "no_sync"), "True");
  EXPECT_EQ(parameter(xml, "max_active_threads"), "3");
  EXPECT_EQ(parameter(xml, "sender_name"), "");
  EXPECT_EQ(parameter(xml, "wait_timeout_milliseconds"), "600000");
}

TEST(WindowsXml, EveryWindowsOptionReachesItsParameter) {
  Result r = test::sample_windows_sender_xml();
  r.spec = test::windows_spec(
      "-s -m 2,*,10.0.0.1 -sp -a 4 -w -rb 1m -to 0 -nic 10.0.0.9 -thr 1000 -n 500 -t 30 -lm -d "
      "-v -6 -nsb -l 8k -xml");
  const std::string xml = render_windows_xml(r);
  EXPECT_EQ(parameter(xml, "send_socket_buff"), "0");  // -a 4 without -sb
  EXPECT_EQ(parameter(xml, "recv_socket_buff"), "1048576");
  EXPECT_EQ(parameter(xml, "port"), "5001");  // sender threads with -sp use the base port
  EXPECT_EQ(parameter(xml, "sync_port"), "True");
  EXPECT_EQ(parameter(xml, "wait_timeout_milliseconds"), "-1");  // INFINITE as %d
  EXPECT_EQ(parameter(xml, "async"), "True");
  EXPECT_EQ(parameter(xml, "wsa"), "True");
  EXPECT_EQ(parameter(xml, "verbose"), "True");
  EXPECT_EQ(parameter(xml, "use_ipv6"), "True");
  EXPECT_EQ(parameter(xml, "verify_data"), "True");
  EXPECT_EQ(parameter(xml, "run_time"), "0");  // count mode
  EXPECT_EQ(parameter(xml, "dash_n_timeout"), "30000");
  EXPECT_EQ(parameter(xml, "bind_sender"), "True");
  EXPECT_EQ(parameter(xml, "sender_name"), "10.0.0.9");
  EXPECT_EQ(parameter(xml, "throughput_Bpms"), "1024");
  EXPECT_EQ(parameter(xml, "latency_measurement"), "True");
  EXPECT_EQ(parameter(xml, "no_stdio_buffer"), "True");
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(xml.c_str()));
  pugi::xml_node root = doc.child("ntttcps");
  EXPECT_STREQ(root.child("bufferCount").text().get(), "500");
  EXPECT_STREQ(root.child("bufferLen").text().get(), "8192");
  EXPECT_STREQ(root.child("io").text().get(), "4");
  // -lm without measured latencies: the elements are there, with "NA".
  EXPECT_STREQ(root.child("thread").child("avg_latency").text().get(), "NA");
  EXPECT_STREQ(root.child("max_latency").text().get(), "NA");
}

TEST(WindowsXml, UdpAndCoalescingParameters) {
  Result r = test::sample_windows_receiver_xml();
  r.spec = test::windows_spec("-r -u -uro -m 1,*,* -t 5");
  const std::string xml = render_windows_xml(r);
  EXPECT_EQ(parameter(xml, "udp"), "True");
  EXPECT_EQ(parameter(xml, "udp_receive_coalescing"), "1");
  r.spec = test::windows_spec("-s -u -uso 1400 -uc -m 1,*,10.0.0.1 -t 5");
  r.role = Role::sender;
  const std::string sender = render_windows_xml(r);
  EXPECT_EQ(parameter(sender, "udp_uso_size"), "1400");
  EXPECT_EQ(parameter(sender, "udp_unconnected"), "True");
}

TEST(WindowsXml, HidePerThreadDropsThreadElements) {
  Result r = test::sample_windows_sender_xml();
  r.spec.windows.hide_per_thread = true;
  EXPECT_EQ(render_windows_xml(r).find("<thread "), std::string::npos);
}

TEST(WindowsXml, SamplesWrapEveryBlockGolden) {
  Result first = test::sample_windows_sender_xml();
  first.spec = test::windows_spec("-s -m 2,*,127.0.0.1 -t 4 -sam 2 -hpt -lm");
  for (ThreadResult& t : first.threads) t.latency = IoLatency{5000, 1000, 9000};
  Result second = first;
  second.total_bytes /= 2;
  second.duration_s = 2.0;
  const std::string xml = render_windows_xml_samples({first, second});
  EXPECT_TRUE(xml.starts_with("<samples>\n<ntttcps "));
  EXPECT_TRUE(xml.ends_with("</ntttcps>\n</samples>\n"));
  expect_golden("windows-sender-samples.xml", xml);
}

}  // namespace
}  // namespace xttcp
