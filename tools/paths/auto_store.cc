#include "tools/paths/auto_store.hh"

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "base/read_file.hh"
#include "engine/report/result_file.hh"
#include "engine/stats/system_probe.hh"

namespace xttcp {

namespace fs = std::filesystem;

std::string auto_record_path() {
  const char* cache = std::getenv("XDG_CACHE_HOME");
  if (cache != nullptr && *cache == '/') return fmt::format("{}/xttcp/auto-backend.json", cache);
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home == '/')
    return fmt::format("{}/.cache/xttcp/auto-backend.json", home);
  return {};
}

HostIdentity this_host_identity(const std::string& xttcp) {
  const HostInfo host = read_host_info();
  return {host.hostname, host.kernel, host.cpu_model, xttcp};
}

Expected<std::vector<AutoEntry>> load_auto_record(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::vector<AutoEntry>{};
  auto text = read_whole_file(path, auto_record_max_bytes);
  if (!text) return text.error();
  auto entries = parse_auto_record(*text);
  if (!entries) return fail(fmt::format("{}: {}", path, entries.error().message));
  return entries;
}

Status prepare_auto_record(const std::string& path) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec)
    return fail(
        fmt::format("cannot create {}: {}", fs::path(path).parent_path().string(), ec.message()));
  return check_result_path(path, "the record");
}

Status save_auto_record(const std::string& path, const std::vector<AutoEntry>& entries) {
  return write_file_atomically(path, render_auto_record(entries));
}

AutoAdvice auto_advice(const TestSpec& spec, const std::string& xttcp) {
  const std::optional<WorkloadShape> shape = shape_of(spec);
  if (!shape) return {{}, {}, "calibrate measures TCP streams only"};
  const std::string path = auto_record_path();
  if (path.empty()) return {{}, {}, "no cache directory (neither XDG_CACHE_HOME nor HOME is set)"};
  auto entries = load_auto_record(path);
  if (!entries) return {{}, {}, fmt::format("the record is ignored: {}", entries.error().message)};
  const AutoEntry* entry = find_auto_entry(*entries, this_host_identity(xttcp), *shape);
  if (entry == nullptr)
    return {{},
            {},
            fmt::format("{}: not measured on this host, kernel and build ('xttcp calibrate' "
                        "measures)",
                        shape_words(*shape))};
  return {entry->chosen, auto_reason(*entry), {}};
}

}  // namespace xttcp
