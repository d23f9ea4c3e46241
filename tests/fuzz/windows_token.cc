// NTttcp for Windows' -sp: a sender thread reads its data port from the receiver's base port as
// a 4-byte little-endian long, and checks the ports it got are the data ports of this run. (The
// token exchange itself reads one byte and does not look at it.) And a UDP sender's flow
// declaration after the tokens, as an xttcp receiver reads it from each token connection: taken
// only with its magic and a sender's flow base, and exactly as written. And the receiver's
// rules for who may speak on its control ports (docs/hostile-peers.md): connections to the
// token ports from several hosts, their bytes, closes, data connections, -sp hand-outs and the
// clock, as TokenPortRules and PortHandout see them, their rules checked on every step.
//
// Input: base port (2 bytes, big-endian), threads (1 byte, 0 read as 1), then the bytes the
// receiver(s) sent, 4 per thread; the same bytes, 10 at a time, as flow declarations; and the
// same bytes, 2 at a time, as events (op, argument) at the control ports, the base port's low
// bits choosing TCP or UDP and -sp.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/control/port_handout.hh"
#include "engine/control/sender_evidence.hh"
#include "engine/control/token_port_rules.hh"
#include "engine/control/windows_token.hh"
#include "tests/fuzz/fuzz_check.hh"

namespace token = xttcp::windows_token;
using xttcp::PortHandout;
using xttcp::SenderEvidence;
using xttcp::TokenPortRules;
using xttcp::TokenStanding;

