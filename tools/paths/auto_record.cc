#include "tools/paths/auto_record.hh"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/report/bounded_json.hh"

namespace xttcp {

namespace {

using json = nlohmann::ordered_json;

constexpr std::size_t max_text = 256;  // any one string of the record

Expected<std::string> text_field(const json& j, const char* key, const char* where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string())
    return fail(fmt::format("{}: '{}' is missing or not a string", where, key));
  const auto& text = it->get_ref<const std::string&>();
  if (text.size() > max_text)
    return fail(fmt::format("{}: '{}' is longer than {} bytes", where, key, max_text));
  return text;
}

Expected<double> number_field(const json& j, const char* key, const char* where, double max) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number())
    return fail(fmt::format("{}: '{}' is missing or not a number", where, key));
  const double value = it->get<double>();
  if (!std::isfinite(value) || value < 0 || value > max)
    return fail(fmt::format("{}: '{}' is {}, outside 0..{}", where, key, value, max));
  return value;
}

// A path's figure: 0 (nothing measured) or a measurement between 1e-9 and 1e6 (Gbit/s, CPU-s/GB).
// A denormal is no measurement, and it would make the ratios auto prints infinite.
Expected<double> figure_field(const json& j, const char* key) {
  auto value = number_field(j, key, "path", 1e6);
  if (value && *value != 0 && *value < 1e-9)
    return fail(fmt::format("path: '{}' is {}, neither 0 nor at least 1e-9", key, *value));
  return value;
}

Expected<AutoEntry> parse_entry(const json& j) {
  if (!j.is_object()) return fail("an entry is not an object");
  AutoEntry e;
  Expected<std::string> fields[] = {
      text_field(j, "host", "entry"),      text_field(j, "kernel", "entry"),
      text_field(j, "cpu_model", "entry"), text_field(j, "xttcp", "entry"),
      text_field(j, "shape", "entry"),     text_field(j, "measured_on", "entry"),
      text_field(j, "chosen", "entry")};
  for (const auto& field : fields)
    if (!field) return field.error();
  e.identity = {*fields[0], *fields[1], *fields[2], *fields[3]};
  e.shape = *fields[4];
  e.measured_on = *fields[5];
  e.chosen = *fields[6];
  auto seconds = number_field(j, "seconds", "entry", 3600);
  if (!seconds) return seconds.error();
  e.seconds = *seconds;
  auto paths = j.find("paths");
  if (paths == j.end() || !paths->is_array() || paths->size() > auto_record_max_backends)
    return fail(fmt::format("entry: 'paths' is missing, not an array or longer than {}",
                            auto_record_max_backends));
  for (const json& p : *paths) {
    if (!p.is_object()) return fail("entry: a path is not an object");
    auto backend = text_field(p, "backend", "path");
    if (!backend) return backend.error();
    Expected<double> numbers[] = {
        figure_field(p, "throughput_gbps"), figure_field(p, "throughput_min_gbps"),
        figure_field(p, "throughput_max_gbps"), figure_field(p, "cpu_s_per_gb"),
        number_field(p, "runs", "path", auto_record_max_runs)};
    for (const auto& number : numbers)
      if (!number) return number.error();
    const MeasuredPath path{*backend,    *numbers[0], *numbers[3],
                            *numbers[1], *numbers[2], static_cast<uint32_t>(*numbers[4])};
    if (!(path.throughput_min_gbps <= path.throughput_gbps &&
          path.throughput_gbps <= path.throughput_max_gbps) ||
        path.runs < 1 || static_cast<double>(path.runs) != *numbers[4])
      return fail(
          fmt::format("path '{}': its runs are not a range holding the median", path.backend));
    e.paths.push_back(path);
  }
  // The choice must be one of the measured paths and what they decide: a hand-edited record
  // that names another is refused rather than followed.
  if (e.chosen != choose_measured(e.paths))
    return fail(fmt::format("entry '{}': chosen '{}' is not what its measurements decide", e.shape,
                            e.chosen));
  return e;
}

}  // namespace

