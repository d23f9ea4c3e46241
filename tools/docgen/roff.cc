#include "tools/docgen/roff.hh"

namespace xttcp::roff {

std::string escape(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = c == '\n';
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  return out;
}

std::string bold(std::string_view text) { return "\\fB" + escape(text) + "\\fR"; }
std::string italic(std::string_view text) { return "\\fI" + escape(text) + "\\fR"; }

}  // namespace xttcp::roff
