#include "tools/sweep/sweep_plan.hh"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "base/read_file.hh"
#include "base/units.hh"
#include "tools/cli/command.hh"
#include "tools/cli/getopt_style.hh"
#include "tools/cli/linux_options.hh"

namespace xttcp {

namespace {

// LISA's perf_ntttcp ladders (lisa/tools/ntttcp.py: NTTTCP_TCP_CONCURRENCY and
// NTTTCP_UDP_CONCURRENCY) and sizes (-b 64k for TCP, 1k for UDP), with its receiver's -P 64.
const std::vector<uint32_t> lisa_tcp_connections = {
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 6144, 8192, 10240, 20480};
const std::vector<uint32_t> lisa_udp_connections = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};

Status apply_preset(const std::string& name, SweepAxes& axes) {
  if (name == "lisa") {
    axes.connections = lisa_tcp_connections;
    axes.sizes = {64 * 1024};
    axes.udp_sizes = {1024};
    axes.udp_connections = lisa_udp_connections;
    return ok();
  }
  if (name == "quick") {
    axes.connections = {1, 4, 16, 64};
    axes.sizes = {64 * 1024, 1024 * 1024};
    axes.udp_sizes = {64, 1400};
    axes.udp_connections = {1, 4};
    return ok();
  }
  return fail(fmt::format("sweep: --preset: '{}' is not a preset (known: lisa, quick)", name));
}

// "1,4,16,64" of whole numbers from `low` to `high`, or of sizes ("64K,1M") when `sizes`.
Expected<std::vector<uint32_t>> number_list(const std::string& option, const std::string& text,
                                            uint64_t low, uint64_t high, bool sizes) {
  std::vector<uint32_t> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    auto value = sizes ? parse_size(item) : parse_count(item, high);
    if (!value || *value < low || *value > high)
      return fail(fmt::format("sweep: {}: '{}' is not a {} from {} to {}", option, item,
                              sizes ? "size" : "whole number", low, high));
    if (std::find(values.begin(), values.end(), *value) != values.end())
      return fail(fmt::format("sweep: {}: '{}' is given twice", option, item));
    values.push_back(static_cast<uint32_t>(*value));
  }
  if (values.empty() || text.empty() || text.back() == ',')
    return fail(fmt::format("sweep: {}: '{}' is not a comma-separated list", option, text));
  if (values.size() > 64)
    return fail(fmt::format("sweep: {}: {} values; at most 64", option, values.size()));
  return values;
}

Expected<std::vector<std::string>> name_list(const std::string& option, const std::string& text) {
  std::vector<std::string> names;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty() || item.size() > 32)
      return fail(
          fmt::format("sweep: {}: '{}' is not a comma-separated list of backends", option, text));
    if (std::find(names.begin(), names.end(), item) != names.end())
      return fail(fmt::format("sweep: {}: '{}' is given twice", option, item));
    names.push_back(item);
  }
  if (names.empty() || text.back() == ',')
    return fail(
        fmt::format("sweep: {}: '{}' is not a comma-separated list of backends", option, text));
  return names;
}

// What the shared options may not say, because a cell says it or because every cell would
// overwrite it: the option's name as the user wrote it, and why.
std::optional<std::string> refused_shared_option(const OptionUse& use, const SweepAxes& axes) {
  const OptionDef& def = *use.def;
  const std::string name = display_name(use);
  const auto is = [&](char s, std::string_view l) {
    return (s != 0 && def.short_name == s) || (!l.empty() && def.long_name == l);
  };
  if (is('n', "") || is('l', "") || is('m', ""))
    return name +
           ": each cell sets its connections (--connections, --udp-connections, "
           "--rr-connections)";
  if (is('b', "")) return name + ": each cell sets -b (--sizes, --udp-sizes, --rr-sizes)";
  if (is('u', "") || is(0, "rr"))
    return name +
           ": a cell's protocol comes from the axis it is on (--sizes TCP, --udp-sizes "
           "UDP, --rr-sizes --rr)";
  if (is(0, "backend") && !axes.backends.empty())
    return name + ": --backends sets each cell's backend";
  if (is('x', "") || is('j', "") || is('O', "") || is(0, "csv") || is(0, "json-stream") ||
      is(0, "json"))
    return name +
           ": every cell would write over the same file; the sweep's --json FILE holds "
           "every cell's runs";
  if (is('D', "")) return name + ": a sweep reports as it goes: it does not run as a daemon";
  return std::nullopt;
}

uint32_t total_connections(const TestSpec& spec) {
  return static_cast<uint32_t>(std::min<uint64_t>(spec.sender_connections(), UINT32_MAX));
}

}  // namespace

