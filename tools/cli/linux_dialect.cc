// The NTTTCP-for-Linux dialect: its option table (linux_options.cc) read getopt-style, then the
// rules between options. Unlike the original, option order never matters: rows only record,
// and everything below runs once the whole line is read. As in the original, stray words are
// ignored and options of the other role that it ignores are accepted; a note says so.
#include <algorithm>

#include <fmt/format.h>

#include "base/units.hh"
#include "engine/control/sync_auth.hh"
#include "engine/net/address.hh"
#include "engine/run/reverse_roles.hh"
#include "tools/cli/command.hh"
#include "tools/cli/defaults_profile.hh"
#include "tools/cli/cpu_count.hh"
#include "tools/cli/getopt_style.hh"
#include "tools/cli/habits.hh"
#include "tools/cli/help_facts.hh"
#include "tools/cli/linux_options.hh"
#include "tools/cli/output_paths.hh"
#include "tools/cli/parse_state.hh"
#include "tools/cli/subcommands.hh"
#include "tools/cli/topology_request.hh"
#include "xttcp_config.h"

namespace xttcp {

namespace {

constexpr RoleSpellings linux_roles{"-r", "-s ADDR", "--local"};

bool given(const std::vector<OptionUse>& uses, char short_name) {
  for (const OptionUse& use : uses)
    if (use.def->short_name == short_name) return true;
  return false;
}

Status choose_role(ParseState& state) {
  if (state.receiver_chosen && state.sender_chosen)
    return fail("-r and -s cannot be used together (a run is either receiver or sender)");
  if (state.local_chosen && (state.receiver_chosen || state.sender_chosen)) {
    const char* role = state.receiver_chosen ? "-r" : "-s";
    return fail(
        fmt::format("--local cannot be used with {} (--local runs both sides; drop {} or "
                    "--local)",
                    role, role));
  }
  TestSpec& spec = state.spec();
  if (state.local_chosen) {
    spec.role = Role::local;
  } else if (state.sender_chosen) {
    spec.role = Role::sender;
  } else {
    spec.role = Role::receiver;
    if (!state.receiver_chosen)
      state.note("no role given: running as the receiver (use -s ADDR for a sender)");
  }
  return ok();
}

// -m sets the ports and one sender thread per port, unless -P / -n say otherwise anywhere on
// the line; its address is used unless -r/-s gave one.
void apply_mapping(ParseState& state, const std::vector<OptionUse>& uses) {
  if (!state.mapping) return;
  TestSpec& spec = state.spec();
  const Mapping& mapping = *state.mapping;
  if (mapping.ports && !given(uses, 'P')) {
    spec.layout.ports =
        static_cast<uint32_t>(std::min<uint64_t>(*mapping.ports, limits::max_ports));
    if (*mapping.ports > limits::max_ports)
      state.note(fmt::format("-m: {} ports is above the maximum of {}; using {}", *mapping.ports,
                             limits::max_ports, limits::max_ports));
  }
  if (!given(uses, 'n')) spec.layout.threads_per_port = 1;
  spec.layout.mapping_cpu = mapping.cpu;
}

Status choose_address(ParseState& state) {
  TestSpec& spec = state.spec();
  const std::string from_mapping = state.mapping ? state.mapping->address : "";
  if (state.role_address)
    spec.layout.address = *state.role_address;
  else
    spec.layout.address = from_mapping;
  if (spec.role == Role::sender && spec.layout.address.empty())
    return fail("-s needs the receiver's address (-s ADDR or -m PORTS,CPU,ADDR)");
  if (spec.role == Role::local && spec.layout.address.empty())
    spec.layout.address = spec.layout.ipv6 ? "::1" : "127.0.0.1";
  // A literal says its family: -s ::1 is IPv6 without -6 (only a name needs it).
  const LiteralFamily family = literal_family(spec.layout.address);
  if (family == LiteralFamily::ipv6) spec.layout.ipv6 = true;
  if (family == LiteralFamily::ipv4 && spec.layout.ipv6) {
    const char* option = !state.role_address ? "-m" : spec.role == Role::receiver ? "-r" : "-s";
    return fail(
        fmt::format("{}: '{}' is an IPv4 address but -6 asks for IPv6 (drop -6, or give "
                    "an IPv6 address)",
                    option, spec.layout.address));
  }
  return ok();
}

// A word that is no option nor value but surely meant as something: a command or a file
// (xttcp -s HOST compare, ... results.json), or NTttcp for Windows' second mapping
// (-m 1,0,A 1,1,B). NTTTCP-for-Linux ignores stray words and would run another test than the
// one meant, so these are refused; other strays (LISA's unquoted "Hypervisor callback
// interrupts" after --show-dev-interrupts) are ignored with a note, as the original does.
Status check_strays(const std::vector<StrayWord>& strays) {
  for (const StrayWord& stray : strays) {
    const std::string& word = stray.word;
    if (std::count(word.begin(), word.end(), ',') == 2)
      return fail(fmt::format(
          "'{}' looks like a second -m mapping: this dialect takes one -m PORTS,CPU,ADDR (NTttcp "
          "for Windows' several mappings: --dialect windows)",
          word));
    if (auto command = command_it_resembles(word)) {
      if (*command == "help" || *command == "version")
        return fail(fmt::format("'{}' is not an option (did you mean --{}?)", word, *command));
      return fail(fmt::format(
          "'{}' is not an option (did you mean the command '{}'? a command is the first word: "
          "xttcp {} ...)",
          word, *command, *command));
    }
    if (looks_like_file(word))
      return fail(fmt::format(
          "'{}' is not an option nor a value: a file goes after the option that writes it "
          "(--json FILE, -x FILE, -j FILE, -O FILE, --csv FILE)",
          word));
  }
  return ok();
}

Status check_ports(const ParseState& state, const std::vector<OptionUse>& uses) {
  const TestSpec& spec = state.spec();
  if (spec.layout.base_port == 1 && !spec.control.no_sync)
    return fail("-p: port 1 leaves no sync port (the sync port is PORT - 1); use 2..65535 or -N");
  const uint32_t last_port = spec.layout.base_port + spec.layout.ports - 1;
  if (last_port > 65535)
    return fail(fmt::format("-p: receiver ports {}..{} pass 65535 (lower -p or -P)",
                            spec.layout.base_port, last_port));
  if (given(uses, 'f') && spec.role != Role::receiver) {
    const uint64_t last_source =
        uint64_t{spec.layout.source_base_port} + spec.sender_connections() - 1;
    if (last_source > 65535)
      return fail(fmt::format("-f: source ports {}..{} pass 65535 ({} connections; lower -f)",
                              spec.layout.source_base_port, last_source,
                              spec.sender_connections()));
  }
  return ok();
}

Status check_rates(ParseState& state) {
  TestSpec& spec = state.spec();
  if (spec.workload.rate_limit_bps != 0 && spec.workload.fq_rate_limit_bps != 0) {
    state.note("ignore '--fq-rate-limit' as '-B' is specified");  // the original's words
    spec.workload.fq_rate_limit_bps = 0;
  }
  if (spec.workload.fq_rate_limit_bps != 0) {
    // Each socket gets SO_MAX_PACING_RATE = rate / connections / 8, an unsigned 32-bit
    // bytes-per-second value in NTTTCP-for-Linux.
    const uint64_t connections = spec.sender_connections();
    const uint64_t per_socket = spec.workload.fq_rate_limit_bps / connections / 8;
    if (per_socket > UINT32_MAX)
      return fail(fmt::format(
          "--fq-rate-limit: {} over {} connection(s) is {} bytes/s per connection, above the "
          "32-bit limit of {} bytes/s (use more connections or a lower rate)",
          format_bps(static_cast<double>(spec.workload.fq_rate_limit_bps)), connections, per_socket,
          UINT32_MAX));
    if (per_socket == 0)
      return fail(
          fmt::format("--fq-rate-limit: {} bits/s over {} connections is less than 1 "
                      "byte/s per connection",
                      spec.workload.fq_rate_limit_bps, connections));
    state.note(
        fmt::format("Warning! '--fq-rate-limit' is specified and the network bandwidth may be "
                    "limited (each of {} connections paced to {} bytes/s)",
                    connections, per_socket));
  }
  if (spec.workload.rate_limit_bps != 0)
    state.note(fmt::format(
        "Warning! '-B' is specified and the network bandwidth may be limited ({} over all "
        "sender threads)",
        format_bps(static_cast<double>(spec.workload.rate_limit_bps))));
  return ok();
}

Status check_protocol(ParseState& state, const std::vector<OptionUse>& uses) {
  TestSpec& spec = state.spec();
  auto given = [&](std::string_view long_name) {
    return std::any_of(uses.begin(), uses.end(),
                       [&](const OptionUse& use) { return use.def->long_name == long_name; });
  };
  if (spec.workload.protocol == Protocol::tcp) {
    for (const char* udp_only : {"udp-payload", "udp-gso", "udp-gro"})
      if (given(udp_only)) return fail(fmt::format("--{} is for UDP only (add -u)", udp_only));
    return ok();
  }
  if (spec.io.no_delay) return fail("--no-delay is for TCP only (drop --no-delay or -u)");
  if (spec.io.zerocopy != ZeroCopy::off) return fail("--zerocopy is for TCP only (drop it or -u)");
  // The largest UDP payload: 65535 - 8 (UDP) - 20 (IPv4); IPv6's header is outside the limit.
  const uint32_t largest = spec.layout.ipv6 ? 65535 - 8 : limits::max_udp_send_size;
  if (spec.workload.send_buffer > largest) {
    if (spec.is_sender() || spec.role == Role::local)
      state.note(fmt::format("-u: datagrams of {} bytes (the largest UDP payload; -b was {})",
                             largest, spec.workload.send_buffer));
    spec.workload.send_buffer = largest;
  }
  if (spec.workload.udp_payload == UdpPayload::native &&
      spec.workload.send_buffer < udp_native_header_bytes)
    return fail(
        fmt::format("--udp-payload native: datagrams of {} bytes cannot hold the {}-byte "
                    "header (use -b {} or more, or --udp-payload compat)",
                    spec.workload.send_buffer, udp_native_header_bytes, udp_native_header_bytes));
  return ok();
}

// --rr (docs/rr.md): its options need it, and it needs sizes both ends agree on.
Status check_rr(ParseState& state, const std::vector<OptionUse>& uses) {
  TestSpec& spec = state.spec();
  auto given_long = [&](std::string_view long_name) {
    return std::any_of(uses.begin(), uses.end(),
                       [&](const OptionUse& use) { return use.def->long_name == long_name; });
  };
  if (!spec.rr.on) {
    for (const char* rr_only : {"rr-depth", "response-size", "rr-delay-us"})
      if (given_long(rr_only))
        return fail(fmt::format("--{} is for --rr only (add --rr)", rr_only));
    return ok();
  }
  if (!given(uses, 'b'))
    spec.workload.send_buffer = spec.workload.recv_buffer = rr_limits::default_request_bytes;
  if (spec.io.zerocopy != ZeroCopy::off)
    return fail("--zerocopy: not with --rr (drop one of them)");
  if (spec.workload.rate_limit_bps != 0)
    return fail("-B: not with --rr (transactions are not paced)");
  if (spec.workload.fq_rate_limit_bps != 0)
    return fail("--fq-rate-limit: not with --rr (drop one of them)");
  if (spec.role != Role::receiver && spec.sender_connections() > rr_limits::max_flows)
    return fail(
        fmt::format("--rr: {} connections (-P x -n x -l), at most {} (each keeps its own "
                    "latency histogram)",
                    spec.sender_connections(), rr_limits::max_flows));
  if (spec.role != Role::sender && spec.layout.ports > rr_limits::max_flows)
    return fail(fmt::format("--rr: at most {} ports (-P)", rr_limits::max_flows));
  if (spec.workload.protocol == Protocol::udp) {
    const uint32_t largest = spec.layout.ipv6 ? 65535 - 8 : limits::max_udp_send_size;
    const uint32_t request = spec.workload.send_buffer, response = spec.rr.response_bytes(request);
    if (request < rr_limits::udp_min_bytes || response < rr_limits::udp_min_bytes)
      return fail(
          fmt::format("--rr -u: requests and responses carry an {}-byte send time (-b and "
                      "--response-size at least {})",
                      rr_limits::udp_min_bytes, rr_limits::udp_min_bytes));
    if (response > largest)
      return fail(fmt::format("--response-size: {} bytes is above the largest UDP payload ({})",
                              response, largest));
    // A responder sends an answer larger than its request only to a request that names a flow
    // of the test with its token (docs/rr.md, "Who gets an answer").
    if (response > request && spec.control.no_sync)
      return fail(fmt::format(
          "--response-size {} is above -b {}: with -N a UDP responder cannot tell its requester "
          "from a forged source, and answers no request with more bytes than it brought (give "
          "--response-size no larger than -b, or drop -N)",
          response, request));
    if (response > request && request < rr_limits::udp_proof_bytes)
      return fail(fmt::format(
          "--response-size {} is above -b {}: a UDP responder sends a larger answer only to a "
          "request that carries its flow and token, from {} bytes on (-b {} or more, or "
          "--response-size no larger than -b)",
          response, request, rr_limits::udp_proof_bytes, rr_limits::udp_proof_bytes));
  }
  return ok();
}

// --max-cycle and --auth-key: what a sender's word may do to this receiver, and who it serves.
Status check_session(const ParseState& state) {
  const TestSpec& spec = state.spec();
  const Control& control = spec.control;
  if (control.max_cycle_s && *control.max_cycle_s != 0 && spec.workload.duration_s != 0 &&
      *control.max_cycle_s < spec.cycle_s())
    return fail(fmt::format(
        "--max-cycle: {} s is shorter than this {}'s own cycle (-W + -t + -C = {} s)",
        *control.max_cycle_s, spec.is_sender() ? "sender" : "receiver", spec.cycle_s()));
  if (control.auth_key_file.empty()) return ok();
  if (control.no_sync)
    return fail(
        "--auth-key: the key is proven on the sync connection, which -N leaves out (drop one "
        "of them)");
  auto key = sync_auth::load_key(control.auth_key_file);
  if (!key) return key.error();
  return ok();
}

// --reverse, --bidir: the receiver sends TCP streams on connections this end made on one port.
Status check_reverse(const ParseState& state) {
  const TestSpec& spec = state.spec();
  if (spec.workload.reverse && spec.workload.bidir)
    return fail("--reverse and --bidir: --bidir already runs the reverse direction (drop one)");
  if (!spec.workload.reverse && !spec.workload.bidir) return ok();
  const std::string name = reverse_option(spec);
  if (spec.control.no_sync)
    return fail(name +
                ": the receiver learns of it on the sync connection, which -N leaves out (drop "
                "one of them)");
  if (spec.workload.protocol == Protocol::udp)
    return fail(name + ": TCP streams only; for UDP start the sending end with -s (drop -u or " +
                name + ")");
  if (spec.rr.on) return fail(name + ": --rr already runs both ways (drop " + name + ")");
  if (spec.control.last_client)
    return fail(name + ": one sender at a time; -L starts several (drop one of them)");
  return ok();
}

// --one-port: the sync connection hands out the cookie the data connections open with, and it
// carries TCP streams (UDP and --rr keep their data ports).
Status check_one_port(const ParseState& state) {
  const TestSpec& spec = state.spec();
  if (!spec.layout.one_port) return ok();
  if (spec.control.no_sync)
    return fail(
        "--one-port: the data connections open with a cookie the sync connection hands out, "
        "which -N leaves out (drop one of them)");
  if (spec.workload.protocol == Protocol::udp && spec.workload.udp_payload == UdpPayload::compat)
    return fail(
        "--one-port: UDP flows on one port are told apart by their flow ids, which "
        "--udp-payload compat leaves out (drop one of them)");
  if (spec.rr.on)
    return fail("--one-port: carries streams; --rr uses its data ports (drop one of them)");
  if (spec.control.multi_clients)
    return fail(
        "--one-port: serves one sender at a time; -M (several senders) uses the data "
        "ports (drop one of them)");
  return ok();
}

// Runs every row of `uses` into a fresh state and chooses the role.
Expected<ParseState> apply_rows(const std::vector<OptionUse>& uses, unsigned cpu_count) {
  ParseState state;
  state.cpu_count = cpu_count;
  for (const OptionUse& use : uses) {
    Status applied = use.def->apply(state, use.value);
    if (!applied) {
      std::string message = display_name(use) + ": " + applied.error().message;
      // -l 128k, -C cubic, -B 10.0.0.1: another tool's meaning of the same letter.
      if (use.def->short_name != 0 && use.value)
        if (auto habit = value_habit(use.def->short_name, *use.value))
          message += fmt::format(" ({})", *habit);
      return fail(message);
    }
  }
  if (Status role = choose_role(state); !role) return role.error();
  return state;
}

Expected<Command> parse_run(const std::vector<std::string>& args, unsigned cpu_count) {
  auto line = split_getopt_style(args, linux_options(), option_habit);
  if (!line) return line.error();
  // --help and --version win over everything else on the line, even over bad values.
  for (const OptionUse& use : line->uses) {
    if (use.def->long_name == "help") return Command{Action::help, {}, {}};
  }
  for (const OptionUse& use : line->uses) {
    if (use.def->long_name == "version") return Command{Action::version, {}, {}};
  }
  if (Status strays = check_strays(line->strays); !strays) return strays.error();

  auto state = apply_rows(line->uses, cpu_count);
  if (!state) return state.error();
  const Role role = state->spec().role;
  // Options the original ignores on this role: their values are still checked (above), then
  // the line is read again without them, so nothing of theirs reaches the spec.
  std::vector<OptionUse> uses;
  std::vector<std::string> ignored;
  for (const OptionUse& use : line->uses) {
    if (Status allowed = check_role(use, role, linux_roles); !allowed) return allowed.error();
    if (ignored_on(*use.def, role))
      ignored.push_back(ignored_note(use, role));
    else
      uses.push_back(use);
  }
  if (!ignored.empty()) {
    state = apply_rows(uses, cpu_count);
    if (!state) return state.error();
  }
  apply_defaults_profile(state->spec(), [&](std::string_view name) {
    return std::any_of(uses.begin(), uses.end(),
                       [&](const OptionUse& use) { return use.def->long_name == name; });
  });
  if (std::string strays = stray_words_note(line->strays); !strays.empty()) state->note(strays);
  for (std::string& note : ignored) state->note(std::move(note));
  apply_mapping(*state, uses);
  if (Status address = choose_address(*state); !address) return address.error();
  if (given(uses, 'a') && !state->spec().layout.source_addresses.empty())
    return fail(
        "-a and --source-addresses cannot be used together (the first of the list "
        "serves as -a)");
  if (Status ports = check_ports(*state, uses); !ports) return ports.error();
  if (Status rates = check_rates(*state); !rates) return rates.error();
  // --rr first: its default -b is what -u then checks.
  if (Status rr = check_rr(*state, uses); !rr) return rr.error();
  if (Status protocol = check_protocol(*state, uses); !protocol) return protocol.error();
  if (Status session = check_session(*state); !session) return session.error();
  if (Status reverse = check_reverse(*state); !reverse) return reverse.error();
  if (Status one_port = check_one_port(*state); !one_port) return one_port.error();
  if (state->spec().workload.protocol == Protocol::udp && !state->spec().io.congestion.empty())
    return fail("--congestion: TCP only (UDP has no congestion control; drop -u or --congestion)");
  const Output& out = state->spec().output;
  if (Status files = check_distinct_outputs({{"-O", &out.log_file},
                                             {"-x", &out.xml_file},
                                             {"-j", &out.json_file},
                                             {"--json", &out.native_json_file},
                                             {"--csv", &out.csv_file},
                                             {"--json-stream", &out.json_stream, true}});
      !files)
    return files.error();
  if (state->spec().workload.duration_s == 0)
    state->note("-t 0: continuous mode; the test runs until stopped and prints no results");
  return std::move(state->command);
}

}  // namespace

Expected<Command> parse_linux_dialect(const std::vector<std::string>& args, unsigned cpu_count) {
  if (!args.empty() && args[0] == "topology") return parse_topology_command(args);
  if (!args.empty() && args[0] == "backends") {
    Command command{Action::backends, {}, {}};
    // 'backends --dpdk-args "EAL ARGS"' also lists the DPDK ports those arguments find.
    if (args[0] == "backends" && args.size() == 3 && args[1] == "--dpdk-args") {
      command.spec.dpdk.args = args[2];
      return command;
    }
    if (args.size() > 1)
      return fail(fmt::format(
          "'backends' takes no arguments but --dpdk-args \"EAL ARGS\" (got '{}')", args[1]));
    return command;
  }
  return parse_run(args, cpu_count);
}

Expected<Command> parse_linux_dialect(const std::vector<std::string>& args) {
  return parse_linux_dialect(args, configured_cpus());
}

std::string linux_dialect_help() {
  const DialectHelp& facts = linux_help_facts();
  std::string text = fmt::format("xttcp {} - {}\n\nUsage:\n", XTTCP_VERSION, facts.title);
  text += render_usage(facts.usage);
  text += "\nCommands (the first word on the line):\n" + render_subcommands();
  text += fmt::format("\n{}\n\nNTTTCP-for-Linux options:\n", facts.syntax);
  text += render_option_help(linux_options(), OptionGroup::compatible);
  text += "\nxttcp options:\n";
  text += render_option_help(linux_options(), OptionGroup::native);
  text += "\nGeneral:\n";
  text += render_option_help(linux_options(), OptionGroup::general);
  for (std::string_view note : facts.notes) text += fmt::format("\n{}\n", note);
  text += "\nExamples:\n" + render_examples(facts.examples);
  text += "\nExit codes:\n" + render_exit_codes();
  return text;
}

}  // namespace xttcp
