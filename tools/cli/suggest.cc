#include "tools/cli/suggest.hh"

#include <algorithm>
#include <numeric>

namespace xttcp {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // One row of the dynamic-programming table is enough.
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_match(std::string_view typed,
                                         const std::vector<std::string>& candidates) {
  const std::size_t allowed = std::max<std::size_t>(1, typed.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = allowed + 1;
  for (const std::string& candidate : candidates) {
    std::size_t distance = edit_distance(typed, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

namespace {

struct TypographicDash {
  std::string_view utf8;
  const char* name;
};

constexpr TypographicDash typographic_dashes[] = {
    {"\xE2\x80\x90", "U+2010 HYPHEN"},
    {"\xE2\x80\x91", "U+2011 NON-BREAKING HYPHEN"},
    {"\xE2\x80\x92", "U+2012 FIGURE DASH"},
    {"\xE2\x80\x93", "U+2013 EN DASH"},
    {"\xE2\x80\x94", "U+2014 EM DASH"},
    {"\xE2\x80\x95", "U+2015 HORIZONTAL BAR"},
    {"\xE2\x88\x92", "U+2212 MINUS SIGN"},
    {"\xEF\xB9\xA3", "U+FE63 SMALL HYPHEN-MINUS"},
    {"\xEF\xBC\x8D", "U+FF0D FULLWIDTH HYPHEN-MINUS"},
};

const TypographicDash* typographic_dash_at(std::string_view text) {
  for (const TypographicDash& dash : typographic_dashes)
    if (text.starts_with(dash.utf8)) return &dash;
  return nullptr;
}

}  // namespace

std::optional<std::string> typographic_dash_error(
    std::string_view word, const std::function<bool(std::string_view)>& is_long_name) {
  // The leading run of dashes, typographic or ASCII, then the name.
  const TypographicDash* first = nullptr;
  std::size_t dashes = 0;
  std::string_view name = word;
  while (!name.empty()) {
    if (name.front() == '-') {
      name.remove_prefix(1);
    } else if (const TypographicDash* dash = typographic_dash_at(name)) {
      name.remove_prefix(dash->utf8.size());
      if (first == nullptr) first = dash;
    } else {
      break;
    }
    ++dashes;
  }
  if (first == nullptr) return std::nullopt;
  const bool long_form = dashes >= 2 || (name.size() > 1 && is_long_name(name));
  const bool at_start = typographic_dash_at(word) != nullptr;
  // Appended piece by piece: GCC 12's "literal" + std::string&& trips a false -Wrestrict.
  std::string message = "'";
  message.append(word).append("' ").append(at_start ? "starts with" : "has among its dashes");
  message.append(" a typographic dash (").append(first->name).append("), not the ASCII '-'");
  if (name.empty()) return message;
  message.append(": type '").append(long_form ? "--" : "-").append(name).append("'");
  return message;
}

}  // namespace xttcp
