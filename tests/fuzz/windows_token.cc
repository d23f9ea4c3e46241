// NTttcp for Windows' -sp: a sender thread reads its data port from the receiver's base port as
// a 4-byte little-endian long, and checks the ports it got are the data ports of this run. (The
// token exchange itself reads one byte and does not look at it.) And a UDP sender's flow
// declaration after the tokens, as an xttcp receiver reads it from each token connection: taken
// only with its magic and a sender's flow base, and exactly as written.
//
// Input: base port (2 bytes, big-endian), threads (1 byte, 0 read as 1), then the bytes the
// receiver(s) sent, 4 per thread; the same bytes, 10 at a time, as flow declarations.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/control/windows_token.hh"
#include "tests/fuzz/fuzz_check.hh"

namespace token = xttcp::windows_token;

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
  return 0;
}
