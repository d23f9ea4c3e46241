// Where the auto record lives and how a run consults it (docs/data-paths.md, "How auto
// chooses"): $XDG_CACHE_HOME/xttcp/auto-backend.json, else ~/.cache/xttcp/auto-backend.json.
// Reading never fails a run: a missing record means auto takes its rule, and a damaged one is
// said in the reason and ignored.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.hh"
#include "engine/spec.hh"
#include "tools/paths/auto_record.hh"

namespace xttcp {

// The record's path, or "" when neither XDG_CACHE_HOME nor HOME is set.
std::string auto_record_path();

// This host as the record keys it: host name, kernel release, CPU model, and `xttcp` (the
// version and build commit of this program).
HostIdentity this_host_identity(const std::string& xttcp);

// The record's entries; an empty list when there is no file. Errors name the file.
Expected<std::vector<AutoEntry>> load_auto_record(const std::string& path);
// Creates the record's directory and checks that the record can be written there: before a
// calibration measures, so a record it could not keep costs no runs.
Status prepare_auto_record(const std::string& path);
// Writes the entries whole (write_file_atomically).
Status save_auto_record(const std::string& path, const std::vector<AutoEntry>& entries);

// What --backend auto should prefer for `spec` on this host, and the sentence that says why:
// `best` is empty when nothing measured applies (then `why_not` says why: no record, another
// shape, a damaged file).
struct AutoAdvice {
  std::string best;
  std::string why;      // the measured reason (auto_reason), when best is set
  std::string why_not;  // otherwise: "not measured on this host ('xttcp calibrate' measures)"
};
AutoAdvice auto_advice(const TestSpec& spec, const std::string& xttcp);

}  // namespace xttcp
