// calibrate's command line: its own small grammar (the same in every dialect), like compare-paths'.
#include <fmt/format.h>

#include "tools/paths/calibrate_command.hh"
#include "tools/paths/count_option.hh"

namespace xttcp {

Expected<CalibrateRequest> parse_calibrate_args(const std::vector<std::string>& args) {
  CalibrateRequest request;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    auto counted = [&](uint64_t low, uint64_t high) -> Expected<uint64_t> {
      if (i + 1 >= args.size()) return fail(fmt::format("calibrate: {} needs a value", word));
      return count_option("calibrate", word, args[++i], low, high);
    };
    if (word == "-t") {
      auto v = counted(1, 60);
      if (!v) return v.error();
      request.seconds = static_cast<uint32_t>(*v);
    } else if (word == "--repeat") {
      auto v = counted(1, 10);
      if (!v) return v.error();
      request.repeat = static_cast<uint32_t>(*v);
    } else if (word == "--show") {
      request.show_only = true;
    } else {
      return fail(
          fmt::format("calibrate: unknown option '{}' (see 'xttcp calibrate --help')", word));
    }
  }
  if (request.show_only && args.size() > 1)
    return fail("calibrate: --show measures nothing: it takes no other option");
  return request;
}

std::string calibrate_help() {
  return "xttcp calibrate [-t SEC] [--repeat N] | --show\n"
         "  Measures each kernel-socket data path this build has (epoll, io_uring) on\n"
         "  127.0.0.1 only, as receiver and sender process pairs, for TCP streams of 1 and of\n"
         "  64 connections, each with the receive copy skipped (the default) and done\n"
         "  (--skip-rx-copy=off), and records per shape the one that moved the most bytes\n"
         "  (the highest median). While the runs overlap it measures up to 2 more rounds; a\n"
         "  path whose runs still overlap and whose median is within 5 % is a tie, which the\n"
         "  cheaper in CPU-s/GB takes.\n"
         "  --backend auto then takes the record's choice for a run of that shape on this\n"
         "  host, kernel, CPU and build, and says why; without a record it takes its rule\n"
         "  (docs/data-paths.md). The record is $XDG_CACHE_HOME/xttcp/auto-backend.json (else\n"
         "  ~/.cache/xttcp/): read it, or delete it to forget. Run it on a quiet machine: each\n"
         "  shape's figures come with the load average around them.\n"
         "  -t        seconds per run (default 1)\n"
         "  --repeat  runs per data path and shape, alternating (default 2; the median is kept):\n"
         "            4 shapes x 2 paths x (--repeat + up to 2) runs of a 1-s warm-up, -t\n"
         "            and about 1 s more each\n"
         "  --show    print what the record says for this host, measuring nothing\n"
         "  Exit: 0 measured (or shown), 1 a run failed or the record cannot be written, 2 "
         "usage.\n";
}

}  // namespace xttcp
