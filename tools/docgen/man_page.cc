#include "tools/docgen/man_page.hh"

#include <fmt/format.h>

#include "tools/cli/help_facts.hh"
#include "tools/cli/linux_options.hh"
#include "tools/cli/option_table.hh"
#include "tools/cli/subcommands.hh"
#include "tools/cli/windows_options.hh"
#include "tools/docgen/roff.hh"
#include "xttcp_config.h"

namespace xttcp {

namespace {

// "-P, --ports N" with the names bold and the value italic.
std::string linux_tag(const OptionDef& def) {
  std::string tag;
  if (def.short_name != 0) tag += roff::bold(std::string("-") + def.short_name);
  if (def.short_name != 0 && !def.long_name.empty()) tag += ", ";
  if (!def.long_name.empty()) tag += roff::bold(fmt::format("--{}", def.long_name));
  if (def.value == ValueKind::required) tag += fmt::format(" {}", roff::italic(def.value_name));
  if (def.value == ValueKind::optional) tag += fmt::format(" [{}]", roff::italic(def.value_name));
  return tag;
}

std::string windows_tag(const WindowsOptionDef& def) {
  std::string tag = roff::bold(fmt::format("-{}", def.name));
  if (def.value == WindowsValue::required || def.value == WindowsValue::list)
    tag += fmt::format(" {}", roff::italic(def.value_name));
  if (def.value == WindowsValue::optional)
    tag += fmt::format(" [{}]", roff::italic(def.value_name));
  return tag;
}

std::string with_default(std::string text, std::string_view default_text) {
  if (!default_text.empty()) text += fmt::format(" [default: {}]", default_text);
  return text;
}

std::string linux_options_section(std::span<const OptionDef> table, OptionGroup group) {
  std::string out;
  for (const OptionDef& def : table) {
    if (def.group != group) continue;
    out += ".TP\n" + linux_tag(def) + "\n";
    out +=
        roff::escape(with_default(role_tag(def.roles) + std::string(def.help), def.default_text)) +
        "\n";
  }
  return out;
}

std::string paragraph(std::string_view text) {
  return fmt::format(".PP\n{}\n", roff::escape(text));
}

// The dialect's usage lines; with `commands`, each command's own line after them.
std::string synopsis(const DialectHelp& facts, bool commands = false) {
  std::string out = ".nf\n";
  for (const UsageLine& line : facts.usage) out += roff::escape(line.command) + "\n";
  if (commands)
    for (const SubcommandDoc& doc : subcommands()) out += roff::escape(doc.usage) + "\n";
  return out + ".fi\n";
}

std::string commands_section() {
  std::string out = ".SH COMMANDS\n";
  out += paragraph(
      "A command is the first word on the line, the same in every dialect; 'xttcp COMMAND "
      "--help' prints its options. A first word that is neither a command nor an option is "
      "refused (exit 2) with what was likely meant.");
  for (const SubcommandDoc& doc : subcommands())
    out += fmt::format(".TP\n{}\n{}\n", roff::bold(doc.usage), roff::escape(doc.summary));
  return out;
}

std::string usage_list(const DialectHelp& facts) {
  std::string out;
  for (const UsageLine& line : facts.usage) {
    if (line.meaning.empty()) continue;
    out += fmt::format(".TP\n{}\n{}\n", roff::bold(line.command), roff::escape(line.meaning));
  }
  return out;
}

std::string examples(const DialectHelp& facts) {
  std::string out;
  bool open = false;
  for (const HelpExample& example : facts.examples) {
    if (!example.label.empty()) {
      if (open) out += ".fi\n.RE\n";
      out += fmt::format(".PP\n{}:\n.RS\n.nf\n", roff::escape(example.label));
      open = true;
    }
    out += (example.is_command ? roff::bold(example.text) : roff::escape(example.text)) + "\n";
  }
  if (open) out += ".fi\n.RE\n";
  return out;
}

}  // namespace

std::string render_man_page(std::string_view doc_dir) {
  const DialectHelp& linux = linux_help_facts();
  const DialectHelp& windows = windows_help_facts();
  std::string out;
  out += ".\\\" Generated at build time by xttcp-docgen from xttcp's option tables; do not edit.\n";
  out += fmt::format(".TH XTTCP 1 \"\" \"xttcp {}\" \"User Commands\"\n", XTTCP_VERSION);
  out += ".nh\n.ad l\n";  // no hyphenation, ragged right: option names and values stay whole
  out +=
      ".SH NAME\nxttcp \\- network throughput test, compatible with NTTTCP\\-for\\-Linux and "
      "NTttcp for Windows\n";
  out += ".SH SYNOPSIS\n" + synopsis(linux, true);
  out += ".SH DESCRIPTION\n";
  out += paragraph(
      "xttcp measures network throughput between a receiver and a sender, over TCP or UDP, "
      "with kernel sockets (io_uring, epoll) or kernel bypass (DPDK). It takes the command lines "
      "of NTTTCP-for-Linux and of NTttcp for Windows (see NTTTCP FOR WINDOWS below), prints "
      "their console results, writes their result files and speaks their control protocols, so "
      "either end may be the original program.");
  out += usage_list(linux);
  out += paragraph(linux.syntax);
  out += commands_section();
  out += ".SH OPTIONS\n";
  out += ".SS \"NTTTCP\\-for\\-Linux options\"\n" +
         linux_options_section(linux_options(), OptionGroup::compatible);
  out += ".SS \"xttcp options\"\n" + linux_options_section(linux_options(), OptionGroup::native);
  out += ".SS General\n" + linux_options_section(linux_options(), OptionGroup::general);
  for (std::string_view note : linux.notes) out += paragraph(note);

  out += ".SH \"NTTTCP FOR WINDOWS\"\n" + synopsis(windows);
  out += paragraph(windows.usage_note);
  out += paragraph(windows.syntax);
  out += ".SS Options\n";
  for (const WindowsOptionDef& def : windows_options()) {
    if (def.apply == nullptr || def.name == "?") continue;
    out += ".TP\n" + windows_tag(def) + "\n" +
           roff::escape(with_default(std::string(def.help), def.default_text)) + "\n";
  }
  out += ".SS \"Refused (Windows\\-only or not implemented)\"\n";
  for (const WindowsOptionDef& def : windows_options()) {
    if (def.apply != nullptr) continue;
    out += fmt::format(".TP\n{}\n{}\n", roff::bold(fmt::format("-{}", def.name)),
                       roff::escape(def.refusal));
  }
  out += ".SS \"xttcp options (same as in the Linux dialect)\"\n" +
         linux_options_section(windows_native_options(), OptionGroup::native);
  for (std::string_view note : windows.notes) out += paragraph(note);

  out += ".SH \"EXIT STATUS\"\n";
  for (const ExitCodeDoc& exit : exit_code_docs())
    out += fmt::format(".TP\n.B {}\n{}\n", exit.code, roff::escape(exit.meaning));
  out += ".SH EXAMPLES\n" + examples(linux);
  out += ".SS \"NTttcp for Windows command line\"\n" + examples(windows);
  out += ".SH \"SEE ALSO\"\n";
  out += paragraph(fmt::format(
      "xttcp --help, xttcp --dialect windows --help, and the documents in {} (README.md and "
      "docs/: the native JSON result, UDP, hostile peers, the architecture).",
      doc_dir));
  return out;
}

}  // namespace xttcp
