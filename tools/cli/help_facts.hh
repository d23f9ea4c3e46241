// The parts of both dialects' help that are not option rows: usage lines, the paragraphs on how
// a line is read, examples and exit codes. --help renders them as text and xttcp-docgen
// (tools/docgen/) as the man page, so the two say the same from one copy.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace xttcp {

struct UsageLine {
  std::string_view command;  // "xttcp -s ADDR [options]"
  std::string_view meaning;  // "sender, connecting to the receiver at ADDR"; "" = none
};

// An example: `label` ("receiver") starts a group; rows with an empty label continue it.
struct HelpExample {
  std::string_view label;
  std::string_view text;  // a command line, or (see `is_command`) a sentence
  bool is_command = true;
};

struct ExitCodeDoc {
  int code;
  std::string_view meaning;
};

struct DialectHelp {
  std::string_view title;  // after "xttcp VERSION - "
  std::span<const UsageLine> usage;
  std::string_view usage_note;              // a paragraph after the usage lines; "" = none
  std::string_view syntax;                  // how the line is read (a paragraph)
  std::span<const std::string_view> notes;  // paragraphs after the options
  std::span<const HelpExample> examples;
};

const DialectHelp& linux_help_facts();
const DialectHelp& windows_help_facts();
std::span<const ExitCodeDoc> exit_code_docs();

// Text renderings shared by both --help texts.
std::string render_usage(std::span<const UsageLine> usage);
std::string render_examples(std::span<const HelpExample> examples);
std::string render_exit_codes();

}  // namespace xttcp
