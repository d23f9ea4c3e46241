// NTTTCP-for-Linux XML files read back with pugixml, an independent parser: the same elements
// and attributes, in the same order, as the original's own files in reference/samples. Built
// where pugixml is (Linux); ntttcp_files_test.cc compares the bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

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

// Every element outside <parameters> that holds text holds a finite number (the one text is
// <os>), even when nothing was measured: readers convert them all.
TEST(NtttcpXml, EveryFigureIsANumberWhateverWasMeasured) {
  for (const Result& r : {test::sample_sender_verbose(), test::sample_receiver(),
                          test::sender_that_measured_nothing()}) {
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_string(render_ntttcp_xml(r).c_str()));
    int leaves = 0;
    for (pugi::xpath_node found : doc.select_nodes("//*[not(*)]")) {
      pugi::xml_node node = found.node();
      const std::string name = node.name();
      if (std::string_view(node.parent().name()) == "parameters" || name == "os") continue;
      const char* text = node.text().get();
      char* end = nullptr;
      const double value = std::strtod(text, &end);
      EXPECT_TRUE(end != text && *end == '\0' && std::isfinite(value))
          << "<" << name << " metric=\"" << node.attribute("metric").value() << "\"> holds '"
          << text << "'";
      ++leaves;
    }
    EXPECT_GT(leaves, 30);
  }
}

}  // namespace
}  // namespace xttcp