std::string shape_key(const WorkloadShape& shape) {
  return fmt::format("tcp/{}/{}", shape.many_connections ? "many" : "1",
                     shape.receive_copy ? "copy" : "no-copy");
}

std::string shape_words(const WorkloadShape& shape) {
  return fmt::format("{}, {}", shape.many_connections ? "many TCP connections" : "1 TCP connection",
                     shape.receive_copy ? "receive copy" : "no receive copy");
}

uint32_t shape_ports(const WorkloadShape& shape) { return shape.many_connections ? 8 : 1; }
uint32_t shape_threads_per_port(const WorkloadShape& shape) {
  return shape.many_connections ? 8 : 1;
}

std::vector<WorkloadShape> calibrated_shapes() {
  return {{false, false}, {true, false}, {false, true}, {true, true}};
}

std::optional<WorkloadShape> shape_of(const TestSpec& spec) {
  if (spec.workload.protocol != Protocol::tcp || spec.rr.on) return std::nullopt;
  const uint64_t connections =
      spec.role == Role::receiver ? spec.layout.ports : spec.sender_connections();
  return WorkloadShape{connections > 1, !spec.io.skip_rx_copy};
}

bool outran(const MeasuredPath& faster, const MeasuredPath& slower) {
  return faster.runs >= 2 && slower.runs >= 2 &&
         faster.throughput_min_gbps > slower.throughput_max_gbps;
}

namespace {

// The path with the highest median throughput, or none when nothing moved data.
const MeasuredPath* fastest(const std::vector<MeasuredPath>& paths) {
  const MeasuredPath* best = nullptr;
  for (const MeasuredPath& p : paths)
    if (p.throughput_gbps > 0 && (best == nullptr || p.throughput_gbps > best->throughput_gbps))
      best = &p;
  return best;
}

}  // namespace

bool throughput_decides(const std::vector<MeasuredPath>& paths) {
  const MeasuredPath* best = fastest(paths);
  if (best == nullptr) return false;
  for (const MeasuredPath& p : paths)
    if (&p != best && p.throughput_gbps > 0 && !outran(*best, p)) return false;
  return true;
}

bool as_fast(const MeasuredPath& p, const MeasuredPath& fastest) {
  return p.throughput_gbps > 0 && !outran(fastest, p) &&
         p.throughput_gbps >= fastest.throughput_gbps * (1 - auto_tie_margin);
}

std::string choose_measured(const std::vector<MeasuredPath>& paths) {
  const MeasuredPath* best = fastest(paths);
  if (best == nullptr) return {};
  const MeasuredPath* chosen = best;
  for (const MeasuredPath& p : paths)
    if (as_fast(p, *best) && p.cpu_s_per_gb > 0 && p.cpu_s_per_gb < chosen->cpu_s_per_gb)
      chosen = &p;
  return chosen->backend;
}

std::string auto_reason(const AutoEntry& entry) {
  const MeasuredPath* chosen = nullptr;
  const MeasuredPath* runner_up = nullptr;
  for (const MeasuredPath& p : entry.paths) {
    if (p.backend == entry.chosen)
      chosen = &p;
    else if (runner_up == nullptr || p.throughput_gbps > runner_up->throughput_gbps)
      runner_up = &p;
  }
  std::string shape = entry.shape;
  for (const WorkloadShape& s : calibrated_shapes())
    if (shape_key(s) == entry.shape) shape = shape_words(s);
  std::string versus;
  if (chosen != nullptr && runner_up != nullptr && runner_up->throughput_gbps > 0) {
    const uint32_t runs = std::min(chosen->runs, runner_up->runs);
    const double ratio = chosen->throughput_gbps / runner_up->throughput_gbps;
    const MeasuredPath& faster = ratio >= 1 ? *chosen : *runner_up;
    const MeasuredPath& slower = ratio >= 1 ? *runner_up : *chosen;
    // The sentence is about this pair, whatever a third path did.
    if (outran(faster, slower))
      versus = fmt::format("{:.2f}x {}'s throughput, faster in every one of {} runs,", ratio,
                           runner_up->backend, runs);
    else if (!as_fast(slower, faster))
      versus = fmt::format(
          "{:.2f}x {}'s throughput by the medians of {} runs each (their runs overlap; more than "
          "{:.0f} % apart),",
          ratio, runner_up->backend, runs, auto_tie_margin * 100);
    else
      versus = fmt::format(
          "as fast as {} (medians within {:.0f} %, {} runs each), and {:.2f}x its CPU-s/GB,",
          runner_up->backend, auto_tie_margin * 100, runs,
          runner_up->cpu_s_per_gb > 0 ? chosen->cpu_s_per_gb / runner_up->cpu_s_per_gb : 1.0);
  } else {
    versus = "the only data path measured,";
  }
  return fmt::format(
      "{}: {} for {}, measured on this host on {} ('xttcp calibrate' measures "
      "again)",
      entry.chosen, versus, shape, entry.measured_on);
}

