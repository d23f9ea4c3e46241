// The NTttcp-for-Windows dialect: its option table (windows_options.cc) read word by word the
// way the original's ProcessArgs reads it (case-insensitive names, -a/-xml with an optional
// next word, -m with a list), then the original's checks (VerifyArgs) and xttcp's own, once the
// whole line is read. xttcp's native long options (--backend, --json, ...) are accepted too:
// their rows are the Linux dialect's, so both grammars write the same TestSpec fields.
#include <algorithm>

#include <fmt/format.h>

#include "tools/cli/command.hh"
#include "tools/cli/defaults_profile.hh"
#include "tools/cli/cpu_count.hh"
#include "tools/cli/help_facts.hh"
#include "tools/cli/help_layout.hh"
#include "tools/cli/linux_options.hh"
#include "tools/cli/option_table.hh"
#include "tools/cli/output_paths.hh"
#include "tools/cli/subcommands.hh"
#include "tools/cli/suggest.hh"
#include "tools/cli/topology_request.hh"
#include "tools/cli/windows_options.hh"
#include "xttcp_config.h"

namespace xttcp {

namespace {

constexpr RoleSpellings windows_roles{"-r", "-s", "--local"};

std::string with_hint(std::string message, std::string_view typed) {
  if (auto hint = linux_flag_hint(typed)) message += " (" + std::string(*hint) + ")";
  return message;
}

// xttcp's long options that mean the same in both dialects: the native group and --help /
// --version of the Linux table (not --local: the Windows roles are -s and -r).
const OptionDef* find_native_long(std::string_view name) {
  for (const OptionDef& def : linux_options()) {
    if (def.long_name.empty() || def.long_name != name || def.long_name == "local") continue;
    if (def.group == OptionGroup::native || def.group == OptionGroup::general) return &def;
  }
  return nullptr;
}

std::vector<std::string> windows_spellings() {
  std::vector<std::string> names;
  for (const WindowsOptionDef& def : windows_options())
    names.push_back(fmt::format("-{}", def.name));
  return names;
}

std::string unknown_option(const std::string& typed) {
  std::string message = "unknown option '" + typed + "'";
  if (typed.size() > 1 && std::all_of(typed.begin() + 1, typed.end(),
                                      [](unsigned char c) { return std::isdigit(c) != 0; }))
    return message + " (a negative number is no option; an option's value follows it, e.g. -a 2)";
  if (auto hint = linux_flag_hint(typed)) return message + " (" + std::string(*hint) + ")";
  std::string lower = typed;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (auto suggestion = closest_match(lower, windows_spellings()))
    return message + " (did you mean '" + *suggestion + "'?)";
  return message;
}

// Reads the words; rows record into `state`. Native long options are kept for the role check.
class WindowsSplitter {
 public:
  WindowsSplitter(const std::vector<std::string>& args, WindowsParseState& state)
      : args_(args), state_(state) {}

  Status run() {
    while (next_ < args_.size()) {
      const std::string& word = args_[next_++];
      Status status = ok();
      if (word == "--")
        status = stray(word);
      else if (auto dash = typographic(word))
        status = fail(*dash);
      else if (word.size() > 2 && word.starts_with("--"))
        status = long_option(word);
      else if (word.size() >= 2 && word[0] == '-')
        status = windows_option(word);
      else
        status = stray(word);
      if (!status) return status;
      previous_ = word;
    }
    return ok();
  }

  const std::vector<OptionUse>& native_uses() const { return native_uses_; }

 private:
  // "–u" (en dash) for -u, "—backend" for --backend: refused with what to type.
  static std::optional<std::string> typographic(std::string_view word) {
    return typographic_dash_error(
        word, [](std::string_view name) { return find_native_long(name) != nullptr; });
  }

  // The next word as an optional value or list item: present and not an option, including one
  // typed with a typographic dash.
  bool next_is_value() const {
    return next_ < args_.size() && !args_[next_].starts_with("-") && !typographic(args_[next_]);
  }

