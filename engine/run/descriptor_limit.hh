// Open files (RLIMIT_NOFILE) against what a run asks for: the soft limit is raised to what the
// run needs, up to the hard limit, or the run is refused before anything starts, naming the
// numbers and the options that ask for the connections. A receiver cannot know how many
// connections will come: it takes the hard limit (its listeners rest when even that runs out,
// io_backends/common/accept_failure.hh).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/spec.hh"
#include "base/status.hh"

namespace xttcp {

struct OpenFilesNeed {
  uint64_t files = 0;        // what the run cannot do without: below it, refused
  uint64_t comfortable = 0;  // what the soft limit is raised to (up to the hard limit)
  bool open_ended = false;   // receiver: peers decide how many more; take the hard limit
  std::string asked_by;      // "-P x -n x -l: 10000 connections", for the refusal
};

// Descriptors besides the connections and listeners: stdio, the sync socket, log and result
// files, /proc probes, and per worker its epoll or io_uring instance and its connect set. The
// least a run gets by with, and what the soft limit is raised to when it can.
inline constexpr uint64_t open_files_least = 16;
inline constexpr uint64_t open_files_least_per_worker = 2;
inline constexpr uint64_t open_files_margin = 64;
inline constexpr uint64_t open_files_per_worker = 4;

OpenFilesNeed open_files_needed(const TestSpec& spec, uint64_t workers);

// Pure: the soft limit to set (the current one when it is enough), or the one-line refusal.
// `hard` may be RLIM_INFINITY-like (UINT64_MAX); `ceiling` bounds what an open-ended need takes
// then (Linux: fs.nr_open).
Expected<uint64_t> plan_open_files(const OpenFilesNeed& need, uint64_t soft, uint64_t hard,
                                   uint64_t ceiling);

// The soft limit now (UINT64_MAX where the OS has none: Windows, or unlimited).
uint64_t open_files_limit();

// Descriptors open now (Linux: /proc/self/fd; 0 where the OS has no such count: Windows).
uint64_t open_files_in_use();

// A receiver's hello check: why `connections` more data connections do not fit below the
// descriptors kept for the sync port (`open_files_limit`, `kept`, `in_use`), naming the limit to
// set; nothing when they fit or when there is no limit.
std::optional<std::string> connections_do_not_fit(uint64_t connections, uint64_t open_files_limit,
                                                  uint64_t kept, uint64_t in_use);

// Reads the limits, raises the soft one per plan_open_files (no-op where the OS has no such
// limit: Windows).
Status fit_open_files(const TestSpec& spec, uint64_t workers);

}  // namespace xttcp
