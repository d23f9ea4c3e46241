#include "engine/run/hello.hh"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/hex.hh"
#include "engine/control/sync_codes.hh"
#include "engine/report/bounded_json.hh"
#include "engine/report/native_json.hh"
#include "engine/report/spec_json.hh"
#include "engine/udp/datagram_header.hh"
#include "xttcp_config.h"

namespace xttcp {

std::string hello_json(const TestSpec& spec, std::optional<udp::DeclaredFlows> udp_flows,
                       std::optional<nlohmann::ordered_json> rss,
                       std::optional<sync_auth::Cookie> stream_cookie) {
  nlohmann::ordered_json hello;
  hello["type"] = "hello";
  hello["tool"] = "xttcp";
  hello["version"] = XTTCP_VERSION;
  hello["spec"] = spec_to_json(spec);
  if (udp_flows)
    hello["udp_flows"] = {
        {"base", udp_flows->base}, {"count", udp_flows->count}, {"token", udp_flows->token}};
  if (rss) hello["rss"] = std::move(*rss);
  if (stream_cookie)
    hello["stream_cookie"] = hex_text(stream_cookie->data(), stream_cookie->size());
  return hello.dump();
}

Expected<std::optional<sync_auth::Cookie>> stream_cookie_in_hello(
    const std::string& receiver_hello) {
  auto hello = parse_bounded_json(receiver_hello, {sync_code::kMaxHelloBytes, 16}, "hello");
  if (!hello) return hello.error();
  if (!hello->is_object()) return fail("its hello is not a JSON object");
  const auto found = hello->find("stream_cookie");
  if (found == hello->end()) return std::optional<sync_auth::Cookie>();
  std::optional<std::vector<uint8_t>> bytes;
  if (found->is_string()) bytes = bytes_from_hex(found->get_ref<const std::string&>());
  if (!bytes || bytes->size() != sync_auth::kCookieBytes)
    return fail(fmt::format("stream_cookie is not {} hex digits", 2 * sync_auth::kCookieBytes));
  sync_auth::Cookie cookie{};
  std::copy(bytes->begin(), bytes->end(), cookie.begin());
  return std::optional<sync_auth::Cookie>(cookie);
}

bool declares_udp_flows(const TestSpec& spec) {
  const Workload& w = spec.workload;
  if (w.protocol != Protocol::udp) return false;
  if (spec.rr.on) return w.send_buffer >= rr_limits::udp_proof_bytes;
  return w.udp_payload != UdpPayload::compat && w.udp_payload != UdpPayload::iperf2 &&
         w.udp_payload != UdpPayload::iperf3 && w.send_buffer >= udp::header_size;
}

Expected<std::optional<udp::DeclaredFlows>> declared_udp_flows(const std::string& sender_hello) {
  auto hello = parse_bounded_json(sender_hello, {sync_code::kMaxHelloBytes, 16}, "hello");
  if (!hello) return hello.error();
  if (!hello->is_object()) return fail("its hello is not a JSON object");
  const auto flows = hello->find("udp_flows");
  if (flows == hello->end()) {
    // A sender whose datagrams carry xttcp's header and token declares them: one that does not
    // would turn the test's filter off for everyone.
    if (const auto spec = hello->find("spec"); spec != hello->end() && spec->is_object())
      if (const auto sender = spec_from_json(*spec); sender && declares_udp_flows(*sender))
        return fail("its hello declares no UDP flows, though its datagrams carry xttcp's header");
    return std::optional<udp::DeclaredFlows>();
  }
  if (!flows->is_object()) return fail("hello: udp_flows is not an object");
  const auto base = flows->find("base");
  const auto count = flows->find("count");
  if (base == flows->end() || count == flows->end() || !base->is_number_unsigned() ||
      !count->is_number_unsigned())
    return fail("hello: udp_flows needs whole numbers base and count");
  const uint64_t b = base->get<uint64_t>(), n = count->get<uint64_t>();
  if (b > UINT32_MAX || !udp::valid_flow_base(static_cast<uint32_t>(b)))
    return fail(fmt::format("hello: udp_flows.base {} is not a flow base", b));
  if (n == 0 || n > limits::max_connections)
    return fail(
        fmt::format("hello: udp_flows.count {} is not 1 to {}", n, limits::max_connections));
  // No token: a sender older than tokens, whose datagrams carry 0 where the token goes.
  uint64_t t = 0;
  if (const auto token = flows->find("token"); token != flows->end()) {
    if (!token->is_number_unsigned() || token->get<uint64_t>() > UINT16_MAX)
      return fail("hello: udp_flows.token is not a 16-bit number");
    t = token->get<uint64_t>();
  }
  // An xttcp older than declares_udp_flows() declared its flows whatever its datagrams carried:
  // when its spec says they carry no token (NTttcp's payload, too short for the header), the
  // declaration would keep out its own data. Taken as none: every flow counts, as for its data.
  if (const auto spec = hello->find("spec"); spec != hello->end() && spec->is_object())
    if (const auto sender = spec_from_json(*spec); sender && !declares_udp_flows(*sender))
      return std::optional<udp::DeclaredFlows>();
  return std::optional<udp::DeclaredFlows>(udp::DeclaredFlows{
      static_cast<uint32_t>(b), static_cast<uint32_t>(n), static_cast<uint16_t>(t)});
}

}  // namespace xttcp
