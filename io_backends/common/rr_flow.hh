// --rr (docs/rr.md) on every backend (header-only, pure: the Linux paths and iocp on Windows use
// it alike): what a request/response flow keeps, apart from how its I/O is issued. Times are
// RrClock ticks (engine/stats/rr_clock.hh).
//   TCP: responses come back in order, so the requester keeps its requests' send times in a
//        FIFO and counts response bytes into whole responses (any size from 1 byte).
//   UDP: a datagram can be lost, so every request carries its send time in its first 8 bytes
//        and the responder copies them into the response.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/backend/data_worker.hh"
#include "engine/spec.hh"
#include "engine/stats/rr_clock.hh"

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

// TCP: `n` response bytes arrived on `flow` (any backend's flow with `responses`, `stamps`,
// `unsent` and `slot`). Each response they complete ends its request's round trip, recorded and
// counted, and owes the next request, which leaves now. The clock is read only if one completed.
template <class Flow>
void complete_tcp_responses(Flow& flow, uint64_t n, const WorkerContext& context,
                            const RrClock& clock, uint32_t request, uint32_t response) {
  uint64_t done = flow.responses.add(n);
  if (done == 0) return;
  LatencyHistogram& histogram = context.rr_histograms[flow.slot];
  FlowCounter& counter = context.counters[flow.slot];
  const uint64_t transaction_bytes = uint64_t{request} + response;
  const uint64_t now = clock.now();
  for (; done > 0 && flow.stamps.size() > 0; --done) {
    histogram.record(clock.to_ns(now - flow.stamps.pop()));
    counter.add(transaction_bytes);
    flow.stamps.push(now);  // the next request leaves now
    flow.unsent += request;
  }
}

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

// A UDP requester flow's requests in flight, in RrClock ticks. A response answers one of them
// when the stamp it carries back is one of ours (not 0, not in the future) and not older than
// the last give-up; a flow that heard nothing for the loss pause gives its requests in flight up
// as lost and opens a new epoch, so late answers to them are ignored rather than timed.
class UdpRrWindow {
 public:
  UdpRrWindow() = default;
  UdpRrWindow(uint32_t depth, uint64_t loss_pause_ticks)
      : depth_(depth == 0 ? 1 : depth), loss_pause_(loss_pause_ticks) {}
  uint32_t in_flight() const { return in_flight_; }
  // Room for one more request (in flight < depth).
  bool room() const { return in_flight_ < depth_; }
  // A request left.
  void sent() { ++in_flight_; }
  // The flow was refilled at `now` (after an answer, a give-up or at the start): the loss pause
  // runs from here.
  void refilled(uint64_t now) { last_progress_ = now; }
  // A response carrying `stamp` arrived at `now`: true when it answers a request in flight, which
  // leaves the window; false for one given up as lost, or not ours.
  bool answer(uint64_t stamp, uint64_t now) {
    if (stamp == 0 || stamp < epoch_ || stamp > now) return false;
    if (in_flight_ > 0) --in_flight_;
    return true;
  }
  // The flow heard nothing for the loss pause by `now`.
  bool quiet(uint64_t now) const { return now - last_progress_ >= loss_pause_; }
  // Gives every request in flight up as lost at `now` and returns how many.
  uint32_t give_up(uint64_t now) {
    const uint32_t lost = in_flight_;
    in_flight_ = 0;
    epoch_ = now;
    return lost;
  }

 private:
  uint32_t depth_ = 1;
  uint64_t loss_pause_ = 0;
  uint32_t in_flight_ = 0;
  uint64_t epoch_ = 0;          // answers stamped before this were given up as lost
  uint64_t last_progress_ = 0;  // the last refill
};

}  // namespace xttcp
