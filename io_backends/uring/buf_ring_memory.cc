#include "io_backends/uring/buf_ring_memory.hh"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace xttcp {

BufRingMemory::BufRingMemory(BufRingMemory&& other) noexcept
    : ring_(std::exchange(other.ring_, nullptr)),
      bytes_(other.bytes_),
      entries_(other.entries_),
      what_(std::move(other.what_)) {}

BufRingMemory::~BufRingMemory() {
  if (ring_ != nullptr) munmap(ring_, bytes_);
}

Status BufRingMemory::map(uint32_t entries, const char* what) {
  what_ = what;
  if (entries == 0 || entries > 32768 || (entries & (entries - 1)) != 0)
    return fail(what_ + ": " + std::to_string(entries) + " entries is not a power of two <= 32768");
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  bytes_ = (entries * sizeof(io_uring_buf) + page - 1) / page * page;
  void* memory = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return fail(what_ + ": mmap: " + std::strerror(errno));
  ring_ = static_cast<io_uring_buf_ring*>(memory);
  entries_ = entries;
  io_uring_buf_ring_init(ring_);
  return ok();
}

Status BufRingMemory::register_with(io_uring* ring, uint16_t group) const {
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<uintptr_t>(ring_);
  reg.ring_entries = entries_;
  reg.bgid = group;
  if (const int r = io_uring_register_buf_ring(ring, &reg, 0); r < 0)
    return fail(what_ + ": io_uring_register_buf_ring: " + std::strerror(-r));
  return ok();
}

}  // namespace xttcp