std::vector<SweepCell> plan_cells(const SweepAxes& axes, const TestSpec& shared) {
  std::vector<SweepCell> cells;
  std::vector<std::string> backends = axes.backends;
  if (backends.empty()) backends.emplace_back();
  const auto add = [&](CellKind kind, const std::vector<uint32_t>& connections,
                       const std::vector<uint32_t>& sizes) {
    for (uint32_t c : connections)
      for (uint32_t size : sizes)
        for (const std::string& backend : backends) cells.push_back({kind, c, size, backend});
  };
  const bool only_other = axes.connections.empty() && axes.sizes.empty() &&
                          (!axes.udp_sizes.empty() || !axes.rr_sizes.empty());
  if (!only_other)
    add(CellKind::tcp,
        axes.connections.empty() ? std::vector<uint32_t>{total_connections(shared)}
                                 : axes.connections,
        axes.sizes.empty() ? std::vector<uint32_t>{shared.workload.send_buffer} : axes.sizes);
  if (!axes.udp_sizes.empty())
    add(CellKind::udp,
        !axes.udp_connections.empty() ? axes.udp_connections
        : !axes.connections.empty()   ? axes.connections
                                      : std::vector<uint32_t>{1},
        axes.udp_sizes);
  if (!axes.rr_sizes.empty())
    add(CellKind::rr, axes.rr_connections.empty() ? std::vector<uint32_t>{1} : axes.rr_connections,
        axes.rr_sizes);
  return cells;
}

std::vector<std::string> cell_args(const SweepRequest& request, const SweepCell& cell) {
  const uint32_t ports = request.shared.layout.ports;
  const uint32_t used = std::min(cell.connections, ports);
  std::vector<std::string> args = request.shared_args;
  args.insert(args.end(),
              {"-P", std::to_string(used), "-n", std::to_string(cell.connections / used), "-l", "1",
               "-b", std::to_string(cell.size_bytes)});
  if (cell.kind == CellKind::udp) args.emplace_back("-u");
  if (cell.kind == CellKind::rr) args.emplace_back("--rr");
  // Its own receiver, when it has one (the last -p is the one that counts).
  const uint16_t port = cell.kind == CellKind::udp  ? request.udp_port
                        : cell.kind == CellKind::rr ? request.rr_port
                                                    : 0;
  if (port != 0) args.insert(args.end(), {"-p", std::to_string(port)});
  if (!cell.backend.empty()) args.insert(args.end(), {"--backend", cell.backend});
  return args;
}

namespace {

// The sweep's own options a --plan file may hold: its axes and ports, not a sender's options.
bool plan_file_option(const std::string& word) {
  for (const char* name :
       {"--connections", "--sizes", "--udp-sizes", "--udp-connections", "--rr-sizes",
        "--rr-connections", "--backends", "--preset", "--udp-port", "--rr-port"})
    if (word == name) return true;
  return false;
}

// --plan FILE: its words, one option and its value per line ("--connections 1,4,16,64"), '#'
// comments and blank lines skipped. Bounded (64 KiB, 256 lines); only the sweep's own options.
Expected<std::vector<std::string>> plan_file_words(const std::string& path) {
  auto text = read_whole_file(path, 64 * 1024);
  if (!text) return fail("sweep: --plan: " + text.error().message);
  std::vector<std::string> words;
  std::istringstream lines(*text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (number > 256) return fail(fmt::format("sweep: --plan {}: more than 256 lines", path));
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    std::string option, value, extra;
    if (!(fields >> option)) continue;
    if (!plan_file_option(option) || !(fields >> value) || (fields >> extra))
      return fail(
          fmt::format("sweep: --plan {}: line {}: not 'OPTION VALUE' of the sweep's own "
                      "(--connections, --sizes, --udp-sizes, --udp-connections, "
                      "--rr-sizes, --rr-connections, --backends, --preset, --udp-port, "
                      "--rr-port)",
                      path, number));
    words.insert(words.end(), {option, value});
  }
  return words;
}

}  // namespace

