// A provided-buffer ring for SEND bundles (IORING_RECVSEND_BUNDLE, Linux 6.10), one per
// connection. Every slot points at the same read-only buffer of 'A', so one bundle send takes all
// published slots and hands them to the socket in a single sendmsg: many application-sized writes
// for one submission and one trip through the TCP stack. The sender puts back exactly as many
// slots as each completion consumed.
#pragma once

#include <liburing.h>

#include <cstddef>
#include <cstdint>

#include "base/status.hh"
#include "io_backends/uring/buf_ring_memory.hh"

namespace xttcp {

class SendRing {
 public:
  SendRing() = default;
  SendRing(SendRing&&) noexcept = default;
  SendRing& operator=(SendRing&&) = delete;
  SendRing(const SendRing&) = delete;

  // Control path: ring memory with every slot published. entries: a power of two in [1, 32768].
  Status init(uint32_t entries, const unsigned char* data, uint32_t length);
  // Control path: registers the ring as buffer group `group`. The io_uring must be torn down (or
  // the group unregistered) before this object.
  Status register_with(io_uring* ring, uint16_t group) const {
    return memory_.register_with(ring, group);
  }

  // Data path: gives `count` slots back to the kernel (one release store).
  void refill(uint32_t count) {
    if (count == 0) return;
    for (uint32_t i = 0; i < count; ++i)
      io_uring_buf_ring_add(memory_.get(), const_cast<unsigned char*>(data_), length_,
                            static_cast<unsigned short>(next_bid_++ & mask_),
                            static_cast<int>(mask_), static_cast<int>(i));
    io_uring_buf_ring_advance(memory_.get(), static_cast<int>(count));
  }

  // How many slots a send of `res` bytes consumed: the kernel counts a slot it sent in part as
  // used (io_bundle_nbufs), so a short send drops the rest of that slot; every slot holds the
  // same bytes, so the stream stays all 'A'.
  static uint32_t slots_consumed(int32_t res, uint32_t length) {
    return res <= 0 ? 0 : static_cast<uint32_t>((uint64_t(res) + length - 1) / length);
  }
  // Slots per connection for a write size: a power of two covering ~1 MiB per bundle, in
  // [2, 256] (the kernel takes at most 256 buffers per bundle).
  static uint32_t entries_for(uint32_t write_size);
  // The same for one of `connections` connections of a worker, or 0: no bundles. The kernel
  // sends a bundle whole (MSG_WAITALL) and reports its bytes only then, so what the bundles in
  // flight have sent is not in the counters yet: their slots together stay within
  // hidden_bytes_budget, or the worker sends one write per send (exact at every instant).
  static constexpr uint64_t hidden_bytes_budget = 64u << 20;
  static uint32_t entries_for(uint32_t write_size, size_t connections);

  uint32_t entries() const { return entries_; }
  io_uring_buf_ring* raw() const { return memory_.get(); }  // what the kernel reads (tests)

 private:
  BufRingMemory memory_;
  const unsigned char* data_ = nullptr;
  uint32_t length_ = 0;
  uint32_t entries_ = 0;
  uint32_t mask_ = 0;
  uint32_t next_bid_ = 0;
};

}  // namespace xttcp
