// What a completion is about, packed into the 64-bit user_data of its SQE: the index of the
// connection (or listener) in the worker's table and the kind of request. No allocation per send.
#pragma once

#include <cstdint>

namespace xttcp::uring {

enum class Op : uint8_t {
  none = 0,
  send = 1,         // plain SEND
  send_zc = 2,      // SEND_ZC: a result CQE (F_MORE) then a notification CQE (F_NOTIF)
  cancel = 3,       // ASYNC_CANCEL issued at stop
  accept = 4,       // index = listener
  recv = 5,         // index = connection
  send_bundle = 6,  // SEND of provided buffers (IORING_RECVSEND_BUNDLE); may post F_MORE CQEs
  poll_out = 7,     // POLL_ADD for POLLOUT after a MSG_DONTWAIT send found no room
  inbox = 8,        // POLL_ADD for POLLIN on a one-port receiver's ConnectionInbox
};

constexpr uint64_t pack(uint32_t index, Op op) {
  return (uint64_t{index} << 8) | static_cast<uint8_t>(op);
}
constexpr uint32_t index_of(uint64_t user_data) { return static_cast<uint32_t>(user_data >> 8); }
constexpr Op op_of(uint64_t user_data) { return static_cast<Op>(user_data & 0xff); }

}  // namespace xttcp::uring