namespace {

using Clock = TokenPortRules::Clock;
constexpr uint16_t kFirstDataPort = 5001;
const char* const kHosts[] = {"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"};

// What the fuzzer knows of each connection the rules hold.
struct Shadow {
  TokenPortRules::Id id = 0;
  std::size_t port = 0;
  std::string host;
  Clock::time_point accepted{};
  bool token = false;
};

// Connections on `ports` token ports: every count is of a connection whose byte came and whose
// host stands as the thread's sender, once per thread until it starts over; every close has its
// reason; nothing outlives the token wait uncounted; no port holds more than its share.
void check_token_rules(const uint8_t* data, size_t size, std::size_t ports, bool tcp, bool sp) {
  SenderEvidence evidence;
  const auto standing = [&](std::size_t port, const std::string& host, Clock::time_point at) {
    return xttcp::token_standing(evidence, static_cast<uint16_t>(kFirstDataPort + port), host, at,
                                 tcp, sp);
  };
  TokenPortRules rules(ports, standing);
  std::vector<Shadow> live;
  std::vector<bool> counted(ports, false);
  std::vector<TokenPortRules::Counted> last_counted;
  Clock::time_point now = Clock::time_point() + std::chrono::hours(1);
  const auto forget = [&](TokenPortRules::Id id) {
    auto it = std::find_if(live.begin(), live.end(), [id](const Shadow& s) { return s.id == id; });
    FUZZ_CHECK(it != live.end());  // only a connection it holds is closed or counted
    Shadow gone = *it;
    live.erase(it);
    return gone;
  };
  const auto check_closed = [&](const TokenPortRules::Closed& c) {
    using Why = TokenPortRules::Why;
    const Shadow s = forget(c.id);
    FUZZ_CHECK(s.port == c.port && s.host == c.host);
    const TokenStanding st = standing(s.port, s.host, s.accepted);
    switch (c.why) {
      case Why::silent: FUZZ_CHECK(!s.token && now >= s.accepted + token::token_wait); break;
      case Why::unproven:
        FUZZ_CHECK(s.token && st == TokenStanding::unproven &&
                   now >= s.accepted + token::token_wait);
        break;
      case Why::early: FUZZ_CHECK(st == TokenStanding::early); break;
      case Why::not_handed_out: FUZZ_CHECK(st == TokenStanding::not_handed_out); break;
      case Why::taken: FUZZ_CHECK(counted[s.port]); break;
      case Why::crowded: FUZZ_CHECK(false);  // only accepted() closes for this
    }
  };
  for (size_t at = 3; at + 2 <= size; at += 2) {
    const uint8_t op = data[at] % 8;
    const uint8_t arg = data[at + 1];
    const std::size_t port = arg % ports;
    const std::string host = kHosts[(arg >> 4) % 4];
    if (op == 0) {
      std::vector<TokenPortRules::Closed> crowded;
      const auto id = rules.accepted(port, host, now, crowded);
      FUZZ_CHECK(crowded.size() <= 1);
      for (const auto& c : crowded) {
        FUZZ_CHECK(c.why == TokenPortRules::Why::crowded && c.port == port);
        forget(c.id);
      }
      live.push_back({id, port, host, now, false});
      FUZZ_CHECK(static_cast<std::size_t>(std::count_if(
                     live.begin(), live.end(), [&](const Shadow& s) { return s.port == port; })) <=
                 token::candidates_per_port);
    } else if (op == 1 && !live.empty()) {
      Shadow& s = live[arg % live.size()];
      s.token = true;
      rules.token_read(s.id);
    } else if (op == 2 && !live.empty()) {
      const auto id = live[arg % live.size()].id;
      rules.gone(id);
      forget(id);
    } else if (op == 3) {
      evidence.data_connection(static_cast<uint16_t>(kFirstDataPort + port), host, now);
    } else if (op == 4) {
      evidence.handed_out(static_cast<uint16_t>(kFirstDataPort + port), host);
    } else if (op == 5) {
      now += std::chrono::milliseconds(100) * arg;
    } else if (op == 6) {
      const TokenPortRules::Step step = rules.decide(now);
      if (step.started_over > 0) {
        FUZZ_CHECK(step.started_over ==
                   static_cast<std::size_t>(std::count(counted.begin(), counted.end(), true)));
        std::fill(counted.begin(), counted.end(), false);
      }
      for (const auto& c : step.closed)
        if (c.why != TokenPortRules::Why::taken) check_closed(c);
      for (const auto& c : step.counted) {
        const Shadow s = forget(c.id);
        FUZZ_CHECK(s.token && !counted[s.port] && s.host == c.host);
        FUZZ_CHECK(standing(s.port, s.host, s.accepted) == TokenStanding::eligible);
        counted[s.port] = true;
      }
      for (const auto& c : step.closed)
        if (c.why == TokenPortRules::Why::taken) check_closed(c);
      last_counted = step.counted;
      // Nothing waits past its token wait, and no thread done has a connection left.
      for (const Shadow& s : live) {
        FUZZ_CHECK(now < s.accepted + token::token_wait);
        FUZZ_CHECK(!counted[s.port]);
      }
    } else if (op == 7 && !last_counted.empty()) {
      const auto c = last_counted.back();
      last_counted.pop_back();
      rules.send_failed(c);
      counted[c.port] = false;
    }
    FUZZ_CHECK(rules.counted() ==
               static_cast<std::size_t>(std::count(counted.begin(), counted.end(), true)));
    FUZZ_CHECK(rules.all_counted() == (rules.counted() == ports));
    FUZZ_CHECK(rules.candidates() == live.size());
    for (std::size_t p = 0; p < ports; ++p) FUZZ_CHECK(rules.waiting(p) == !counted[p]);
  }
}

// -sp hand-outs among claims and the clock: every port goes out once first; a port goes out
// again only unclaimed and handout_claim_wait after its last hand-out; never a claimed one.
void check_handout(const uint8_t* data, size_t size, uint32_t count) {
  std::vector<bool> claimed(count, false);
  std::vector<std::optional<Clock::time_point>> handed(count);
  PortHandout handout(kFirstDataPort, count, [&](uint16_t port) {
    return port >= kFirstDataPort && port - kFirstDataPort < static_cast<int>(count) &&
           claimed[port - kFirstDataPort];
  });
  Clock::time_point now = Clock::time_point() + std::chrono::hours(1);
  for (size_t at = 3; at + 2 <= size; at += 2) {
    const uint8_t op = data[at] % 4;
    const uint8_t arg = data[at + 1];
    if (op == 0) {
      const PortHandout::Next next = handout.next(now);
      const bool fresh_left = std::find(handed.begin(), handed.end(), std::nullopt) != handed.end();
      if (next.port) {
        FUZZ_CHECK(!next.retry);
        const std::size_t i = *next.port - kFirstDataPort;
        FUZZ_CHECK(i < count && !claimed[i]);
        if (handed[i]) FUZZ_CHECK(!fresh_left && now >= *handed[i] + token::handout_claim_wait);
        handout.handed_out(*next.port, now);
        handed[i] = now;
      } else {
        FUZZ_CHECK(!fresh_left);
        const bool any_unclaimed =
            std::find(claimed.begin(), claimed.end(), false) != claimed.end();
        FUZZ_CHECK(next.retry.has_value() == any_unclaimed);
        if (next.retry) FUZZ_CHECK(*next.retry > now);
      }
    } else if (op == 1) {
      // A port is claimed by a host it was handed out to (SenderEvidence::claimed): once out.
      if (handed[arg % count]) claimed[arg % count] = true;
    } else if (op == 2) {
      claimed[arg % count] = false;  // a token that no longer counts (the exchange started over)
    } else {
      now += std::chrono::milliseconds(100) * arg;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const auto base_port = static_cast<uint16_t>(data[0] << 8 | data[1]);
  const uint32_t threads = std::max<uint32_t>(data[2], 1);
  std::vector<uint32_t> ports;
  for (size_t at = 3; at + 4 <= size; at += 4) {
    std::array<char, 4> bytes;
    std::copy(data + at, data + at + 4, bytes.begin());
    const uint32_t port = token::decode_assigned_port(bytes);
    FUZZ_CHECK(token::encode_assigned_port(port) == bytes);
    ports.push_back(port);
  }
  const bool accepted = static_cast<bool>(token::check_assigned_ports(ports, base_port, threads));
  // Accepted exactly when the ports are base + 1 .. base + threads, each once, in any order.
  std::vector<uint32_t> expected(threads);
  for (uint32_t i = 0; i < threads; ++i) expected[i] = uint32_t{base_port} + 1 + i;
  std::sort(ports.begin(), ports.end());
  FUZZ_CHECK(accepted == (ports == expected));

  std::vector<std::optional<token::FlowDeclaration>> declared;
  for (size_t at = 3; at + token::flow_declaration_size <= size;
       at += token::flow_declaration_size) {
    std::array<char, token::flow_declaration_size> bytes;
    std::copy(data + at, data + at + bytes.size(), bytes.begin());
    const auto flow = token::decode_flow_declaration(bytes);
    if (flow) {
      FUZZ_CHECK(token::encode_flow_declaration(*flow) == bytes);
      FUZZ_CHECK(xttcp::udp::valid_flow_base(flow->flow_id & ~xttcp::udp::flow_slot_mask));
    }
    declared.push_back(flow);
  }
  // The test's flows admit every declared flow with its token, and none without a declaration.
  if (const auto flows = token::declared_flows(declared)) {
    const xttcp::udp::FlowRules rules{true, *flows};
    FUZZ_CHECK(flows->size() <= declared.size());
    for (const auto& flow : declared) FUZZ_CHECK(rules.admits(flow->flow_id, flow->token));
  } else {
    FUZZ_CHECK(std::find(declared.begin(), declared.end(), std::nullopt) != declared.end());
  }

  check_token_rules(data, size, 1 + data[2] % 4, (data[1] & 1) != 0, (data[1] & 2) != 0);
  check_handout(data, size, 1 + data[2] % 8);
  return 0;
}
