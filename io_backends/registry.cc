// Finding and choosing a backend among those this OS's build has (backend_table_<os>.cc).
#include "io_backends/registry.hh"

#include <string>

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

Expected<Backend*> select_backend(const TestSpec& spec) {
  if (spec.backend == auto_backend) {
    for (const auto& backend : all_backends()) {
      if (!backend->probe().available || !backend->auto_refusal(spec).empty()) continue;
      if (backend->check(spec)) return backend.get();
    }
    if (fallback_backend().empty()) {
      std::string reason = "no data path in this build";
      for (const AbsentBackend& absent : absent_backends())
        reason += "; " + absent.name + ": " + absent.reason;
      return fail("--backend auto: " + reason + " (--backend null runs the engine without I/O)");
    }
    auto fallback = find_backend(fallback_backend());
    if (!fallback) return fallback.error();
    if (Status supported = (*fallback)->check(spec); !supported) return supported.error();
    return *fallback;
  }
  auto backend = find_backend(spec.backend);
  if (!backend) return backend.error();
  if (Status supported = (*backend)->check(spec); !supported) return supported.error();
  return *backend;
}

std::string auto_choice_note(const TestSpec& spec, const Backend& chosen) {
  if (spec.backend != auto_backend) return {};
  std::string refusals;
  for (const auto& backend : all_backends()) {
    if (backend.get() == &chosen) break;
    if (!backend->probe().available || !backend->auto_refusal(spec).empty()) continue;
    if (Status supported = backend->check(spec); !supported)
      refusals += (refusals.empty() ? "" : "; ") + supported.error().message;
  }
  if (refusals.empty()) return {};
  return "--backend auto runs " + std::string(chosen.name()) + ": " + refusals;
}

}  // namespace xttcp
