#include "engine/report/xml_writer.hh"

namespace xttcp {

namespace {

// Control characters (below 32) as pugixml writes them: "&#" and always two decimal digits.
void append_control(std::string& out, unsigned char c) {
  out += "&#";
  out += static_cast<char>('0' + c / 10);
  out += static_cast<char>('0' + c % 10);
  out += ';';
}

}  // namespace

std::string xml_escape_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\t':
      case '\n':
      case '\r': out += ch; break;
      default:
        if (c < 32)
          append_control(out, c);
        else
          out += ch;
    }
  }
  return out;
}

std::string xml_escape_attribute(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '"': out += "&quot;"; break;
      default:
        if (c < 32)
          append_control(out, c);
        else
          out += ch;
    }
  }
  return out;
}

XmlElement& XmlElement::attribute(std::string name, std::string value) {
  attributes_.emplace_back(std::move(name), std::move(value));
  return *this;
}

XmlElement& XmlElement::child(std::string name) { return children_.emplace_back(std::move(name)); }

XmlElement& XmlElement::leaf(std::string name, std::string text, const char* metric) {
  XmlElement& node = child(std::move(name));
  if (metric != nullptr) node.attribute("metric", metric);
  node.text(std::move(text));
  return node;
}

std::string XmlElement::render() const {
  std::string out;
  render_into(out, 0);
  return out;
}

void XmlElement::render_into(std::string& out, int depth) const {
  out.append(static_cast<std::size_t>(depth), '\t');
  out += '<';
  out += name_;
  for (const auto& [name, value] : attributes_) {
    out += ' ';
    out += name;
    out += "=\"";
    out += xml_escape_attribute(value);
    out += '"';
  }
  out += '>';
  if (children_.empty()) {
    if (text_) out += xml_escape_text(*text_);
  } else {
    out += '\n';
    for (const XmlElement& element : children_) element.render_into(out, depth + 1);
    out.append(static_cast<std::size_t>(depth), '\t');
  }
  out += "</";
  out += name_;
  out += ">\n";
}

}  // namespace xttcp
