#include "io_backends/uring/buffer_ring.hh"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace xttcp {

BufferRing::~BufferRing() {
  if (ring_ != nullptr) munmap(ring_, ring_bytes_);
}

uint32_t BufferRing::entries_for(uint32_t buffer_size) {
  constexpr uint64_t target_bytes = 4u << 20;
  uint32_t entries = 8;
  while (entries < 4096 && uint64_t{entries} * buffer_size < target_bytes) entries *= 2;
  return entries;
}

Status BufferRing::init(uint32_t entries, uint32_t buffer_size) {
  if (entries == 0 || entries > 32768 || (entries & (entries - 1)) != 0)
    return fail("buffer ring: " + std::to_string(entries) +
                " entries is not a power of two <= 32768");
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  ring_bytes_ = (entries * sizeof(io_uring_buf) + page - 1) / page * page;
  void* memory = mmap(nullptr, ring_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
  if (memory == MAP_FAILED) {
    ring_ = nullptr;
    return fail(std::string("buffer ring: mmap: ") + std::strerror(errno));
  }
  ring_ = static_cast<io_uring_buf_ring*>(memory);
  io_uring_buf_ring_init(ring_);
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
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<uintptr_t>(ring_);
  reg.ring_entries = entries_;
  reg.bgid = group;
  if (const int r = io_uring_register_buf_ring(ring, &reg, 0); r < 0)
    return fail(std::string("io_uring_register_buf_ring: ") + std::strerror(-r));
  return ok();
}

}  // namespace xttcp
