// Finding and choosing a backend among those this OS's build has (backend_table_<os>.cc).
#include "io_backends/registry.hh"

#include <cstddef>
#include <string>
#include <vector>

#include "engine/backend/option_check.hh"

namespace xttcp {

Expected<Backend*> find_backend(std::string_view name) {
  std::string known;
  for (const auto& backend : all_backends()) {
    if (backend->name() == name) {
      Availability availability = backend->probe();
      if (!availability.available)
        return fail("--backend " + std::string(name) + ": not available: " + availability.reason);
      return backend.get();
    }
    known += (known.empty() ? "" : ", ") + std::string(backend->name());
  }
  return fail("--backend: unknown backend '" + std::string(name) + "' (this build has: auto, " +
              known + "; see 'xttcp backends')");
}

namespace {

// A backend `auto` would have preferred but that refused one of the spec's options.
struct Refusal {
  std::size_t rank = 0;  // its place in all_backends()
  std::string reason;    // check()'s line, naming the option
};

std::size_t rank_of(const Backend& backend) {
  const auto& backends = all_backends();
  for (std::size_t i = 0; i < backends.size(); ++i)
    if (backends[i].get() == &backend) return i;
  return backends.size();
}

// "--backend auto runs epoll: <refusal>; <refusal>" over those ranked before `chosen`.
std::string auto_note(const Backend& chosen, const std::vector<Refusal>& refusals) {
  const std::size_t rank = rank_of(chosen);
  std::string reasons;
  for (const Refusal& refusal : refusals)
    if (refusal.rank < rank) reasons += (reasons.empty() ? "" : "; ") + refusal.reason;
  if (reasons.empty()) return {};
  return "--backend auto runs " + std::string(chosen.name()) + ": " + reasons;
}

}  // namespace

Expected<BackendChoice> choose_backend(const TestSpec& spec, std::string_view measured_best) {
  if (spec.backend != auto_backend) {
    auto backend = find_backend(spec.backend);
    if (!backend) return backend.error();
    if (Status supported = accepts(**backend, spec); !supported) return supported.error();
    return BackendChoice{**backend, {}};
  }
  const auto& backends = all_backends();
  for (const auto& backend : backends)
    if (!measured_best.empty() && backend->name() == measured_best && backend->probe().available &&
        backend->auto_refusal(spec).empty() && accepts(*backend, spec))
      return BackendChoice{*backend, {}, true};
  std::vector<Refusal> refusals;
  for (std::size_t rank = 0; rank < backends.size(); ++rank) {
    Backend& backend = *backends[rank];
    if (!backend.probe().available || !backend.auto_refusal(spec).empty()) continue;
    Status supported = accepts(backend, spec);
    if (supported) return BackendChoice{backend, auto_note(backend, refusals)};
    refusals.push_back({rank, supported.error().message});
  }
  if (fallback_backend().empty()) {
    std::string reason = "no data path in this build";
    for (const AbsentBackend& absent : absent_backends())
      reason += "; " + absent.name + ": " + absent.reason;
    return fail("--backend auto: " + reason + " (--backend null runs the engine without I/O)");
  }
  auto fallback = find_backend(fallback_backend());
  if (!fallback) return fallback.error();
  if (Status supported = accepts(**fallback, spec); !supported) return supported.error();
  return BackendChoice{**fallback, auto_note(**fallback, refusals)};
}

}  // namespace xttcp
