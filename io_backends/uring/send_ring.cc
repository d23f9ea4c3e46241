#include "io_backends/uring/send_ring.hh"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace xttcp {

SendRing::SendRing(SendRing&& other) noexcept
    : ring_(std::exchange(other.ring_, nullptr)),
      ring_bytes_(other.ring_bytes_),
      data_(other.data_),
      length_(other.length_),
      entries_(other.entries_),
      mask_(other.mask_),
      next_bid_(other.next_bid_) {}

SendRing::~SendRing() {
  if (ring_ != nullptr) munmap(ring_, ring_bytes_);
}

uint32_t SendRing::entries_for(uint32_t write_size) {
  constexpr uint64_t target_bytes = 1u << 20;
  uint32_t entries = 2;
  while (entries < 256 && uint64_t{entries} * write_size < target_bytes) entries *= 2;
  return entries;
}

Status SendRing::init(uint32_t entries, const unsigned char* data, uint32_t length) {
  if (entries == 0 || entries > 32768 || (entries & (entries - 1)) != 0)
    return fail("send ring: " + std::to_string(entries) + " entries is not a power of two <= 32768");
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  ring_bytes_ = (entries * sizeof(io_uring_buf) + page - 1) / page * page;
  void* memory = mmap(nullptr, ring_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
  if (memory == MAP_FAILED) {
    ring_ = nullptr;
    return fail(std::string("send ring: mmap: ") + std::strerror(errno));
  }
  ring_ = static_cast<io_uring_buf_ring*>(memory);
  io_uring_buf_ring_init(ring_);
  data_ = data;
  length_ = length;
  entries_ = entries;
  mask_ = static_cast<uint32_t>(io_uring_buf_ring_mask(entries));
  next_bid_ = 0;
  refill(entries);
  return ok();
}

Status SendRing::register_with(io_uring* ring, uint16_t group) {
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<uintptr_t>(ring_);
  reg.ring_entries = entries_;
  reg.bgid = group;
  if (const int r = io_uring_register_buf_ring(ring, &reg, 0); r < 0)
    return fail(std::string("io_uring_register_buf_ring (send): ") + std::strerror(-r));
  return ok();
}

}  // namespace xttcp
