// What every role needs before it starts: the backend it was handed (chosen and checked against
// the spec by the tools layer, once), its plan on this host's CPUs and the open files its
// connections need (descriptor_limit.hh). Any failure here is a usage error.
#pragma once

#include <string_view>
#include <vector>

#include "engine/backend/backend.hh"
#include "engine/plan.hh"

namespace xttcp {

struct RunSetup {
  Backend* backend = nullptr;
  Plan plan;
};

Expected<RunSetup> prepare_run(const TestSpec& spec, Backend& backend);

// A plan for `spec` on the CPUs `made` chose, without reading the host's topology again (tens
// of milliseconds): for a test that starts at once (a --reverse test's receiver). With -na the
// topology is read all the same.
Expected<Plan> replan(const TestSpec& spec, const Plan& made, Backend& backend);

// plan.hosts resolved, once each, before anything starts (ports unset). Error: one line naming
// the option that gave the host: -m in the NTttcp-for-Windows dialect, else `option` (-s, -r),
// e.g. "-m: cannot resolve 'nohost' as an IPv4 address: Name or service not known".
Expected<std::vector<SocketAddress>> resolve_hosts(const TestSpec& spec, const Plan& plan,
                                                   std::string_view option);

}  // namespace xttcp
