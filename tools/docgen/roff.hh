// Text into roff (man(7)) source: escapes that keep words as written.
#pragma once

#include <string>
#include <string_view>

namespace xttcp::roff {

// `text` as roff body text: '\' as \e, '-' as \- (a hyphen-minus, as in option names), and a
// line that would start with '.' or '\'' (a request) protected with \&.
std::string escape(std::string_view text);

// \fBbold\fR, \fIitalic\fR of escaped text.
std::string bold(std::string_view text);
std::string italic(std::string_view text);

}  // namespace xttcp::roff
