#include "tools/cli/help_layout.hh"

#include <sstream>

namespace xttcp {

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::istringstream stream{std::string(text)};
  std::string word;
  while (stream >> word) words.push_back(word);
  return words;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  return lines;
}

void append_help_row(std::string& out, std::string left, const std::vector<std::string>& tokens,
                     std::size_t column, std::size_t width) {
  if (left.size() + 1 > column) {
    out += left + "\n";
    left.clear();
  }
  left.resize(column, ' ');
  std::string line = std::move(left);
  bool line_has_words = false;
  for (const std::string& token : tokens) {
    if (line_has_words && line.size() + 1 + token.size() > width) {
      out += line + "\n";
      line.assign(column, ' ');
      line_has_words = false;
    }
    if (line_has_words) line += ' ';
    line += token;
    line_has_words = true;
  }
  out += line + "\n";
}

}  // namespace xttcp
