// Encoding shared by both ends of the sync connection: int32 messages in network byte order
// and, on native connections, frames (uint32 length in network order + that many bytes of
// UTF-8 JSON, at most sync_code::kMaxFrameBytes).
#pragma once

#include "engine/net/os_socket.hh"  // htonl, ntohl

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "engine/control/sync_codes.hh"

namespace xttcp::sync_wire {

inline void append_int(std::string& out, int32_t value) {
  const uint32_t net = htonl(static_cast<uint32_t>(value));
  out.append(reinterpret_cast<const char*>(&net), sizeof net);
}

// `bytes` must hold at least 4 bytes.
inline int32_t decode_int(const char* bytes) {
  uint32_t net = 0;
  std::memcpy(&net, bytes, sizeof net);
  return static_cast<int32_t>(ntohl(net));
}

// The caller checks the size limit first.
inline void append_frame(std::string& out, std::string_view json) {
  append_int(out, static_cast<int32_t>(static_cast<uint32_t>(json.size())));
  out.append(json);
}

inline uint32_t decode_frame_length(const char* bytes) {
  return static_cast<uint32_t>(decode_int(bytes));
}

}  // namespace xttcp::sync_wire