  Status windows_option(const std::string& typed) {
    const WindowsOptionDef* def = find_windows_option(typed);
    if (def == nullptr) return fail(unknown_option(typed));
    const std::string name = fmt::format("-{}", def->name);
    if (def->apply == nullptr) return fail(name + ": " + std::string(def->refusal));

    std::vector<std::string> values;
    switch (def->value) {
      case WindowsValue::none: break;
      case WindowsValue::required:
        if (next_ >= args_.size())
          return fail(
              with_hint(name + " needs a value (" + std::string(def->value_name) + ")", typed));
        if (auto dash = typographic(args_[next_])) return fail(*dash);
        values.push_back(args_[next_++]);
        break;
      case WindowsValue::optional:
        if (next_is_value()) values.push_back(args_[next_++]);
        break;
      case WindowsValue::list:
        while (next_is_value()) values.push_back(args_[next_++]);
        break;
    }
    if (Status applied = def->apply(state_, values); !applied) {
      // -a 4 is this dialect's own use; -a 10.0.0.1 is NTTTCP-for-Linux's source address.
      const bool own_use =
          typed == "-a" && !values.empty() && values[0].find_first_of(".:") == std::string::npos;
      const std::string message = name + ": " + applied.error().message;
      return fail(own_use ? message : with_hint(message, typed));
    }
    // Accepted, but an NTTTCP-for-Linux habit that reads differently here: say so.
    if ((typed == "-P" || typed == "-N" || typed == "-D") && linux_flag_hint(typed))
      state_.base.note(std::string(*linux_flag_hint(typed)));
    return ok();
  }

  Status long_option(const std::string& word) {
    const std::size_t equals = word.find('=');
    const std::string name = word.substr(2, equals == std::string::npos ? equals : equals - 2);
    const OptionDef* def = find_native_long(name);
    if (def == nullptr) {
      std::string typed = "--" + name;
      if (auto hint = linux_flag_hint(typed))
        return fail("unknown option '" + typed + "' (" + std::string(*hint) + ")");
      std::vector<std::string> names;
      for (const OptionDef& row : linux_options())
        if (find_native_long(row.long_name) != nullptr)
          names.push_back("--" + std::string(row.long_name));
      if (auto suggestion = closest_match(typed, names))
        return fail("unknown option '" + typed + "' (did you mean '" + *suggestion + "'?)");
      return fail("unknown option '" + typed + "'");
    }
    OptionUse use{def, true, std::nullopt};
    const std::string display = display_name(use);
    if (equals != std::string::npos) {
      if (def->value == ValueKind::none) return fail(display + " takes no value");
      use.value = word.substr(equals + 1);
    } else if (def->value == ValueKind::required) {
      if (next_ >= args_.size())
        return fail(display + " needs a value (" + std::string(def->value_name) + ")");
      if (auto dash = typographic(args_[next_])) return fail(*dash);
      use.value = args_[next_++];
    } else if (def->value == ValueKind::optional && next_is_value()) {
      use.value = args_[next_++];
    }
    if (Status applied = def->apply(state_.base, use.value); !applied)
      return fail(display + ": " + applied.error().message);
    native_uses_.push_back(use);
    return ok();
  }

  Status stray(const std::string& word) {
    std::string message = "unexpected word '" + word + "'";
    if (previous_ &&
        (*previous_ == "-s" || *previous_ == "-r" || *previous_ == "-S" || *previous_ == "-R"))
      return fail(message + " after " + *previous_ +
                  " (-s and -r take no address in this "
                  "dialect; the address goes in -m THREADS,CPU,HOST)");
    if (previous_) {
      if (auto hint = linux_flag_hint(*previous_))
        return fail(message + " after " + *previous_ + " (" + std::string(*hint) + ")");
      const WindowsOptionDef* def = find_windows_option(*previous_);
      if (def != nullptr && def->value == WindowsValue::none)
        return fail(fmt::format("{} (-{} takes no value)", message, def->name));
    }
    return fail(message + " (options start with '-')");
  }

