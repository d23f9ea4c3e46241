// `xttcp --version`: the build's facts come from the configure step (xttcp_build_info.h,
// written by the top meson.build), the data paths from the backend registry, so the text
// cannot drift from what the binary holds.
#include "tools/version_text.hh"

#include <fmt/format.h>

#include <nlohmann/json_fwd.hpp>

#include "io_backends/registry.hh"
#include "xttcp_build_info.h"
#include "xttcp_config.h"

namespace xttcp {

std::string build_identity() { return fmt::format("{} ({})", XTTCP_VERSION, build_commit()); }

std::string version_text() {
  std::string paths;
  for (const auto& backend : all_backends())
    paths += (paths.empty() ? "" : ", ") + std::string(backend->name());
  for (const AbsentBackend& absent : absent_backends())
    paths += fmt::format("; not {}: {}", absent.name, absent.reason);

  std::string libraries = XTTCP_BUILD_LIBRARIES;  // the linked ones, as pkg-config found them
  libraries += fmt::format("{}fmt {}.{}.{}, nlohmann_json {}.{}.{}", libraries.empty() ? "" : ", ",
                           FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100,
                           NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR,
                           NLOHMANN_JSON_VERSION_PATCH);

  return fmt::format(
      "xttcp {}\n"
      "commit:     {}\n"
      "data paths: {}\n"
      "libraries:  {}\n"
      "built with: {}, {} build, for {}\n",
      XTTCP_VERSION, build_commit(), paths, libraries, XTTCP_BUILD_COMPILER, XTTCP_BUILD_TYPE,
      XTTCP_BUILD_HOST);
}

}  // namespace xttcp
