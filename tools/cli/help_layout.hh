// The two-column layout of both dialects' help: an option's spelling, then its words wrapped
// to a width and indented to a column.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace xttcp {

std::vector<std::string> split_words(std::string_view text);
// The lines of `text` without their newlines; none for "".
std::vector<std::string_view> split_lines(std::string_view text);

// Appends the left column `left` and the `tokens` (words, or phrases that must not be split)
// after it, wrapping at `width` and indenting continuation lines to `column`. A left column
// too wide for `column` gets a line of its own.
void append_help_row(std::string& out, std::string left, const std::vector<std::string>& tokens,
                     std::size_t column, std::size_t width);

}  // namespace xttcp
