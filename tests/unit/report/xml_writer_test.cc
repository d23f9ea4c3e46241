// The XML writer behind the NTttcp-compatible XML files: layout and escaping. The expected bytes
// are what pugixml 1.13 wrote for the same tree (format_indent, "\t", no declaration), which the
// golden files of both XML renderers pin as well.
#include "engine/report/xml_writer.hh"

#include <gtest/gtest.h>

namespace xttcp {
namespace {

TEST(XmlWriter, LayoutTabsAndOneLineLeaves) {
  XmlElement root("ntttcpr");
  root.attribute("computername", "rx").attribute("version", "5.40");
  XmlElement& parameters = root.child("parameters");
  parameters.leaf("port", "5001");
  parameters.leaf("sender_name", "");
  XmlElement& thread = root.child("thread");
  thread.attribute("index", "0");
  thread.leaf("realtime", "1.000", "s");
  root.leaf("total_bytes", "2.000000", "MB");
  EXPECT_EQ(root.render(),
            "<ntttcpr computername=\"rx\" version=\"5.40\">\n"
            "\t<parameters>\n"
            "\t\t<port>5001</port>\n"
            "\t\t<sender_name></sender_name>\n"
            "\t</parameters>\n"
            "\t<thread index=\"0\">\n"
            "\t\t<realtime metric=\"s\">1.000</realtime>\n"
            "\t</thread>\n"
            "\t<total_bytes metric=\"MB\">2.000000</total_bytes>\n"
            "</ntttcpr>\n");
}

TEST(XmlWriter, EscapesText) {
  EXPECT_EQ(xml_escape_text("a<b>&c\"d'e"), "a&lt;b&gt;&amp;c\"d'e");
  EXPECT_EQ(xml_escape_text("tab\tcr\rlf\n"), "tab\tcr\rlf\n");
  EXPECT_EQ(xml_escape_text(std::string("\x01\x1f", 2)), "&#01;&#31;");
  EXPECT_EQ(xml_escape_text("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 passes through
}

TEST(XmlWriter, EscapesAttributes) {
  EXPECT_EQ(xml_escape_attribute("a<b>&c\"d'e"), "a&lt;b>&amp;c&quot;d'e");
  EXPECT_EQ(xml_escape_attribute("tab\tlf\n"), "tab&#09;lf&#10;");
  XmlElement root("r");
  root.attribute("computername", "rx<&>");
  root.leaf("os", "Linux <a&b>");
  EXPECT_EQ(root.render(),
            "<r computername=\"rx&lt;&amp;>\">\n\t<os>Linux &lt;a&amp;b&gt;</os>\n</r>\n");
}

}  // namespace
}  // namespace xttcp
