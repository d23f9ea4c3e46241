#include "io_backends/uring/send_ring.hh"

#include <algorithm>

namespace xttcp {

uint32_t SendRing::entries_for(uint32_t write_size) {
  constexpr uint64_t target_bytes = 1u << 20;
  uint32_t entries = 2;
  while (entries < 256 && uint64_t{entries} * write_size < target_bytes) entries *= 2;
  return entries;
}

uint32_t SendRing::entries_for(uint32_t write_size, size_t connections) {
  const uint64_t share = hidden_bytes_budget / std::max<uint64_t>(connections, 1);
  uint32_t entries = entries_for(write_size);
  while (entries >= 2 && uint64_t{entries} * write_size > share) entries /= 2;
  return entries >= 2 ? entries : 0;
}

Status SendRing::init(uint32_t entries, const unsigned char* data, uint32_t length) {
  if (Status mapped = memory_.map(entries, "send ring"); !mapped) return mapped;
  data_ = data;
  length_ = length;
  entries_ = entries;
  mask_ = static_cast<uint32_t>(io_uring_buf_ring_mask(entries));
  next_bid_ = 0;
  refill(entries);
  return ok();
}

}  // namespace xttcp
