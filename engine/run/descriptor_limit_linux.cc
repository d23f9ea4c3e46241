// Linux: RLIMIT_NOFILE, and fs.nr_open as the ceiling when the hard limit is unlimited.
#include <dirent.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "engine/run/descriptor_limit.hh"

namespace xttcp {

namespace {

uint64_t nr_open() {
  std::ifstream file("/proc/sys/fs/nr_open");
  uint64_t value = 0;
  if (file >> value && value > 0) return value;
  return 1u << 20;  // the kernel's default
}

uint64_t as_count(rlim_t value) { return value == RLIM_INFINITY ? UINT64_MAX : uint64_t{value}; }

}  // namespace

uint64_t open_files_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return UINT64_MAX;
  return as_count(limit.rlim_cur);
}

uint64_t open_files_in_use() {
  // Hello time only, not a hot path: a directory read.
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return 0;
  uint64_t count = 0;
  while (const dirent* entry = readdir(dir))
    if (entry->d_name[0] != '.') ++count;
  closedir(dir);
  return count > 0 ? count - 1 : 0;  // not the directory's own descriptor
}

Status fit_open_files(const TestSpec& spec, uint64_t workers) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return ok();  // nothing to go by: run as is
  const OpenFilesNeed need = open_files_needed(spec, workers);
  auto soft = plan_open_files(need, as_count(limit.rlim_cur), as_count(limit.rlim_max), nr_open());
  if (!soft) return soft.error();
  if (*soft == as_count(limit.rlim_cur)) return ok();
  rlimit raised = limit;
  raised.rlim_cur = *soft == UINT64_MAX ? RLIM_INFINITY : static_cast<rlim_t>(*soft);
  if (setrlimit(RLIMIT_NOFILE, &raised) == 0) return ok();
  if (need.open_ended || need.files <= as_count(limit.rlim_cur)) return ok();
  return fail(
      fmt::format("{} need about {} open files; the limit is {} and could not be raised: "
                  "{}",
                  need.asked_by, need.files, as_count(limit.rlim_cur), std::strerror(errno)));
}

}  // namespace xttcp
