// The memory of one provided-buffer ring (io_uring_buf_ring), shared by the receive buffer ring
// and the send rings: page-aligned, mapped and unmapped here, registered as a buffer group.
#pragma once

#include <liburing.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.hh"

namespace xttcp {

class BufRingMemory {
 public:
  BufRingMemory() = default;
  BufRingMemory(BufRingMemory&& other) noexcept;
  BufRingMemory& operator=(BufRingMemory&&) = delete;
  BufRingMemory(const BufRingMemory&) = delete;
  ~BufRingMemory();

  // Maps and initialises a ring of `entries` (a power of two in [1, 32768]); `what` names it in
  // errors ("send ring: ...").
  Status map(uint32_t entries, const char* what);
  // Registers the ring as buffer group `group`. The io_uring must be torn down (or the group
  // unregistered) before this object.
  Status register_with(io_uring* ring, uint16_t group) const;

  // Gives the mapping up without unmapping it: the kernel may still read it.
  void leak() { ring_ = nullptr; }
  io_uring_buf_ring* get() const { return ring_; }
  uint32_t entries() const { return entries_; }

 private:
  io_uring_buf_ring* ring_ = nullptr;
  std::size_t bytes_ = 0;
  uint32_t entries_ = 0;
  std::string what_;
};

}  // namespace xttcp
