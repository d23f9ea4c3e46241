#include "tools/docgen/bash_completion.hh"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <string>
#include <vector>

#include "io_backends/registry.hh"
#include "tools/cli/linux_options.hh"
#include "tools/cli/option_table.hh"
#include "tools/cli/subcommands.hh"
#include "tools/cli/windows_options.hh"

namespace xttcp {

namespace {

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

// Every spelling of the Linux dialect's options, and those that name a file.
void linux_words(std::vector<std::string>& options, std::vector<std::string>& files) {
  for (const OptionDef& def : linux_options()) {
    std::vector<std::string> names;
    if (def.short_name != 0) names.push_back(std::string("-") + def.short_name);
    if (!def.long_name.empty()) names.push_back(fmt::format("--{}", def.long_name));
    for (const std::string& name : names) {
      options.push_back(name);
      if (def.value != ValueKind::none && def.value_name == "FILE") files.push_back(name);
    }
  }
}

void windows_words(std::vector<std::string>& options, std::vector<std::string>& files) {
  for (const WindowsOptionDef& def : windows_options()) {
    // Refused options are not offered; nor is -? (-h's twin), a glob character to bash.
    if (def.apply == nullptr || def.name == "?") continue;
    options.push_back(fmt::format("-{}", def.name));
    if (def.value != WindowsValue::none && def.value_name == "FILE")
      files.push_back(fmt::format("-{}", def.name));
  }
  for (const OptionDef& def : windows_native_options()) {
    options.push_back(fmt::format("--{}", def.long_name));
    if (def.value != ValueKind::none && def.value_name == "FILE")
      files.push_back(fmt::format("--{}", def.long_name));
  }
  options.insert(options.end(), {"--help", "--version"});
}

}  // namespace

std::string render_bash_completion() {
  std::vector<std::string> linux_options_words, linux_files, windows_options_words, windows_files;
  linux_words(linux_options_words, linux_files);
  windows_words(windows_options_words, windows_files);
  std::vector<std::string> backends{std::string(auto_backend)};
  for (const auto& backend : all_backends()) backends.emplace_back(backend->name());
  // The commands, from the one table --help and the man page read (a command named once).
  std::vector<std::string> commands;
  for (const SubcommandDoc& doc : subcommands()) commands.emplace_back(doc.name);
  std::set<std::string> all_files(linux_files.begin(), linux_files.end());
  all_files.insert(windows_files.begin(), windows_files.end());

  return fmt::format(
      R"(# bash completion for xttcp. Generated at build time by xttcp-docgen from xttcp's option
# tables (tools/cli/linux_options.cc, windows_options.cc); do not edit.
_xttcp() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}}
  local options='{}'
  if [[ $COMP_LINE =~ --dialect[=[:space:]]+windows ]]; then
    options='{}'
  fi
  options+=' --dialect'
  [[ $prev == = ]] && prev=${{COMP_WORDS[COMP_CWORD-2]}}
  [[ $cur == = ]] && cur=''
  case $prev in
    --backend) COMPREPLY=($(compgen -W '{}' -- "$cur")); return ;;
    --dialect) COMPREPLY=($(compgen -W 'linux windows' -- "$cur")); return ;;
    {}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
  elif ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W '{}' -- "$cur"))
  fi
}}
complete -F _xttcp xttcp
)",
      join(linux_options_words), join(windows_options_words), join(backends),
      fmt::join(all_files, "|"), join(commands));
}

}  // namespace xttcp