  const std::vector<std::string>& args_;
  WindowsParseState& state_;
  std::size_t next_ = 0;
  std::optional<std::string> previous_;
  std::vector<OptionUse> native_uses_;
};

// ---- the rules between options -------------------------------------------------------------

void choose_role(WindowsParseState& state) {
  if (state.role) {
    state.spec().role = *state.role;
  } else {
    state.spec().role = Role::receiver;
    state.base.note("no role given: running as the receiver (use -s for a sender)");
  }
}

// One connection per thread on its own port: TestSpec's NTTTCP-for-Linux layout is
// (threads) ports x 1 thread x 1 connection, towards the first mapping's host.
Status apply_mappings(WindowsParseState& state) {
  TestSpec& spec = state.spec();
  if (spec.layout.mappings.empty())
    return fail("-m THREADS,CPU,HOST is required (e.g. -m 4,*,10.0.0.1)");
  uint64_t threads = 0;
  for (const ThreadMapping& mapping : spec.layout.mappings) {
    threads += mapping.threads;
    if (spec.role == Role::sender && mapping.host.empty())
      return fail(
          "-m: the sender needs the receiver's address in every mapping ('*' is for "
          "the receiver)");
  }
  if (!spec.control.no_sync && threads >= windows_max_synced_threads)
    return fail(
        fmt::format("-m: {} threads in total; without -ns fewer than {} are allowed (add "
                    "-ns on every instance)",
                    threads, windows_max_synced_threads));
  // Data ports base..base+threads-1 (base+1..base+threads with -sp), token ports 1000 above.
  const uint64_t first = spec.layout.base_port + (spec.control.port_assignment ? 1 : 0);
  const uint64_t last = first + threads - 1;
  if (last > 65535)
    return fail(fmt::format("-p: data ports {}..{} pass 65535 (lower -p or use fewer threads)",
                            first, last));
  if (!spec.control.no_sync && last + windows_token_port_offset > 65535)
    return fail(
        fmt::format("-p: token ports {}..{} (data port + {}) pass 65535 (lower -p, use "
                    "fewer threads, or -ns)",
                    first + windows_token_port_offset, last + windows_token_port_offset,
                    windows_token_port_offset));
  spec.layout.ports = static_cast<uint32_t>(threads);
  spec.layout.threads_per_port = 1;
  spec.layout.conns_per_thread = 1;
  spec.layout.address = spec.layout.mappings.front().host;
  // TestSpec has one CPU for every worker: set it only when all mappings agree.
  const std::optional<int> cpu = spec.layout.mappings.front().cpu;
  const bool same_cpu =
      std::all_of(spec.layout.mappings.begin(), spec.layout.mappings.end(),
                  [&](const ThreadMapping& mapping) { return mapping.cpu == cpu; });
  spec.layout.mapping_cpu = same_cpu ? cpu : std::nullopt;
  return ok();
}

// Time mode (-t without -n) or count mode (-n, or neither: 20 K buffers), as NTttcp for Windows
// chooses.
void choose_mode(WindowsParseState& state) {
  TestSpec& spec = state.spec();
  if (state.time_s && !spec.workload.buffer_count) {
    spec.workload.duration_s = *state.time_s;
    return;
  }
  if (!spec.workload.buffer_count) {
    spec.workload.buffer_count = windows_default_buffer_count;
    state.base.note(
        fmt::format("no -t: count mode, each thread does {} buffers (-n); add -t SEC "
                    "for a timed run",
                    windows_default_buffer_count));
  }
  if (state.time_s) spec.workload.count_timeout_s = *state.time_s;
  // An engine that knows no count mode still stops: the run's upper bound is its duration.
  spec.workload.duration_s = spec.workload.count_timeout_s;
  if (state.warmup_given || state.cooldown_given)
    state.base.note("-wu and -cd are ignored in count mode (-n)");
  spec.workload.warmup_s = 0;
  spec.workload.cooldown_s = 0;
}

void apply_defaults(WindowsParseState& state) {
  TestSpec& spec = state.spec();
  if (!state.length_given) {
    const uint32_t length = spec.workload.protocol == Protocol::udp ? windows_default_udp_length
                                                                    : windows_default_tcp_length;
    spec.workload.send_buffer = length;
    spec.workload.recv_buffer = length;
  }
  // "-a n" means SO_SNDBUF 0 (the original: "this is more common") unless -sb says otherwise.
  if (state.async_count_given && !state.send_buffer_given) {
    spec.io.socket_send_buffer = 0;
    spec.io.send_buffer_implied = true;
  }
}

// The original's VerifyArgs, for the options xttcp accepts, with messages that give the rule.
Status verify(WindowsParseState& state) {
  const TestSpec& spec = state.spec();
  const bool sender = spec.role == Role::sender;
  const bool udp = spec.workload.protocol == Protocol::udp;
  const bool async = spec.io.outstanding > 0;
  if (spec.accepted.wsa && !async)
    return fail("-w: WSASend/WSARecv need asynchronous I/O (add -a)");
  if (spec.io.wait_all && async && !spec.accepted.wsa)
    return fail("-wa: MSG_WAITALL works with synchronous I/O or with -w (add -w or drop -a)");
  if (!spec.layout.source_address.empty() && !sender)
    return fail("-nic is for the sender only (drop -nic or use -s)");
  if (spec.workload.thread_rate_kBps > 0 && !sender)
    return fail("-thr is for the sender only (drop -thr or use -s)");
  if (spec.output.sample_s > 0 && (!state.time_s || spec.workload.buffer_count))
    return fail("-sam needs a timed run (-t SEC without -n)");
  if (spec.io.udp_send_offload != 0 && (!sender || !udp)) return fail("-uso needs -s and -u");
  if (spec.io.udp_receive_coalescing && (sender || !udp)) return fail("-uro needs -r and -u");
  if (spec.io.udp_receive_coalescing && !spec.io.udp_gro)
    return fail("-uro: receive coalescing is UDP_GRO, which --udp-gro off turns off (drop one)");
  if (spec.io.udp_unconnected && !udp) return fail("-uc: unconnected UDP needs -u");
  if (spec.io.udp_unconnected && async)
    return fail("-uc: unconnected UDP uses synchronous I/O only (drop -a)");
  return ok();
}

void add_notes(WindowsParseState& state) {
  const TestSpec& spec = state.spec();
  // Receive-side options the original accepts on a sender and never uses there.
  if (spec.role == Role::sender && spec.workload.verify_data)
    state.base.note(
        "-d does nothing on the sender: it checks received data (ignored, as NTttcp "
        "does)");
  if (spec.role == Role::sender && spec.io.wait_all)
    state.base.note(
        "-wa does nothing on the sender: it applies to receives (ignored, as NTttcp "
        "does)");
  if (spec.io.no_delay && spec.workload.protocol == Protocol::udp)
    state.base.note("-ndl has no effect with -u (TCP_NODELAY is a TCP option)");
  if (spec.output.sample_s > spec.workload.duration_s)
    state.base.note(fmt::format("-sam {} is longer than -t {}: one sample", spec.output.sample_s,
                                spec.workload.duration_s));
}

Expected<Command> parse_run(const std::vector<std::string>& args, unsigned cpu_count) {
  WindowsParseState state;
  state.base.cpu_count = cpu_count;
  state.spec().dialect = Dialect::windows;

  // --help / -h / -? and --version win over everything else on the line, even over bad values.
  for (const std::string& word : args) {
    if (word == "--help" || word == "-h" || word == "-H" || word == "-?")  // -H: case-insensitive
      return Command{Action::help, {}, {}};
  }
  for (const std::string& word : args)
    if (word == "--version") return Command{Action::version, {}, {}};

  WindowsSplitter splitter(args, state);
  if (Status read = splitter.run(); !read) return read.error();
  choose_role(state);
  for (const OptionUse& use : splitter.native_uses()) {
    if (Status allowed = check_role(use, state.spec().role, windows_roles); !allowed)
      return allowed.error();
  }
  if (Status mappings = apply_mappings(state); !mappings) return mappings.error();
  choose_mode(state);
  apply_defaults(state);
  apply_defaults_profile(state.spec(), [&](std::string_view name) {
    const auto& uses = splitter.native_uses();
    return std::any_of(uses.begin(), uses.end(),
                       [&](const OptionUse& use) { return use.def->long_name == name; });
  });
  if (Status checks = verify(state); !checks) return checks.error();
  // Repeats need a receiver that stays for test after test (-H): this dialect's has none.
  if (state.spec().repeat.count > 1)
    return fail(
        "--repeat: NTttcp for Windows' receiver runs one test; repeat with the "
        "NTTTCP-for-Linux command line against a receiver with -H");
  // -d must see the bytes: no MSG_TRUNC receive, unless asked for explicitly (then refuse).
  if (state.spec().workload.verify_data) {
    for (const OptionUse& use : splitter.native_uses()) {
      if (use.def->long_name == "skip-rx-copy" && state.spec().io.skip_rx_copy)
        return fail("-d needs the received bytes: drop --skip-rx-copy or use --skip-rx-copy=off");
    }
    state.spec().io.skip_rx_copy = false;
  }
  const Output& out = state.spec().output;
  if (Status files = check_distinct_outputs({{"-xml", &out.xml_file},
                                             {"--json", &out.native_json_file},
                                             {"--csv", &out.csv_file},
                                             {"--json-stream", &out.json_stream, true}});
      !files)
    return files.error();
  add_notes(state);
  return std::move(state.base.command);
}

// ---- help -----------------------------------------------------------------------------------

constexpr std::size_t windows_help_column = 26;
constexpr std::size_t windows_help_width = 100;

}  // namespace

Expected<Command> parse_windows_dialect(const std::vector<std::string>& args, unsigned cpu_count) {
  if (!args.empty() && args[0] == "topology") return parse_topology_command(args);
  if (!args.empty() && args[0] == "backends") {
    if (args.size() > 1)
      return fail(fmt::format("'backends' takes no arguments (got '{}')", args[1]));
    return Command{Action::backends, {}, {}};
  }
  return parse_run(args, cpu_count);
}

Expected<Command> parse_windows_dialect(const std::vector<std::string>& args) {
  return parse_windows_dialect(args, configured_cpus());
}

std::string windows_dialect_help() {
  const DialectHelp& facts = windows_help_facts();
  std::string text = fmt::format("xttcp {} - {}\n\nUsage:\n", XTTCP_VERSION, facts.title);
  text += render_usage(facts.usage);
  for (std::string_view line : split_lines(facts.usage_note)) text += fmt::format("  {}\n", line);
  text += "\nCommands (the first word on the line):\n" + render_subcommands();
  text += fmt::format("\n{}\n\nNTttcp for Windows options:\n", facts.syntax);
  for (const WindowsOptionDef& def : windows_options()) {
    if (def.apply == nullptr || def.name == "?") continue;
    std::string help(def.help);
    if (!def.default_text.empty()) help += " [default: " + std::string(def.default_text) + "]";
    append_help_row(text, fmt::format("  {}", windows_option_synopsis(def)), split_words(help),
                    windows_help_column, windows_help_width);
  }
  text += "\nRefused (Windows-only or not implemented):\n";
  for (const WindowsOptionDef& def : windows_options()) {
    if (def.apply != nullptr) continue;
    append_help_row(text, fmt::format("  -{}", def.name), split_words(def.refusal),
                    windows_help_column, windows_help_width);
  }
  text += "\nxttcp options (same as in the Linux dialect):\n";
  text += render_option_help(windows_native_options(), OptionGroup::native);
  for (std::string_view note : facts.notes) text += fmt::format("\n{}\n", note);
  text += "\nExamples:\n" + render_examples(facts.examples);
  text += "\nExit codes:\n" + render_exit_codes();
  return text;
}

std::vector<OptionDef> windows_native_options() {
  std::vector<OptionDef> native;  // the rows find_native_long accepts (not --local)
  for (const OptionDef& def : linux_options())
    if (def.group == OptionGroup::native && find_native_long(def.long_name) != nullptr)
      native.push_back(def);
  return native;
}

std::string windows_option_synopsis(const WindowsOptionDef& def) {
  std::string text = fmt::format("-{}", def.name);
  if (def.value == WindowsValue::required || def.value == WindowsValue::list)
    text += fmt::format(" {}", def.value_name);
  if (def.value == WindowsValue::optional) text += fmt::format(" [{}]", def.value_name);
  return text;
}

}  // namespace xttcp
