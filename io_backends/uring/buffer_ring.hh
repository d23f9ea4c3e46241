// One provided-buffer ring per receiver worker: `entries` buffers the kernel picks from for
// multishot receives. The data is discarded, so each buffer goes back to the ring right after its
// bytes are counted (recycle), and the ring tail is published once per batch of completions.
#pragma once

#include <liburing.h>

#include <cstdint>

#include "base/status.hh"
#include "io_backends/common/io_buffer.hh"
#include "io_backends/uring/buf_ring_memory.hh"

namespace xttcp {

class BufferRing {
 public:
  BufferRing() = default;
  BufferRing(const BufferRing&) = delete;
  BufferRing& operator=(const BufferRing&) = delete;

  // Control path: page-aligned ring memory and the buffers, every buffer in the ring (not yet
  // published). entries: a power of two in [1, 32768].
  Status init(uint32_t entries, uint32_t buffer_size);
  // Control path: publishes the initial buffers and registers the ring with `ring` as buffer
  // group `group`. The ring must be torn down (or the group unregistered) before this object.
  Status register_with(io_uring* ring, uint16_t group);

  // Data path: puts buffer `bid` back at the tail; the kernel sees it after publish().
  void recycle(uint16_t bid) {
    io_uring_buf_ring_add(memory_.get(), buffer(bid), buffer_size_, bid, static_cast<int>(mask_),
                          pending_++);
  }
  // Data path, for bundles: puts back the next `count` buffers in ring order. The kernel takes
  // buffers in ring order and each receive completes (copy and CQE) before the next starts, so
  // giving back as many as were consumed keeps bid == ring position mod entries: a bundle's
  // buffers are always consecutive bids. Never mixed with recycle(bid) on one ring.
  void recycle_in_order(uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) {
      const auto bid = static_cast<uint16_t>(next_position_++ & mask_);
      io_uring_buf_ring_add(memory_.get(), buffer(bid), buffer_size_, bid, static_cast<int>(mask_),
                            pending_++);
    }
  }
  // Buffers a bundle of `res` bytes filled: the kernel counts a partly filled one as used.
  uint32_t buffers_used(int32_t res) const {
    return res <= 0 ? 0 : static_cast<uint32_t>((uint64_t(res) + buffer_size_ - 1) / buffer_size_);
  }
  // Data path: makes every recycled buffer visible to the kernel (one release store).
  void publish() {
    if (pending_ == 0) return;
    io_uring_buf_ring_advance(memory_.get(), pending_);
    pending_ = 0;
  }

  unsigned char* buffer(uint16_t bid) const {
    return buffers_.data() + static_cast<std::size_t>(bid) * buffer_size_;
  }
  uint32_t entries() const { return entries_; }
  // A receive still armed when the worker gives up waiting may yet write into the buffers:
  // keep ring and buffers alive for the rest of the process.
  void leak() {
    memory_.leak();
    buffers_.leak();
  }
  uint32_t buffer_size() const { return buffer_size_; }
  io_uring_buf_ring* raw() const { return memory_.get(); }  // what the kernel reads (tests)

  // The ring size for a receive buffer size: a power of two holding ~4 MiB, within [8, 4096].
  static uint32_t entries_for(uint32_t buffer_size);

 private:
  BufRingMemory memory_;
  IoBuffer buffers_;
  uint32_t entries_ = 0;
  uint32_t mask_ = 0;
  uint32_t buffer_size_ = 0;
  int pending_ = 0;             // recycled since the last publish()
  uint32_t next_position_ = 0;  // recycle_in_order's next ring position
};

}  // namespace xttcp
