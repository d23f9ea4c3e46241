#include "tools/backends_command.hh"

#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/exit_codes.hh"
#include "io_backends/registry.hh"
#include "tools/cli/help_layout.hh"
#include "tools/paths/auto_store.hh"
#include "tools/version_text.hh"

namespace xttcp {

namespace {

constexpr std::size_t detail_column = 11;  // under the status, past "io_uring  "
constexpr std::size_t width = 100;

// `first` then the words of `text`, wrapped at `width`, continuation lines at detail_column.
void wrapped(std::string& out, std::string first, std::string_view text) {
  std::string line = std::move(first);
  const std::size_t bare = line.size();
  for (const std::string& word : split_words(text)) {
    if (line.size() > bare && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.assign(detail_column, ' ');
    } else if (!line.empty() && line.back() != ' ') {
      line += ' ';
    }
    line += word;
  }
  out += line + "\n";
}

// One row under the backend's name: "label text", indented to the status column.
void detail(std::string& out, std::string_view label, std::string_view text) {
  if (text.empty()) return;
  std::string first(detail_column, ' ');
  wrapped(out, first.append(label), text);
}

// "tcp,udp" -> "tcp, udp": wrappable words. Built anew, not insert()ed into (GCC 12's
// -Wrestrict misreads an inlined insert).
std::string comma_spaced(std::string_view text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == ',') out += ' ';
  }
  return out;
}

}  // namespace

int print_backends(const TestSpec& options) {
  std::string out;
  for (const auto& backend : all_backends()) {
    const Availability availability = backend->probe();
    out += fmt::format("{:<{}}{}\n", backend->name(), detail_column,
                       availability.available ? "available" : "missing");
    detail(out, "", backend->description());
    detail(out, availability.available ? "found:" : "why:", availability.reason);
    detail(out, "can:", comma_spaced(describe_capabilities(backend->capabilities())));
    if (availability.available)
      for (const std::string& device : backend->devices(options)) detail(out, "device:", device);
  }
  for (const AbsentBackend& absent : absent_backends()) {
    out += fmt::format("{:<{}}{}\n", absent.name, detail_column, "missing");
    detail(out, "why:", absent.reason);
  }
  // What --backend auto (the default) takes, and why the backends before it were passed over.
  for (Protocol protocol : {Protocol::tcp, Protocol::udp}) {
    TestSpec spec;
    spec.workload.protocol = protocol;
    auto chosen = choose_backend(spec, auto_advice(spec, build_identity()).best);
    const std::string left = fmt::format("auto ({}):", to_string(protocol));
    if (!chosen) {
      wrapped(out, left, fmt::format("none: {}", chosen.error().message));
      continue;
    }
    std::string why;
    for (const auto& backend : all_backends()) {
      if (backend.get() == &chosen->backend) break;
      if (!backend->probe().available) continue;
      why.append("; not ").append(backend->name()).append(": ").append(backend->auto_refusal(spec));
    }
    if (chosen->measured) why = "; measured fastest here for the default workload (below)";
    wrapped(out, left, fmt::format("{}{}", chosen->backend.name(), why));
  }
  // What `xttcp calibrate` measured on this host, kernel and build, per workload shape.
  if (const std::string record = auto_record_path(); !record.empty()) {
    if (auto entries = load_auto_record(record); !entries) {
      wrapped(out, "auto record:", "ignored: " + entries.error().message);
    } else {
      const HostIdentity identity = this_host_identity(build_identity());
      for (const WorkloadShape& shape : calibrated_shapes())
        if (const AutoEntry* entry = find_auto_entry(*entries, identity, shape))
          wrapped(out, "auto (measured):", auto_reason(*entry));
    }
  }
  std::fputs(out.c_str(), stdout);
  return exit_code::success;
}

}  // namespace xttcp
