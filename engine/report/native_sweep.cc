#include "engine/report/native_sweep.hh"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "engine/report/bounded_json.hh"
#include "engine/report/native_json.hh"

namespace xttcp {

namespace {

using nlohmann::ordered_json;

// A sweep nests one level deeper than a set of runs (sweep > cells[] > set).
constexpr JsonLimits native_sweep_limits{native_runs_max_bytes, native_result_limits.max_depth + 4};

// 65536 -> "64K", 1048576 -> "1M", 1400 -> "1400": how the options take sizes (1024-based).
std::string size_words(uint32_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return fmt::format("{}M", bytes >> 20);
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{}K", bytes >> 10);
  return std::to_string(bytes);
}

Expected<CellKind> kind_from(const ordered_json& value) {
  if (value == "tcp") return CellKind::tcp;
  if (value == "udp") return CellKind::udp;
  if (value == "rr") return CellKind::rr;
  return fail(fmt::format("kind: {} is not \"tcp\", \"udp\" or \"rr\"", value.dump()));
}

Expected<uint32_t> count_in(const ordered_json& cell, const char* key, uint32_t low) {
  auto it = cell.find(key);
  if (it == cell.end() || !it->is_number_unsigned())
    return fail(fmt::format("{}: missing or not a whole number", key));
  const uint64_t v = it->get<uint64_t>();
  if (v < low || v > UINT32_MAX)
    return fail(fmt::format("{}: {} is outside {}..{}", key, v, low, UINT32_MAX));
  return static_cast<uint32_t>(v);
}

Expected<SweepCell> cell_from(const ordered_json& doc) {
  SweepCell cell;
  auto kind = doc.find("kind");
  if (kind == doc.end()) return fail("kind: missing");
  auto k = kind_from(*kind);
  if (!k) return k.error();
  cell.kind = *k;
  auto connections = count_in(doc, "connections", 1);
  if (!connections) return connections.error();
  cell.connections = *connections;
  auto size = count_in(doc, "size_bytes", 1);
  if (!size) return size.error();
  cell.size_bytes = *size;
  if (auto backend = doc.find("backend"); backend != doc.end()) {
    // A name that reaches the console in labels: letters, digits, '_', '-' and '.' only.
    const auto is_name = [](const std::string& name) {
      return name.size() <= 32 && std::all_of(name.begin(), name.end(), [](char c) {
               return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
                      c == '.';
             });
    };
    if (!backend->is_string() || !is_name(backend->get<std::string>()))
      return fail("backend: not a backend's name (at most 32 letters, digits, '_', '-', '.')");
    cell.backend = backend->get<std::string>();
  }
  return cell;
}

ordered_json cell_to_json(const SweepCell& cell) {
  return {{"id", cell.id()},
          {"kind", to_string(cell.kind)},
          {"connections", cell.connections},
          {"size_bytes", cell.size_bytes},
          {"backend", cell.backend}};
}

// A failed cell's reason, as it reaches the console: at most 400 bytes, cut on a UTF-8 boundary,
// control characters (ESC, newlines) as spaces.
std::string printable_reason(const std::string& text) {
  size_t end = std::min<size_t>(text.size(), 400);
  while (end > 0 && end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
    --end;
  std::string reason = text.substr(0, end);
  for (char& c : reason)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return reason;
}

// The document's "schema" when it is a string; "" otherwise.
std::string schema_of(const ordered_json& doc) {
  if (!doc.is_object()) return {};
  auto schema = doc.find("schema");
  return schema != doc.end() && schema->is_string() ? schema->get<std::string>() : std::string();
}

// Reads a document only as far as its top-level "schema" string (SAX: no tree is built, and it
// stops there), so that telling a sweep from a result file costs nothing before the one parse
// that reads it. Nested at most 64 deep; anything else is "no schema".
class SchemaPeek {
 public:
  std::optional<std::string> schema;

  bool null() { return other_value(); }
  bool boolean(bool) { return other_value(); }
  bool number_integer(nlohmann::json::number_integer_t) { return other_value(); }
  bool number_unsigned(nlohmann::json::number_unsigned_t) { return other_value(); }
  bool number_float(nlohmann::json::number_float_t, const std::string&) { return other_value(); }
  bool binary(nlohmann::json::binary_t&) { return other_value(); }
  bool string(std::string& value) {
    if (!wanted_) return true;
    schema = value;
    return false;  // found: stop
  }
  bool start_object(std::size_t) { return !wanted_ && ++depth_ <= 64; }
  bool end_object() { return --depth_ > 0; }  // the top-level object ended: stop
  bool start_array(std::size_t) { return !wanted_ && ++depth_ <= 64; }
  bool end_array() { return --depth_ > 0; }
  bool key(std::string& name) {
    wanted_ = depth_ == 1 && name == "schema";
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }

 private:
  bool other_value() { return !wanted_; }  // "schema" is not a string: no schema, stop
  int depth_ = 0;
  bool wanted_ = false;
};

std::optional<std::string> top_level_schema(std::string_view text) {
  SchemaPeek peek;
  nlohmann::json::sax_parse(text.begin(), text.end(), &peek, nlohmann::json::input_format_t::json,
                            false);
  return peek.schema;
}

Expected<Sweep> sweep_from(const ordered_json& doc) {
  if (!doc.is_object()) return fail("sweep file: expected a JSON object");
  auto version = doc.find("schema_version");
  if (version == doc.end() || !version->is_number_integer())
    return fail("sweep file: schema_version: missing or not an integer");
  const auto v = version->get<int64_t>();
  if (v < 1 || v > native_sweep_schema_version)
    return fail(
        fmt::format("sweep file: schema_version: {} is not supported (this xttcp reads 1 "
                    "to {})",
                    v, native_sweep_schema_version));
  Sweep sweep;
  if (auto args = doc.find("sender_args"); args != doc.end() && args->is_string())
    sweep.sender_args = args->get<std::string>();
  if (auto repeat = doc.find("repeat"); repeat != doc.end() && repeat->is_number_unsigned())
    sweep.repeat = static_cast<uint32_t>(std::min<uint64_t>(repeat->get<uint64_t>(), 1000));
  if (auto interrupted = doc.find("interrupted");
      interrupted != doc.end() && interrupted->is_boolean())
    sweep.interrupted = interrupted->get<bool>();
  auto plan = doc.find("plan");
  if (plan == doc.end() || !plan->is_array() || plan->empty() || plan->size() > max_sweep_cells)
    return fail(fmt::format("sweep file: plan: expected 1 to {} cells", max_sweep_cells));
  std::set<std::string> ids;
  for (size_t i = 0; i < plan->size(); ++i) {
    if (!(*plan)[i].is_object()) return fail(fmt::format("plan[{}]: not an object", i));
    auto cell = cell_from((*plan)[i]);
    if (!cell) return fail(fmt::format("plan[{}]: {}", i, cell.error().message));
    if (!ids.insert(cell->id()).second)
      return fail(fmt::format("plan[{}]: the cell {} is planned twice", i, cell->id()));
    sweep.plan.push_back(*cell);
  }
  auto cells = doc.find("cells");
  if (cells == doc.end() || !cells->is_array() || cells->size() > sweep.plan.size())
    return fail("sweep file: cells: expected an array of at most the planned cells");
  std::set<std::string> ran;
  for (size_t i = 0; i < cells->size(); ++i) {
    const ordered_json& c = (*cells)[i];
    if (!c.is_object()) return fail(fmt::format("cells[{}]: not an object", i));
    SweepCellResult result;
    auto cell = cell_from(c);
    if (!cell) return fail(fmt::format("cells[{}]: {}", i, cell.error().message));
    result.cell = *cell;
    if (!ids.count(cell->id()) || !ran.insert(cell->id()).second)
      return fail(fmt::format("cells[{}]: {} is not a planned cell, or ran twice", i, cell->id()));
    auto outcome = c.find("outcome");
    if (outcome == c.end() || (*outcome != "measured" && *outcome != "failed"))
      return fail(fmt::format("cells[{}]: outcome: not \"measured\" or \"failed\"", i));
    if (auto seconds = c.find("seconds"); seconds != c.end() && seconds->is_number())
      result.seconds = std::max(0.0, seconds->get<double>());
    if (*outcome == "failed") {
      result.outcome = CellOutcome::failed;
      if (auto error = c.find("error"); error != c.end() && error->is_string())
        result.error = printable_reason(error->get<std::string>());
    } else {
      auto runs = c.find("runs");
      if (runs == c.end()) return fail(fmt::format("cells[{}]: runs: missing", i));
      auto set = runs_from_json(*runs);
      if (!set) return fail(fmt::format("cells[{}]: {}", i, set.error().message));
      result.runs = std::move(*set);
    }
    sweep.cells.push_back(std::move(result));
  }
  return sweep;
}

}  // namespace

const char* to_string(CellKind kind) {
  switch (kind) {
    case CellKind::tcp: return "tcp";
    case CellKind::udp: return "udp";
    case CellKind::rr: return "rr";
  }
  return "tcp";
}

const char* headline_metric(CellKind kind) {
  return kind == CellKind::rr ? "round_trip_p50_us" : "throughput_gbps";
}

std::string SweepCell::id() const {
  std::string id = fmt::format("{}/c{}/s{}", to_string(kind), connections, size_bytes);
  if (!backend.empty()) id += "/" + backend;
  return id;
}

std::string SweepCell::label() const {
  const char* what = kind == CellKind::tcp ? "TCP" : kind == CellKind::udp ? "UDP" : "RR";
  const char* flows = kind == CellKind::tcp ? "connection" : "flow";
  const char* sizes = kind == CellKind::tcp   ? "writes"
                      : kind == CellKind::udp ? "datagrams"
                                              : "requests";
  std::string label = fmt::format("{}, {} {}{}, {} {}", what, connections, flows,
                                  connections == 1 ? "" : "s", size_words(size_bytes), sizes);
  if (!backend.empty()) label += ", " + backend;
  return label;
}

std::string render_native_sweep(const Sweep& sweep) {
  ordered_json doc;
  doc["schema"] = native_sweep_schema_name;
  doc["schema_version"] = native_sweep_schema_version;
  const Result* first = nullptr;
  for (const SweepCellResult& cell : sweep.cells)
    if (cell.outcome == CellOutcome::measured && !cell.runs.runs.empty() && first == nullptr)
      first = &cell.runs.runs.front();
  doc["tool"] = {{"name", "xttcp"}, {"version", first ? first->tool_version : std::string()}};
  doc["environment"] = first ? result_to_json(*first)["host"] : ordered_json(nullptr);
  doc["sender_args"] = sweep.sender_args;
  doc["repeat"] = sweep.repeat;
  doc["interrupted"] = sweep.interrupted;
  // Every planned cell ran (measured or failed): a file cut short, however, says false.
  doc["complete"] = !sweep.interrupted && sweep.cells.size() == sweep.plan.size();
  ordered_json plan = ordered_json::array();
  for (const SweepCell& cell : sweep.plan) plan.push_back(cell_to_json(cell));
  doc["plan"] = std::move(plan);
  ordered_json cells = ordered_json::array();
  for (const SweepCellResult& result : sweep.cells) {
    ordered_json c = cell_to_json(result.cell);
    c["outcome"] = result.outcome == CellOutcome::measured ? "measured" : "failed";
    c["seconds"] = result.seconds;
    if (result.outcome == CellOutcome::failed)
      c["error"] = result.error;
    else
      c["runs"] = runs_to_json(result.runs);
    cells.push_back(std::move(c));
  }
  doc["cells"] = std::move(cells);
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Expected<Sweep> parse_native_sweep(std::string_view text) {
  auto doc = parse_bounded_json(text, native_sweep_limits, "sweep file");
  if (!doc) return doc.error();
  if (schema_of(*doc) != native_sweep_schema_name)
    return fail(fmt::format("sweep file: schema is not \"{}\"", native_sweep_schema_name));
  return sweep_from(*doc);
}

bool is_native_sweep(std::string_view text) {
  const std::optional<std::string> schema = top_level_schema(text);
  return schema && *schema == native_sweep_schema_name;
}

}  // namespace xttcp
