#include "io_backends/uring/buffer_ring.hh"

#include <cerrno>
#include <cstring>
#include <string>

namespace xttcp {

uint32_t BufferRing::entries_for(uint32_t buffer_size) {
  constexpr uint64_t target_bytes = 4u << 20;
  uint32_t entries = 8;
  while (entries < 4096 && uint64_t{entries} * buffer_size < target_bytes) entries *= 2;
  return entries;
}

Status BufferRing::init(uint32_t entries, uint32_t buffer_size) {
  if (Status mapped = memory_.map(entries, "buffer ring"); !mapped) return mapped;
  buffers_ = IoBuffer(static_cast<std::size_t>(entries) * buffer_size, 0);
  if (!buffers_)
    return fail("cannot allocate " + std::to_string(entries) + " receive buffers of " +
                std::to_string(buffer_size) + " bytes");
  entries_ = entries;
  mask_ = static_cast<uint32_t>(io_uring_buf_ring_mask(entries));
  buffer_size_ = buffer_size;
  pending_ = 0;
  for (uint32_t bid = 0; bid < entries; ++bid) recycle(static_cast<uint16_t>(bid));
  next_position_ = entries;
  return ok();
}

Status BufferRing::register_with(io_uring* ring, uint16_t group) {
  publish();
  return memory_.register_with(ring, group);
}

}  // namespace xttcp
