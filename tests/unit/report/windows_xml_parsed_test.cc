// The NTttcp-for-Windows XML read back with pugixml, an independent parser: escaping, numbers
// (0 for unavailable figures, as NTttcp writes them) in every figure, and every Windows option
// in its <parameters> element. Built where
// pugixml is (Linux); the byte-for-byte checks are in windows_xml_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include <pugixml.hpp>

#include "engine/report/windows_xml.hh"
#include "tests/unit/report/golden.hh"
#include "tests/unit/report/windows_sample_results.hh"

namespace xttcp {
namespace {

std::string parameter(const std::string& xml, const char* name) {
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_string(xml.c_str())) << xml;
  pugi::xml_node node = doc.first_child().child("parameters").child(name);
  return node ? node.text().get() : "<missing>";
}

TEST(WindowsXmlParsed, UnavailableFiguresAreZeroAsInNtttcp) {
  const std::string xml = render_windows_xml(test::linux_windows_receiver());
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(xml.c_str()));
  pugi::xml_node root = doc.child("ntttcpr");
  EXPECT_STREQ(root.attribute("computername").value(), "rx<&>");  // escaped in the text
  EXPECT_STREQ(root.child("dpcs").text().get(), "0.000");
  EXPECT_STREQ(root.child("avg_packets_per_dpc").text().get(), "0.000");
  EXPECT_STREQ(root.child("interrupts").text().get(), "0.000");
  EXPECT_STREQ(root.child("avg_packets_per_interrupt").text().get(), "0.000");
  EXPECT_STREQ(root.child("avg_frame_size").text().get(), "0.000");
  EXPECT_STREQ(root.child("packets_sent").text().get(), "0");
  EXPECT_STREQ(root.child("packets_received").text().get(), "0");
  EXPECT_STREQ(root.child("errors").text().get(), "0");
  EXPECT_STREQ(root.child("packets_retransmitted").text().get(), "0");
  EXPECT_STREQ(root.child("threads_avg_bytes_per_compl").text().get(), "0.000");
  EXPECT_STREQ(root.child("thread").child("avg_bytes_per_compl").text().get(), "0.000");
  EXPECT_STREQ(root.child("avg_bytes_per_compl").text().get(), "65536.000");
  EXPECT_STREQ(root.child("cpu").text().get(), "37.500");
}

// Every element outside <parameters> that holds text holds a finite number: VirtualClient and
// PerfKitBenchmarker convert them all and drop the whole result on a word.
void expect_numbers_only(const std::string& xml, const char* what) {
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(xml.c_str())) << what;
  struct Walker : pugi::xml_tree_walker {
    const char* what = nullptr;
    int leaves = 0;
    bool for_each(pugi::xml_node& node) override {
      if (node.type() != pugi::node_element) return true;
      for (pugi::xml_node child : node.children())
        if (child.type() == pugi::node_element) return true;  // not a leaf
      if (std::string_view(node.parent().name()) == "parameters") return true;
      const char* text = node.text().get();
      char* end = nullptr;
      const double value = std::strtod(text, &end);
      EXPECT_TRUE(end != text && *end == '\0' && std::isfinite(value))
          << what << ": <" << node.name() << " metric=\"" << node.attribute("metric").value()
          << "\"> holds '" << text << "'";
      ++leaves;
      return true;
    }
  } walker;
  walker.what = what;
  doc.traverse(walker);
  EXPECT_GT(walker.leaves, 20) << what;
}

TEST(WindowsXmlParsed, EveryFigureIsANumberWhateverWasMeasured) {
  expect_numbers_only(render_windows_xml(test::linux_windows_receiver()), "Linux receiver");
  // Nothing measured at all: no window, no bytes, no counters, no CPU, -lm without calls.
  Result nothing = test::windows_base("-s -m 2,*,10.0.0.1 -t 5 -lm", 0.0);
  nothing.threads = {test::thread_row(0, 0, 0, std::nullopt),
                     test::thread_row(1, 0, 0, std::nullopt)};
  nothing.host.cpu_mhz = 0;
  nothing.host.cpu_cores = 0;
  expect_numbers_only(render_windows_xml(nothing), "nothing measured");
  nothing.role = Role::receiver;
  nothing.spec = test::windows_spec("-r -u -m 1,*,* -n 10 -hpt");
  expect_numbers_only(render_windows_xml(nothing), "UDP receiver, count mode, -hpt");
  // Transport counters without interrupts or DPCs, and the reverse.
  Result some = test::sample_windows_sender_xml();
  some.interrupts.reset();
  some.dpcs.reset();
  expect_numbers_only(render_windows_xml(some), "no interrupts, no DPCs");
  some = test::sample_windows_receiver_xml();
  some.transport.reset();
  expect_numbers_only(render_windows_xml_samples({some, some}), "no transport, -sam");
}

TEST(WindowsXmlParsed, ParametersInMillisecondsAndWindowsDefaults) {
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

TEST(WindowsXmlParsed, EveryWindowsOptionReachesItsParameter) {
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
  // -lm without measured latencies: the elements are there, with 0.
  EXPECT_STREQ(root.child("thread").child("avg_latency").text().get(), "0");
  EXPECT_STREQ(root.child("max_latency").text().get(), "0");
}

TEST(WindowsXmlParsed, UdpAndCoalescingParameters) {
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

}  // namespace
}  // namespace xttcp