Expected<SweepRequest> parse_sweep_args(const std::vector<std::string>& given_args) {
  // --plan FILE's options take its place: the command line's after it still win. The sweep's
  // own options also take "--option=value".
  std::vector<std::string> spelled;
  for (const std::string& word : given_args) {
    const auto equals = word.find('=');
    const std::string name = word.substr(0, equals);
    if (word.rfind("--", 0) == 0 && equals != std::string::npos &&
        (plan_file_option(name) || name == "--plan" || name == "--json")) {
      spelled.push_back(name);
      spelled.push_back(word.substr(equals + 1));
    } else {
      spelled.push_back(word);
    }
  }
  std::vector<std::string> args;
  bool planned = false;
  for (size_t i = 0; i < spelled.size(); ++i) {
    if (spelled[i] != "--plan") {
      args.push_back(spelled[i]);
      continue;
    }
    if (planned) return fail("sweep: --plan is given twice");
    if (i + 1 >= spelled.size()) return fail("sweep: --plan needs a value");
    auto words = plan_file_words(spelled[++i]);
    if (!words) return words.error();
    args.insert(args.end(), words->begin(), words->end());
    planned = true;
  }
  SweepRequest request;
  SweepAxes preset, given;
  bool have_preset = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    const auto value = [&]() -> Expected<std::string> {
      if (i + 1 >= args.size()) return fail(fmt::format("sweep: {} needs a value", word));
      return args[++i];
    };
    const auto numbers = [&](std::vector<uint32_t>& into, uint64_t low, uint64_t high,
                             bool sizes) -> Status {
      auto text = value();
      if (!text) return text.error();
      auto list = number_list(word, *text, low, high, sizes);
      if (!list) return list.error();
      into = std::move(*list);
      return ok();
    };
    Status taken = ok();
    if (word == "--connections") {
      taken = numbers(given.connections, 1, 1u << 20, false);
    } else if (word == "--sizes") {
      taken = numbers(given.sizes, 1, limits::max_buffer_bytes, true);
    } else if (word == "--udp-sizes") {
      taken = numbers(given.udp_sizes, 1, 65527, true);
    } else if (word == "--udp-connections") {
      taken = numbers(given.udp_connections, 1, 1u << 20, false);
    } else if (word == "--rr-sizes") {
      taken = numbers(given.rr_sizes, 1, limits::max_buffer_bytes, true);
    } else if (word == "--rr-connections") {
      taken = numbers(given.rr_connections, 1, 1u << 20, false);
    } else if (word == "--backends") {
      auto text = value();
      if (!text) return text.error();
      auto list = name_list(word, *text);
      if (!list) return list.error();
      given.backends = std::move(*list);
    } else if (word == "--preset") {
      auto text = value();
      if (!text) return text.error();
      if (Status known = apply_preset(*text, preset); !known) return known.error();
      have_preset = true;
    } else if (word == "--udp-port" || word == "--rr-port") {
      auto text = value();
      if (!text) return text.error();
      auto port = parse_count(*text, 65535);
      if (!port || *port < 2)
        return fail(
            fmt::format("sweep: {}: '{}' is not a port from 2 to 65535 (the receiver's "
                        "-p: its sync port is one below)",
                        word, *text));
      (word == "--udp-port" ? request.udp_port : request.rr_port) = static_cast<uint16_t>(*port);
    } else if (word == "--json") {
      auto text = value();
      if (!text) return text.error();
      if (text->empty() || *text == "-")
        return fail("sweep: --json: give a file: the sweep rewrites it after every cell");
      request.json_file = *text;
    } else {
      request.shared_args.push_back(word);
    }
    if (!taken) return taken.error();
  }
  // An axis given on the command line replaces the preset's.
  SweepAxes& axes = request.axes;
  axes = preset;
  if (!given.connections.empty()) axes.connections = given.connections;
  if (!given.sizes.empty()) axes.sizes = given.sizes;
  if (!given.udp_sizes.empty()) axes.udp_sizes = given.udp_sizes;
  if (!given.udp_connections.empty()) axes.udp_connections = given.udp_connections;
  if (!given.rr_sizes.empty()) axes.rr_sizes = given.rr_sizes;
  if (!given.rr_connections.empty()) axes.rr_connections = given.rr_connections;
  axes.backends = given.backends;
  if (!have_preset && given.connections.empty() && given.sizes.empty() && given.udp_sizes.empty() &&
      given.rr_sizes.empty() && given.backends.empty())
    return fail(
        "sweep: nothing to sweep: give --connections, --sizes, --udp-sizes, --rr-sizes, "
        "--backends or --preset");
  if (request.json_file.empty())
    return fail("sweep: --json FILE is required: the sweep keeps every finished cell in it");
  if (request.udp_port != 0 && axes.udp_sizes.empty())
    return fail("sweep: --udp-port: no UDP cell to send there (--udp-sizes)");
  if (request.rr_port != 0 && axes.rr_sizes.empty())
    return fail("sweep: --rr-port: no --rr cell to send there (--rr-sizes)");
  if (!axes.udp_connections.empty() && axes.udp_sizes.empty())
    return fail("sweep: --udp-connections: no UDP cell to give them (--udp-sizes)");
  if (!axes.rr_connections.empty() && axes.rr_sizes.empty())
    return fail("sweep: --rr-connections: no --rr cell to give them (--rr-sizes)");

  auto line = split_getopt_style(request.shared_args, linux_options());
  if (!line) return fail("sweep: " + line.error().message);
  for (const OptionUse& use : line->uses)
    if (auto refused = refused_shared_option(use, axes)) return fail("sweep: " + *refused);
  auto shared = parse_linux_dialect(request.shared_args);
  if (!shared) return fail("sweep: " + shared.error().message);
  if (shared->action != Action::run || shared->spec.role != Role::sender)
    return fail("sweep: the options every cell shares must make a sender: -s HOST ...");
  if (shared->spec.workload.duration_s == 0)
    return fail("sweep: -t 0 runs until stopped: a cell needs a measured window (-t SEC)");
  request.shared = shared->spec;

  request.cells = plan_cells(axes, request.shared);
  if (request.cells.size() > max_sweep_cells)
    return fail(fmt::format("sweep: {} cells; at most {} (fewer values per axis)",
                            request.cells.size(), max_sweep_cells));
  const uint32_t ports = request.shared.layout.ports;
  for (const SweepCell& cell : request.cells) {
    if (cell.connections > ports && cell.connections % ports != 0) {
      const char* option = cell.kind == CellKind::rr ? "--rr-connections"
                           : cell.kind == CellKind::udp && !axes.udp_connections.empty()
                               ? "--udp-connections"
                               : "--connections";
      return fail(fmt::format(
          "sweep: {}: {}: above the receiver's -P {} a cell needs a multiple of it (each port "
          "gets the same number)",
          option, cell.connections, ports));
    }
    // Each cell's whole command line, as its sender will parse it.
    auto parsed = parse_linux_dialect(cell_args(request, cell));
    if (!parsed)
      return fail(fmt::format("sweep: the cell '{}': {}", cell.label(), parsed.error().message));
  }
  return request;
}

