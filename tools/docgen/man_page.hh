// xttcp(1), rendered from the option tables of both dialects (tools/cli/linux_options.cc,
// windows_options.cc) and the help facts (tools/cli/help_facts.cc): the same source as --help.
#pragma once

#include <string>
#include <string_view>

namespace xttcp {

// `doc_dir`: where the documents are installed, named under SEE ALSO.
std::string render_man_page(std::string_view doc_dir);

}  // namespace xttcp
