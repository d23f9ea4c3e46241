// A native result frame from the peer (after its 'E'): the receiver reads a sender's, the
// sender a receiver's (parse_peer_result, within native_result_limits), then prints its totals
// and stores it in its own native JSON. Input: the frame's JSON, verbatim.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/report/linux_console.hh"
#include "engine/report/native_json.hh"
#include "tests/fuzz/fuzz_check.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view frame(reinterpret_cast<const char*>(data), size);
  auto peer = xttcp::parse_peer_result(frame, xttcp::Role::sender);
  if (!peer && peer.error().message.find("it is a receiver's result") != std::string::npos)
    peer = xttcp::parse_peer_result(frame, xttcp::Role::receiver);  // the sender's side
  if (!peer) return 0;
  FUZZ_CHECK(peer->peer == nullptr);  // a peer's own "peer" is never read
  if (peer->other_direction) {        // --bidir: the other role's, one level, no peer either
    FUZZ_CHECK(peer->other_direction->role != peer->role);
    FUZZ_CHECK(peer->other_direction->peer == nullptr);
    FUZZ_CHECK(peer->other_direction->other_direction == nullptr);
  }
  (void)xttcp::peer_summary_lines(*peer);
  xttcp::Result own;
  own.role = peer->role == xttcp::Role::sender ? xttcp::Role::receiver : xttcp::Role::sender;
  own.peer = std::make_shared<const xttcp::Result>(std::move(*peer));
  const std::string json = xttcp::render_native_json(own);
  // What we store we can read back (`compare`, `report`), the peer inside.
  auto again = xttcp::parse_native_json(json);
  FUZZ_CHECK(again);
  FUZZ_CHECK(again->peer != nullptr);
  return 0;
}
