// NTTTCP-for-Linux XML files read back with pugixml, an independent parser: the same elements
// and attributes, in the same order, as the original's own files in reference/samples. Built
// where pugixml is (Linux); ntttcp_files_test.cc compares the bytes.
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include "engine/report/ntttcp_xml.hh"
#include "tests/unit/report/golden.hh"
#include "tests/unit/report/sample_results.hh"

namespace xttcp {
namespace {

using test::read_sample;

// Element names with their metric/index attribute, depth first: the order a reader relies on.
std::vector<std::string> xml_shape(const std::string& text) {
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_string(text.c_str()));
  std::vector<std::string> shape;
  struct Walker : pugi::xml_tree_walker {
    std::vector<std::string>* out;
    bool for_each(pugi::xml_node& node) override {
      if (node.type() != pugi::node_element) return true;
      std::string item = std::string(depth(), ' ') + node.name();
      for (pugi::xml_attribute a : node.attributes()) item += std::string(" ") + a.name();
      if (auto metric = node.attribute("metric")) item += std::string("=") + metric.value();
      out->push_back(item);
      return true;
    }
  } walker;
  walker.out = &shape;
  doc.traverse(walker);
  return shape;
}

TEST(NtttcpXml, ReceiverEqualsSample) {
  auto sample = read_sample("linux-receiver.xml");
  if (!sample) GTEST_SKIP() << "reference samples not available";
  std::string ours = render_ntttcp_xml(test::sample_receiver());
  EXPECT_EQ(xml_shape(*sample), xml_shape(ours));
  EXPECT_EQ(*sample, ours);
}

TEST(NtttcpXml, SenderVerboseEqualsSample) {
  auto sample = read_sample("linux-sender-verbose.xml");
  if (!sample) GTEST_SKIP() << "reference samples not available";
  std::string ours = render_ntttcp_xml(test::sample_sender_verbose());
  EXPECT_EQ(xml_shape(*sample), xml_shape(ours));
  EXPECT_EQ(*sample, ours);
}

}  // namespace
}  // namespace xttcp
