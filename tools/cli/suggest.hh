// "Did you mean ...?" for mistyped option names (fio's habit): the closest known spelling by
// edit distance, when it is close enough to be a plausible typo.
#pragma once

#include <cstddef>
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

}  // namespace xttcp
