// compare-paths' command line: its own small grammar (the same in both dialects), like compare's.
#include <fmt/format.h>

#include "base/units.hh"
#include "engine/rr_spec.hh"
#include "engine/spec.hh"
#include "tools/paths/count_option.hh"
#include "tools/paths/paths_command.hh"

namespace xttcp {

namespace {

Expected<uint64_t> size_in(const std::string& option, const std::string& text, uint64_t high) {
  auto value = parse_size(text);
  if (!value || *value == 0 || *value > high)
    return fail(fmt::format("compare-paths: {}: '{}' is not a size from 1 B to {} B (e.g. 64, 8K)",
                            option, text, high));
  return *value;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string::npos ? text.size() : comma;
    items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

}  // namespace

Expected<PathsRequest> parse_paths_args(const std::vector<std::string>& args) {
  PathsRequest request;
  PathWorkload& w = request.workload;
  w.seconds = 5;
  w.repeat = 3;
  std::optional<uint64_t> buffer, response;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    auto value = [&]() -> Expected<std::string> {
      if (i + 1 >= args.size()) return fail(fmt::format("compare-paths: {} needs a value", word));
      return args[++i];
    };
    auto counted = [&](uint64_t low, uint64_t high) -> Expected<uint64_t> {
      auto text = value();
      if (!text) return text.error();
      return count_option("compare-paths", word, *text, low, high);
    };
    auto sized = [&](uint64_t high) -> Expected<uint64_t> {
      auto text = value();
      if (!text) return text.error();
      return size_in(word, *text, high);
    };
    if (word == "--backends") {
      auto text = value();
      if (!text) return text.error();
      request.backends = split_list(*text);
      for (size_t a = 0; a < request.backends.size(); ++a) {
        if (request.backends[a].empty())
          return fail(
              "compare-paths: --backends: an empty name (a comma-separated list, e.g. "
              "epoll,io_uring)");
        for (size_t b = 0; b < a; ++b)
          if (request.backends[a] == request.backends[b])
            return fail(
                fmt::format("compare-paths: --backends: '{}' is named twice", request.backends[a]));
      }
    } else if (word == "-u" || word == "--udp") {
      w.protocol = Protocol::udp;
    } else if (word == "--rr") {
      w.rr = true;
    } else if (word == "-b") {
      auto v = sized(limits::max_buffer_bytes);
      if (!v) return v.error();
      buffer = *v;
    } else if (word == "--response-size") {
      auto v = sized(limits::max_buffer_bytes);
      if (!v) return v.error();
      response = *v;
    } else if (word == "--rr-depth") {
      auto v = counted(1, rr_limits::max_depth);
      if (!v) return v.error();
      w.depth = static_cast<uint32_t>(*v);
    } else if (word == "-P") {
      auto v = counted(1, limits::max_ports);
      if (!v) return v.error();
      w.ports = static_cast<uint32_t>(*v);
    } else if (word == "-n") {
      auto v = counted(1, 1024);
      if (!v) return v.error();
      w.threads_per_port = static_cast<uint32_t>(*v);
    } else if (word == "-t") {
      auto v = counted(1, 3600);
      if (!v) return v.error();
      w.seconds = static_cast<double>(*v);
    } else if (word == "-W") {
      auto v = counted(0, 3600);
      if (!v) return v.error();
      w.warmup_s = static_cast<uint32_t>(*v);
    } else if (word == "--repeat") {
      auto v = counted(1, 100);
      if (!v) return v.error();
      w.repeat = static_cast<uint32_t>(*v);
    } else if (word == "-p") {
      auto v = counted(2, 65000);
      if (!v) return v.error();
      request.port = static_cast<uint16_t>(*v);
    } else if (word == "--to" || word == "--from") {
      auto address = value();
      if (!address) return address.error();
      if (address->empty() || address->starts_with("-"))
        return fail(fmt::format("compare-paths: {}: '{}' is not an address", word, *address));
      (word == "--to" ? request.to : request.from) = *address;
    } else if (word == "--netns") {
      auto text = value();
      if (!text) return text.error();
      const std::vector<std::string> pair = split_list(*text);
      if (pair.size() != 2 || pair[0].empty() || pair[1].empty())
        return fail(
            fmt::format("compare-paths: --netns: '{}' is not RECEIVER_NS,SENDER_NS", *text));
      request.receiver_netns = pair[0];
      request.sender_netns = pair[1];
    } else if (word == "--receiver-dpdk-args" || word == "--sender-dpdk-args") {
      auto args_text = value();
      if (!args_text) return args_text.error();
      (word == "--receiver-dpdk-args" ? request.receiver_dpdk_args : request.sender_dpdk_args) =
          *args_text;
    } else if (word == "--json") {
      auto file = value();
      if (!file) return file.error();
      request.json_file = *file;
    } else if (word == "--runs-dir") {
      auto dir = value();
      if (!dir) return dir.error();
      request.runs_dir = *dir;
    } else {
      return fail(
          fmt::format("compare-paths: unknown option '{}' (see 'xttcp compare-paths "
                      "--help')",
                      word));
    }
  }
  if (!w.rr && (response || w.depth != 1))
    return fail(
        fmt::format("compare-paths: {} needs --rr", response ? "--response-size" : "--rr-depth"));
  for (const std::string& backend : request.backends)
    if (backend == "dpdk" &&
        (request.receiver_dpdk_args.empty() || request.sender_dpdk_args.empty()))
      return fail(
          "compare-paths: --backends dpdk needs --receiver-dpdk-args and "
          "--sender-dpdk-args (each end's EAL arguments: the port it drives)");
  if (w.ports * uint64_t{w.threads_per_port} > rr_limits::max_flows)
    return fail(fmt::format("compare-paths: -P x -n: at most {} flows", rr_limits::max_flows));
  // Sizes left unset stay the sender's own defaults; the table reads them from its result.
  w.buffer_bytes = buffer.value_or(0);
  w.response_bytes = response.value_or(0);
  return request;
}

std::string paths_help() {
  return "xttcp compare-paths [--backends LIST] [-u] [--rr] [-b SIZE] [--response-size SIZE]\n"
         "                    [--rr-depth N] [-P N] [-n N] [-W SEC] [-t SEC] [--repeat N]\n"
         "                    [-p PORT] [--json FILE|-] [--runs-dir DIR] [--to ADDR]\n"
         "                    [--from ADDR] [--netns RECV_NS,SEND_NS]\n"
         "                    [--receiver-dpdk-args A] [--sender-dpdk-args A]\n"
         "  Runs one workload (a stream, or request/response with --rr; TCP, or UDP with -u) on\n"
         "  each backend in turn as a receiver and sender process pair (on 127.0.0.1, or\n"
         "  --to/--from addresses between two --netns namespaces), the\n"
         "  backends alternating and each round repeated (--repeat, default 3), and prints one\n"
         "  table: Gbit/s, packets or transactions/s, cycles per byte, packet or transaction\n"
         "  (CPU time of both processes and of the kernel's ksoftirqd threads x the CPU clock),\n"
         "  CPU-s/GB, round-trip percentiles with --rr, and every figure's ratio to epoll's.\n"
         "  --backends   comma-separated (default: epoll and io_uring, where available)\n"
         "  -P, -n       ports, and sender threads per port (default 1 and 1)\n"
         "  -W           seconds of warm-up before each run's window (default 0): the\n"
         "               first second can differ from the steady state (calibrate uses 1)\n"
         "  -t           seconds per run (default 5)\n"
         "  --json       the table as JSON (schema xttcp-paths); '-' prints it instead\n"
         "  --runs-dir   every backend's runs as DIR/BACKEND.json, which 'xttcp compare' reads\n"
         "  --*-dpdk-args  each dpdk end's EAL arguments (needed with --backends dpdk)\n"
         "  Exit: 0 every run completed, 1 a run failed, 2 usage error.\n";
}

}  // namespace xttcp
