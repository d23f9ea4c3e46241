// Windows: the environment beyond HostInfo's basics is not read yet; the fields stay empty,
// which docs/native-json.md documents ("" = not readable here).
#include "engine/stats/host_environment.hh"

namespace xttcp {

void read_host_environment(HostInfo&, const std::string&, const std::string&) {}

std::optional<NicIdentity> read_nic_identity(const std::string&, const std::string&) {
  return std::nullopt;
}

}  // namespace xttcp
