#include "engine/iperf3/parameters.hh"

#include <fmt/format.h>

#include "engine/iperf3/control_wire.hh"
#include "engine/iperf3/wire_json.hh"
#include "engine/report/bounded_json.hh"

namespace xttcp::iperf3 {

namespace {

// The parameters are one flat object.
constexpr JsonLimits parameter_limits{max_parameters_bytes, 1};

using Json = nlohmann::ordered_json;

// Reads the integer `key` into `out` if present, within [low, high].
Status read_integer(const Json& doc, const char* key, uint64_t low, uint64_t high, auto& out,
                    std::string_view unit = "") {
  const auto it = doc.find(key);
  if (it == doc.end()) return ok();
  const std::optional<int64_t> value = wire_integer(*it);
  if (!value) return fail(fmt::format("iperf3 parameters: '{}' is not a number", key));
  if (*value < 0 || static_cast<uint64_t>(*value) < low || static_cast<uint64_t>(*value) > high)
    return fail(fmt::format("iperf3 parameters: {} {} is out of range ({} to {}{})", key, *value,
                            low, high, unit));
  out = static_cast<std::remove_reference_t<decltype(out)>>(*value);
  return ok();
}

Status read_text(const Json& doc, const char* key, std::size_t max_bytes, std::string& out) {
  const auto it = doc.find(key);
  if (it == doc.end()) return ok();
  if (!it->is_string()) return fail(fmt::format("iperf3 parameters: '{}' is not a string", key));
  out = it->get<std::string>();
  if (out.size() > max_bytes)
    return fail(
        fmt::format("iperf3 parameters: '{}' is {} bytes, over {}", key, out.size(), max_bytes));
  return ok();
}

}  // namespace

Expected<Parameters> read_parameters(std::string_view json) {
  auto parsed = parse_bounded_json(json, parameter_limits, "iperf3 parameters");
  if (!parsed) return parsed.error();
  const Json& doc = *parsed;
  if (!doc.is_object()) return fail("iperf3 parameters: not a JSON object");
  Parameters p;
  // Presence decides, in 3.12's order: the last of tcp, udp, sctp present wins.
  bool any_protocol = false;
  for (auto [key, protocol] : {std::pair{"tcp", Protocol::tcp}, std::pair{"udp", Protocol::udp},
                               std::pair{"sctp", Protocol::sctp}})
    if (doc.contains(key)) {
      p.protocol = protocol;
      any_protocol = true;
    }
  if (!any_protocol) return fail("iperf3 parameters: no protocol (tcp, udp or sctp)");
  const bool udp = p.protocol == Protocol::udp;
  const uint64_t most = UINT64_MAX >> 1;
  for (Status s : {
           read_integer(doc, "omit", 0, max_omit_s, p.omit_s, " s"),
           read_integer(doc, "time", 0, max_time_s, p.time_s, " s"),
           read_integer(doc, "num", 0, most, p.bytes),
           read_integer(doc, "blockcount", 0, most, p.blocks),
           read_integer(doc, "MSS", 0, max_mss, p.mss),
           read_integer(doc, "parallel", 1, max_parallel, p.parallel, " streams"),
           read_integer(doc, "window", 0, max_window, p.window, " bytes"),
           read_integer(doc, "len", udp ? min_udp_length : 1, udp ? max_udp_length : max_tcp_length,
                        p.length, " bytes"),
           read_integer(doc, "bandwidth", 0, most, p.rate_bps, " bit/s"),
           read_integer(doc, "fqrate", 0, most, p.fq_rate_bps, " bit/s"),
           read_integer(doc, "pacing_timer", 1, 1000000, p.pacing_timer_us, " us"),
           read_integer(doc, "burst", 0, max_burst, p.burst),
           read_integer(doc, "TOS", 0, 255, p.tos),
           read_integer(doc, "flowlabel", 0, 0xfffff, p.flow_label),
           read_text(doc, "title", max_text_bytes, p.title),
           read_text(doc, "extra_data", max_text_bytes, p.extra_data),
           read_text(doc, "congestion", max_congestion_bytes, p.congestion),
           read_text(doc, "congestion_used", max_congestion_bytes, p.congestion_used),
           read_text(doc, "client_version", 32, p.client_version),
       })
    if (!s) return s.error();
  if (doc.contains("server_affinity")) {
    int32_t cpu = 0;
    if (Status s = read_integer(doc, "server_affinity", 0, 65535, cpu); !s) return s.error();
    p.server_affinity = cpu;
  }
  p.nodelay = doc.contains("nodelay");
  p.reverse = doc.contains("reverse");
  p.bidirectional = doc.contains("bidirectional");
  p.get_server_output = doc.contains("get_server_output");
  p.udp_counters_64bit = doc.contains("udp_counters_64bit");
  p.repeating_payload = doc.contains("repeating_payload");
  p.zerocopy = doc.contains("zerocopy");
  p.dont_fragment = doc.contains("dont_fragment");
  p.authenticated = doc.contains("authtoken");
  if (p.reverse && p.bidirectional)
    return fail("iperf3 parameters: reverse and bidirectional together (3.12 refuses -R --bidir)");
  return p;
}

std::string write_parameters(const Parameters& p) {
  std::string out = "{";
  auto key = [&](std::string_view name, std::string_view value) {
    if (out.size() > 1) out += ',';
    out += fmt::format("\"{}\":{}", name, value);
  };
  auto number = [&](std::string_view name, uint64_t value) { key(name, fmt::format("{}", value)); };
  key(p.protocol == Protocol::tcp ? "tcp" : p.protocol == Protocol::udp ? "udp" : "sctp", "true");
  number("omit", p.omit_s);
  if (p.server_affinity) key("server_affinity", format_integer(*p.server_affinity));
  number("time", p.time_s);
  number("num", p.bytes);
  number("blockcount", p.blocks);
  if (p.mss) number("MSS", p.mss);
  if (p.nodelay) key("nodelay", "true");
  number("parallel", p.parallel);
  if (p.reverse) key("reverse", "true");
  if (p.bidirectional) key("bidirectional", "true");
  if (p.window) number("window", p.window);
  if (p.length) number("len", p.length);
  if (p.rate_bps) number("bandwidth", p.rate_bps);
  if (p.fq_rate_bps) number("fqrate", p.fq_rate_bps);
  number("pacing_timer", p.pacing_timer_us);
  if (p.burst) number("burst", p.burst);
  if (p.tos) number("TOS", p.tos);
  if (p.flow_label) number("flowlabel", p.flow_label);
  if (!p.title.empty()) key("title", json_string(p.title));
  if (!p.extra_data.empty()) key("extra_data", json_string(p.extra_data));
  if (!p.congestion.empty()) key("congestion", json_string(p.congestion));
  if (!p.congestion_used.empty()) key("congestion_used", json_string(p.congestion_used));
  if (p.get_server_output) number("get_server_output", 1);
  if (p.udp_counters_64bit) number("udp_counters_64bit", 1);
  if (p.repeating_payload) number("repeating_payload", 1);
  if (p.zerocopy) number("zerocopy", 1);
  if (p.dont_fragment) number("dont_fragment", 1);
  key("client_version", json_string(p.client_version));
  return out + "}";
}

}  // namespace xttcp::iperf3