std::string sweep_help() {
  return "xttcp sweep -s HOST [sender options] AXES|--plan FILE --json FILE [--repeat N]\n"
         "  Runs a matrix of workloads against one receiver that stays for test after test\n"
         "  (xttcp -r -H -P 64 ... there), each cell --repeat N times, and keeps every finished\n"
         "  cell in FILE (rewritten after each one, so Ctrl+C or a lost host keeps them). Judge\n"
         "  two sweeps with 'xttcp compare BASE.json NEW.json' (one verdict per cell).\n"
         "  Axes (lists are comma-separated; sizes take K/M, 1024-based):\n"
         "    --connections LIST      TCP cells: connections (up to the receiver's -P one port\n"
         "                            each; above it, -P ports with LIST/P each, as LISA does)\n"
         "    --sizes LIST            TCP cells: write sizes (-b)\n"
         "    --udp-sizes LIST        UDP cells: datagram sizes\n"
         "    --udp-connections LIST  UDP cells: flows (default: --connections, else 1)\n"
         "    --rr-sizes LIST         --rr cells: request sizes\n"
         "    --rr-connections LIST   --rr cells: flows (default 1)\n"
         "    --backends LIST         every cell on each of these data paths in turn\n"
         "    --preset lisa           LISA's ladder: TCP 1..20480 connections at -b 64K, UDP\n"
         "                            1..1024 flows at -b 1K (the receiver with -P 64)\n"
         "    --preset quick          TCP 1,4,16,64 x 64K,1M and UDP 64,1400 x 1,4 flows\n"
         "  A receiver serves one protocol: UDP and --rr cells go to the -H receiver at\n"
         "  --udp-port PORT (started with -u) and --rr-port PORT (with --rr), else to -p's.\n"
         "  --plan FILE holds axes (and --preset, --udp-port, --rr-port), one 'OPTION VALUE' a\n"
         "  line, '#' comments; options after it on the command line win.\n"
         "  An axis given beside a preset replaces the preset's. The sender options are\n"
         "  NTTTCP-for-Linux's (-s, -p, -P, -t, -W, -C, -B, -N, --repeat, --repeat-pause, ...)\n"
         "  except those a cell sets (-n, -l, -m, -b, -u, --rr) or files every cell would\n"
         "  overwrite (-x, -j, -O, --csv, --json-stream).\n"
         "  Exit: 0 every cell measured, 1 a cell failed or Ctrl+C (FILE holds what ran),\n"
         "  2 usage.\n";
}

}  // namespace xttcp
