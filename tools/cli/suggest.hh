// "Did you mean ...?" for mistyped option names (fio's habit): the closest known spelling by
// edit distance, when it is close enough to be a plausible typo.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xttcp {

// Levenshtein distance (insert, delete, substitute each cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `typed`, if its distance is small for its length (at most 1 for
// short words, about a third of the length for longer ones). Ties keep the earlier candidate.
std::optional<std::string> closest_match(std::string_view typed,
                                         const std::vector<std::string>& candidates);

// Web pages and word processors print "-u" as "–u" (en dash) and "--json" as "—json" (em
// dash): a word whose leading dashes include such a dash (U+2010..U+2015, U+2212 minus, U+FE63,
// U+FF0D, in UTF-8; "–u", "-–json") is an option typed with the wrong character. Returns the
// one-line refusal that names the character and what to type ("'–u' starts with a typographic
// dash (U+2013 EN DASH), not the ASCII '-': type '-u'"), or nullopt when its leading dashes are
// all ASCII. `is_long_name("json")` says whether --json is a long option of the dialect: a
// single dash before such a name is taken for "--" (an em dash often replaced two hyphens).
std::optional<std::string> typographic_dash_error(
    std::string_view word, const std::function<bool(std::string_view)>& is_long_name);

}  // namespace xttcp
