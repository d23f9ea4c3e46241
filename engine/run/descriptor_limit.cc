#include "engine/run/descriptor_limit.hh"

#include "engine/run/reverse_roles.hh"

#include <fmt/format.h>

#include <algorithm>

namespace xttcp {

OpenFilesNeed open_files_needed(const TestSpec& spec, uint64_t workers) {
  OpenFilesNeed need;
  const uint64_t least = open_files_least + open_files_least_per_worker * workers;
  const uint64_t overhead = open_files_margin + open_files_per_worker * workers;
  if (spec.role == Role::receiver) {
    need.files = spec.layout.ports + least;  // listeners; the connections come on top
    need.comfortable = spec.layout.ports + overhead;
    need.open_ended = true;
    need.asked_by = fmt::format("{}: {} listening ports",
                                spec.dialect == Dialect::windows ? "-m" : "-P", spec.layout.ports);
    return need;
  }
  // UDP: one socket per flow; --bidir: a second set, for the receiver to send on.
  const uint64_t connections = connections_made(spec);
  need.files = connections + least;
  need.comfortable = connections + overhead;
  const char* options = spec.dialect == Dialect::windows ? "-m" : "-P (or -m) x -n x -l";
  need.asked_by = fmt::format("{}: {} {}", options, connections,
                              spec.workload.protocol == Protocol::udp ? "sockets" : "connections");
  return need;
}

Expected<uint64_t> plan_open_files(const OpenFilesNeed& need, uint64_t soft, uint64_t hard,
                                   uint64_t ceiling) {
  if (need.files > hard)
    return fail(
        fmt::format("{} need about {} open files, more than this process may open "
                    "(hard limit {}; ulimit -Hn): raise it or ask for fewer",
                    need.asked_by, need.files, hard));
  if (need.open_ended) return std::max(soft, std::min(hard, std::max(ceiling, need.comfortable)));
  return std::max(soft, std::min(hard, need.comfortable));
}

}  // namespace xttcp

namespace xttcp {

std::optional<std::string> connections_do_not_fit(uint64_t connections, uint64_t open_files_limit,
                                                  uint64_t kept, uint64_t in_use) {
  if (open_files_limit == UINT64_MAX || kept >= open_files_limit) return std::nullopt;
  const uint64_t usable = open_files_limit - kept;
  const uint64_t room = usable > in_use ? usable - in_use : 0;
  if (connections <= room) return std::nullopt;
  return fmt::format(
      "the sender opens {} data connections and this receiver has room for {} (open-files "
      "limit {}, {} open, the last {} kept for the sync port): raise the receiver's limit to at "
      "least {} (ulimit -n), or give the sender fewer connections (-P, -n, -l)",
      connections, room, open_files_limit, in_use, kept, open_files_limit + connections - room);
}

}  // namespace xttcp