const AutoEntry* find_auto_entry(const std::vector<AutoEntry>& entries,
                                 const HostIdentity& identity, const WorkloadShape& shape) {
  const std::string key = shape_key(shape);
  for (const AutoEntry& e : entries)
    if (e.identity == identity && e.shape == key) return &e;
  return nullptr;
}

void put_auto_entry(std::vector<AutoEntry>& entries, AutoEntry entry) {
  std::erase_if(entries, [&](const AutoEntry& e) {
    return e.identity == entry.identity && e.shape == entry.shape;
  });
  entries.push_back(std::move(entry));
  if (entries.size() > auto_record_max_entries)
    entries.erase(entries.begin(),
                  entries.begin() + static_cast<long>(entries.size() - auto_record_max_entries));
}

std::string render_auto_record(const std::vector<AutoEntry>& entries) {
  json list = json::array();
  for (const AutoEntry& e : entries) {
    json paths = json::array();
    for (const MeasuredPath& p : e.paths)
      paths.push_back({{"backend", p.backend},
                       {"throughput_gbps", p.throughput_gbps},
                       {"throughput_min_gbps", p.throughput_min_gbps},
                       {"throughput_max_gbps", p.throughput_max_gbps},
                       {"runs", p.runs},
                       {"cpu_s_per_gb", p.cpu_s_per_gb}});
    list.push_back({{"host", e.identity.host},
                    {"kernel", e.identity.kernel},
                    {"cpu_model", e.identity.cpu_model},
                    {"xttcp", e.identity.xttcp},
                    {"shape", e.shape},
                    {"measured_on", e.measured_on},
                    {"seconds", e.seconds},
                    {"paths", paths},
                    {"chosen", e.chosen}});
  }
  json doc = {{"schema", auto_record_schema_name},
              {"schema_version", auto_record_schema_version},
              {"entries", list}};
  return doc.dump(2) + "\n";
}

Expected<std::vector<AutoEntry>> parse_auto_record(const std::string& text) {
  // record > entries[] > entry > paths[] > path: 5 deep.
  auto parsed = parse_bounded_json(text, {auto_record_max_bytes, 5}, "the auto record");
  if (!parsed) return parsed.error();
  const json& doc = *parsed;
  if (!doc.is_object()) return fail("not a JSON object");
  // Each member's type is looked at before its value: a number where the name belongs is a
  // damaged record, not an exception.
  const auto schema = doc.find("schema");
  const auto version = doc.find("schema_version");
  if (schema == doc.end() || !schema->is_string() || *schema != auto_record_schema_name ||
      version == doc.end() || !version->is_number_integer() ||
      *version != auto_record_schema_version)
    return fail(fmt::format("not schema {} version {}", auto_record_schema_name,
                            auto_record_schema_version));
  auto list = doc.find("entries");
  if (list == doc.end() || !list->is_array() || list->size() > auto_record_max_entries)
    return fail(fmt::format("'entries' is missing, not an array or longer than {}",
                            auto_record_max_entries));
  std::vector<AutoEntry> entries;
  for (const json& j : *list) {
    auto entry = parse_entry(j);
    if (!entry) return entry.error();
    entries.push_back(std::move(*entry));
  }
  return entries;
}

}  // namespace xttcp
