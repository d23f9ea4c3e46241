#include "engine/iperf3/results.hh"

#include <fmt/format.h>
#include <limits>

#include "engine/iperf3/wire_json.hh"
#include "engine/report/bounded_json.hh"

namespace xttcp::iperf3 {

namespace {

using Json = nlohmann::ordered_json;

// results > streams[] > stream; a server's -J document inside is itself nested about 6 deep.
constexpr std::size_t max_results_depth = 12;

Expected<double> need_double(const Json& object, const char* key, std::string_view where) {
  const auto it = object.find(key);
  if (it == object.end()) return fail(fmt::format("iperf3 results: {}has no '{}'", where, key));
  std::optional<double> value = wire_double(*it);
  if (!value) return fail(fmt::format("iperf3 results: {}'{}' is not a number", where, key));
  return *value;
}

Expected<int64_t> need_integer(const Json& object, const char* key, std::string_view where) {
  const auto it = object.find(key);
  if (it == object.end()) return fail(fmt::format("iperf3 results: {}has no '{}'", where, key));
  std::optional<int64_t> value = wire_integer(*it);
  if (!value) return fail(fmt::format("iperf3 results: {}'{}' is not a number", where, key));
  return *value;
}

Expected<StreamTotals> read_stream(const Json& s, std::size_t index) {
  const std::string where = fmt::format("streams[{}] ", index);
  if (!s.is_object()) return fail(fmt::format("iperf3 results: {}is not an object", where));
  auto id = need_integer(s, "id", where);
  auto bytes = need_integer(s, "bytes", where);
  auto retransmits = need_integer(s, "retransmits", where);
  auto jitter = need_double(s, "jitter", where);
  auto errors = need_integer(s, "errors", where);
  auto packets = need_integer(s, "packets", where);
  for (const Error* e :
       {id ? nullptr : &id.error(), bytes ? nullptr : &bytes.error(),
        retransmits ? nullptr : &retransmits.error(), jitter ? nullptr : &jitter.error(),
        errors ? nullptr : &errors.error(), packets ? nullptr : &packets.error()})
    if (e) return *e;
  if (*id < 1 || *id > static_cast<int64_t>(max_result_streams) + 1)
    return fail(fmt::format("iperf3 results: {}id {} is no stream of a test", where, *id));
  if (*bytes < 0) return fail(fmt::format("iperf3 results: {}bytes {} is negative", where, *bytes));
  StreamTotals t;
  t.id = static_cast<int32_t>(*id);
  t.bytes = static_cast<uint64_t>(*bytes);
  t.retransmits = *retransmits;
  t.jitter_s = *jitter;
  t.errors = *errors;
  t.packets = *packets;
  // Optional: servers before 3.2 did not send them.
  if (s.contains("start_time")) {
    auto start = need_double(s, "start_time", where);
    if (!start) return start.error();
    t.start_time = *start;
  }
  if (s.contains("end_time")) {
    auto end = need_double(s, "end_time", where);
    if (!end) return end.error();
    t.end_time = *end;
  }
  return t;
}

}  // namespace

Expected<Results> read_results(std::string_view json, std::size_t max_bytes) {
  auto parsed = parse_bounded_json(json, {max_bytes, max_results_depth}, "iperf3 results");
  if (!parsed) return parsed.error();
  const Json& doc = *parsed;
  if (!doc.is_object()) return fail("iperf3 results: not a JSON object");
  Results r;
  auto total = need_double(doc, "cpu_util_total", "");
  auto user = need_double(doc, "cpu_util_user", "");
  auto system = need_double(doc, "cpu_util_system", "");
  auto has_retransmits = need_integer(doc, "sender_has_retransmits", "");
  for (const Error* e :
       {total ? nullptr : &total.error(), user ? nullptr : &user.error(),
        system ? nullptr : &system.error(), has_retransmits ? nullptr : &has_retransmits.error()})
    if (e) return *e;
  r.cpu_total = *total;
  r.cpu_user = *user;
  r.cpu_system = *system;
  r.sender_has_retransmits = *has_retransmits > 0 ? 1 : *has_retransmits == 0 ? 0 : -1;
  if (const auto it = doc.find("congestion_used"); it != doc.end() && it->is_string())
    r.congestion_used = it->get<std::string>();
  if (const auto it = doc.find("server_output_text"); it != doc.end() && it->is_string())
    r.server_output_text = it->get<std::string>();
  if (const auto it = doc.find("server_output_json"); it != doc.end() && it->is_object())
    r.server_output_json = it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const auto streams = doc.find("streams");
  if (streams == doc.end() || !streams->is_array())
    return fail("iperf3 results: has no 'streams' array");
  if (streams->size() > max_result_streams)
    return fail(
        fmt::format("iperf3 results: {} streams, over {}", streams->size(), max_result_streams));
  for (std::size_t i = 0; i < streams->size(); ++i) {
    auto stream = read_stream((*streams)[i], i);
    if (!stream) return stream.error();
    for (const StreamTotals& seen : r.streams)
      if (seen.id == stream->id)
        return fail(fmt::format("iperf3 results: stream id {} twice", seen.id));
    r.streams.push_back(*stream);
  }
  return r;
}

std::string write_results(const Results& r) {
  std::string out = fmt::format(
      "{{\"cpu_util_total\":{},\"cpu_util_user\":{},\"cpu_util_system\":{},"
      "\"sender_has_retransmits\":{}",
      format_number(r.cpu_total), format_number(r.cpu_user), format_number(r.cpu_system),
      r.sender_has_retransmits);
  if (r.congestion_used)
    out += fmt::format(",\"congestion_used\":{}", json_string(*r.congestion_used));
  if (r.server_output_text)
    out += fmt::format(",\"server_output_text\":{}", json_string(*r.server_output_text));
  if (r.server_output_json) out += fmt::format(",\"server_output_json\":{}", *r.server_output_json);
  out += ",\"streams\":[";
  for (std::size_t i = 0; i < r.streams.size(); ++i) {
    const StreamTotals& s = r.streams[i];
    out += fmt::format(
        "{}{{\"id\":{},\"bytes\":{},\"retransmits\":{},\"jitter\":{},\"errors\":{},"
        "\"packets\":{},\"start_time\":{}",
        i ? "," : "", s.id, s.bytes, s.retransmits, format_number(s.jitter_s), s.errors, s.packets,
        format_number(s.start_time));
    if (s.end_time) out += fmt::format(",\"end_time\":{}", format_number(*s.end_time));
    out += '}';
  }
  return out + "]}";
}

}  // namespace xttcp::iperf3
