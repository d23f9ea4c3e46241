#include "tools/cli/output_paths.hh"

#include <fmt/format.h>

#include <filesystem>
#include <vector>

namespace xttcp {

namespace {

namespace fs = std::filesystem;

// One regular file (or one yet to be made) under both names. A device, a FIFO or a terminal
// (/dev/null, /dev/stdout) takes each output in turn: nothing there is overwritten.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  const fs::path left = fs::absolute(a, ec).lexically_normal();
  const fs::path right = fs::absolute(b, ec).lexically_normal();
  const fs::file_status status = fs::status(left, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) return false;
  if (left == right) return true;
  return fs::exists(left, ec) && fs::exists(right, ec) && fs::equivalent(left, right, ec);
}

}  // namespace

Status check_distinct_outputs(std::initializer_list<NamedOutput> outputs) {
  std::vector<const NamedOutput*> given;
  for (const NamedOutput& output : outputs)
    if (output.file->has_value() && !(output.dash_is_stdout && **output.file == "-"))
      given.push_back(&output);
  for (size_t i = 0; i < given.size(); ++i)
    for (size_t j = i + 1; j < given.size(); ++j)
      if (same_file(**given[i]->file, **given[j]->file))
        return fail(fmt::format(
            "{} and {} name the same file ({}): one would overwrite the other; give each its own",
            given[i]->option, given[j]->option, **given[j]->file));
  return ok();
}

}  // namespace xttcp
