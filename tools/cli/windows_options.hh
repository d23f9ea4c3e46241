// The NTttcp-for-Windows 5.40 grammar's option table (ntttcp.c ProcessArgs): one row per option
// drives parsing, the help text, the refusals and "did you mean" suggestions. Names are matched
// case-insensitively, as the original's _stricmp does (-S, -XML, -Rb all work). Rows only record
// into a WindowsParseState; windows_dialect.cc applies the rules between options once the whole
// line is read, so option order never matters (the original's sometimes did).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hh"
#include "engine/spec.hh"
#include "tools/cli/option_table.hh"
#include "tools/cli/parse_state.hh"

namespace xttcp {

// What the rows record beyond the TestSpec, for the rules between options.
struct WindowsParseState {
  ParseState base;                 // the Command, the CPU count, the notes
  std::optional<Role> role;        // -s / -r (not both: the original runs the last one)
  bool mapping_given = false;      // -m (only one -m; it takes every mapping)
  bool length_given = false;       // -l (else TCP 64 KiB, UDP 128 B)
  bool send_buffer_given = false;  // -sb (else -a n sets SO_SNDBUF to 0)
  bool async_count_given = false;  // -a n, not a bare -a
  std::optional<uint32_t> time_s;  // -t: run time, or count mode's longest run with -n
  bool warmup_given = false;       // -wu
  bool cooldown_given = false;     // -cd

  TestSpec& spec() { return base.spec(); }
};

enum class WindowsValue {
  none,      // -ns
  required,  // -p 5001: the next word, whatever it is (-rb -1 is a value)
  optional,  // -a [n], -xml [file]: the next word unless it starts with '-'
  list,      // -m: every following word up to the next one that starts with '-'
};

// Records the option's values (none, one, or the -m list) into the state. Errors omit the
// option name; the caller prefixes it ("-p: " + message).
using WindowsApplyFn = Status (*)(WindowsParseState& state, const std::vector<std::string>& values);

struct WindowsOptionDef {
  std::string_view name;  // "rb" for -rb, lower case
  WindowsValue value = WindowsValue::none;
  std::string_view value_name;     // "N", "FILE" in the help text
  std::string_view help;           // what it does, one sentence
  std::string_view default_text;   // shown as "[default: ...]"; "" = nothing shown
  WindowsApplyFn apply = nullptr;  // nullptr: xttcp refuses the option
  std::string_view refusal;        // why it is refused (rows without apply)
};

std::span<const WindowsOptionDef> windows_options();

// "-m THREADS,CPU,HOST", "-a [N]": how the help and the man page spell a row.
std::string windows_option_synopsis(const WindowsOptionDef& def);

// xttcp's native long options the Windows dialect accepts (rows of the Linux table).
std::vector<OptionDef> windows_native_options();

// The row of `typed` ("-RB", "-rb"), compared case-insensitively; nullptr when unknown.
const WindowsOptionDef* find_windows_option(std::string_view typed);

// What an NTTTCP-for-Linux user meant by `typed` (exact case: "-P", "-N", "-b", "--no-delay"),
// when the Windows grammar reads it differently or not at all; nullopt when nothing to say.
std::optional<std::string_view> linux_flag_hint(std::string_view typed);

// Buffer count without -t and -n: the original's 20 K buffers per thread.
inline constexpr uint64_t windows_default_buffer_count = 20 * 1024;
// Without -ns, fewer threads than this (the original's MAX_NUM_CONNECTIONS).
inline constexpr uint32_t windows_max_synced_threads = 1000;
// -a n must stay below WaitForMultipleObjects' MAXIMUM_WAIT_OBJECTS.
inline constexpr uint32_t windows_max_async_buffers = 63;
// The token connection of data port P is on port P + 1000 (engine/control/token_exchange.hh).
inline constexpr uint32_t windows_token_port_offset = 1000;
inline constexpr uint32_t windows_default_tcp_length = 64 * 1024;
inline constexpr uint32_t windows_default_udp_length = 128;
inline constexpr uint32_t windows_default_async_buffers = 2;  // bare -a
inline constexpr const char* windows_default_xml_file = "xml.txt";

}  // namespace xttcp
