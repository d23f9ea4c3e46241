// xttcp-docgen: writes, from xttcp's own option tables, the documents the build installs:
//   xttcp-docgen man DOC_DIR     the man page xttcp(1) (DOC_DIR: where the docs are installed)
//   xttcp-docgen bash-completion the bash completion script
// Run by the build (tools/docgen/meson.build), never installed.
#include <cstdio>
#include <string>
#include <string_view>

#include "base/exit_codes.hh"
#include "tools/docgen/bash_completion.hh"
#include "tools/docgen/man_page.hh"

int main(int argc, char** argv) {
  using namespace xttcp;
  const std::string_view what = argc > 1 ? argv[1] : "";
  std::string text;
  if (what == "man" && argc == 3)
    text = render_man_page(argv[2]);
  else if (what == "bash-completion" && argc == 2)
    text = render_bash_completion();
  else {
    std::fprintf(stderr, "usage: xttcp-docgen man DOC_DIR | bash-completion\n");
    return exit_code::usage;
  }
  std::fputs(text.c_str(), stdout);
  return std::fflush(stdout) == 0 ? exit_code::success : exit_code::run_failed;
}
