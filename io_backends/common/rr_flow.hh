// --rr (docs/rr.md) on any kernel-socket backend: what a request/response flow keeps, apart
// from how its I/O is issued. Times are RrClock ticks (engine/stats/rr_clock.hh).
//   TCP: responses come back in order, so the requester keeps its requests' send times in a
//        FIFO and counts response bytes into whole responses (any size from 1 byte).
//   UDP: a datagram can be lost, so every request carries its send time in its first 8 bytes
//        and the responder copies them into the response.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/spec.hh"

namespace xttcp {

// Send times of the requests in flight, oldest first; capacity = --rr-depth.
class StampQueue {
 public:
  StampQueue() = default;
  explicit StampQueue(uint32_t capacity) : ring_(capacity == 0 ? 1 : capacity) {}
  bool full() const { return size_ == ring_.size(); }
  uint32_t size() const { return size_; }
  void push(uint64_t stamp) {
    ring_[(head_ + size_) % ring_.size()] = stamp;
    ++size_;
  }
  uint64_t pop() {
    const uint64_t stamp = ring_[head_];
    head_ = (head_ + 1) % static_cast<uint32_t>(ring_.size());
    --size_;
    return stamp;
  }

 private:
  std::vector<uint64_t> ring_ = std::vector<uint64_t>(1);
  uint32_t head_ = 0, size_ = 0;
};

// A byte stream cut into messages of `size` bytes: how many ended in the `n` bytes just read.
class MessageCounter {
 public:
  MessageCounter() = default;
  explicit MessageCounter(uint32_t size) : size_(size == 0 ? 1 : size) {}
  uint64_t add(uint64_t n) {
    partial_ += n;
    const uint64_t whole = partial_ / size_;
    partial_ %= size_;
    return whole;
  }

 private:
  uint64_t size_ = 1;
  uint64_t partial_ = 0;
};

inline void write_rr_stamp(unsigned char* datagram, uint64_t stamp) {
  std::memcpy(datagram, &stamp, sizeof stamp);
}
inline uint64_t read_rr_stamp(const unsigned char* datagram) {
  uint64_t stamp;
  std::memcpy(&stamp, datagram, sizeof stamp);
  return stamp;
}

// The sizes of this end's requests and responses (-b is the request size on both ends).
inline uint32_t rr_request_bytes(const TestSpec& spec) {
  return spec.role == Role::sender ? spec.workload.send_buffer : spec.workload.recv_buffer;
}
inline uint32_t rr_response_bytes(const TestSpec& spec) {
  return spec.rr.response_bytes(rr_request_bytes(spec));
}

// A UDP request unanswered this long is taken as lost and its flow's window is refilled.
inline constexpr uint64_t rr_udp_loss_pause_ns = 200'000'000;

}  // namespace xttcp
