// A small XML element tree and its writer, for the NTttcp-compatible result files (-x, -xml).
// The output is what the originals' fprintf calls produce: no declaration, one element per line,
// tab indentation, an element holding only text on one line (<realtime metric="s">1.0</realtime>),
// "\n" line ends and a final "\n". Escaping: text escapes & < > and attribute values & < " as
// entities; control characters other than tab, CR and LF become &#N; (in attributes all of them),
// byte for byte what pugixml 1.13 wrote before (its format_indent with "\t").
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xttcp {

class XmlElement {
 public:
  explicit XmlElement(std::string name) : name_(std::move(name)) {}

  // Appends an attribute (written in the order added).
  XmlElement& attribute(std::string name, std::string value);
  // Appends a child element and returns it (references stay valid as more are added).
  XmlElement& child(std::string name);
  // Appends a child holding one text value, with an optional metric="..." attribute.
  XmlElement& leaf(std::string name, std::string text, const char* metric = nullptr);
  // Sets the element's text; an element has text or children, not both.
  void text(std::string value) { text_ = std::move(value); }

  // The element and everything under it, ending in "\n". An element with neither text nor
  // children is written <name></name>, as the originals write an empty value.
  std::string render() const;

 private:
  void render_into(std::string& out, int depth) const;

  std::string name_;
  std::vector<std::pair<std::string, std::string>> attributes_;
  std::optional<std::string> text_;
  std::deque<XmlElement> children_;
};

std::string xml_escape_text(std::string_view text);
std::string xml_escape_attribute(std::string_view value);

}  // namespace xttcp
