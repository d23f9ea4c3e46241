// The receive low-water mark that follows a connection's rate (--receive-mark). On loopback the
// sender's core also runs the receiver's TCP input, and waking the reader for every segment
// (sock_def_readable from tcp_data_queue) costs it about a fifth of its time. SO_RCVLOWAT makes
// the kernel wake the reader only once that many bytes are queued; a fixed mark would hold back a
// slow or -B-paced flow, so the mark is re-measured every `sample_ns` from the bytes the
// connection delivered, and sized so one wakeup carries about `wake_window_ns` of its data.
// Pure arithmetic: the caller reads the clock and sets the socket option.
#pragma once

#include <cstdint>

namespace xttcp {

namespace rate_mark {
inline constexpr uint64_t wake_window_ns = 250'000;  // data one wakeup carries, at the rate
inline constexpr uint64_t sample_ns = 5'000'000;     // how often the rate is re-measured
inline constexpr uint32_t min_mark = 64 * 1024;      // below this the kernel default (1) is kept
inline constexpr uint32_t max_mark = 1024 * 1024;
inline constexpr uint32_t off = 1;  // SO_RCVLOWAT 1: wake for every byte
}  // namespace rate_mark

// The mark for a connection delivering `bytes_per_s`: `bytes_per_s` x wake_window, rounded down
// to a power of two (so a steady flow keeps one value), at most min(max_mark, cap); rate_mark::off
// when that is below min_mark (about 2.1 Gbit/s: slow flows are woken as the kernel does).
// `cap` is what the socket can hold without shrinking its window (a quarter of SO_RCVBUF).
uint32_t mark_for_rate(double bytes_per_s, uint64_t cap);

// One connection's mark, from the slower of its last two samples: a burst (a reader catching up
// after a scheduling delay counts several samples' data in one) raises it only if the next
// sample confirms it, while a slowdown lowers it at once. Held back data is bounded: at most the
// mark, for at most about one sample, since a slower rate lowers the mark and the kernel wakes
// the reader at once when the queue already reaches the lowered mark.
class RateMark {
 public:
  // The connection delivered `total_bytes` so far at `now_ns`. When a sample is complete,
  // returns the mark it should now have if that differs from current(), else 0 (nothing to do).
  uint32_t update(uint64_t total_bytes, uint64_t now_ns, uint64_t cap);
  // The caller set `mark` on the socket (it may have lowered what update() returned).
  void applied(uint32_t mark) { mark_ = mark; }
  uint32_t current() const { return mark_; }
  bool sample_due(uint64_t now_ns) const {
    return !started_ || now_ns - sample_start_ns_ >= rate_mark::sample_ns;
  }

 private:
  bool started_ = false;
  uint64_t sample_start_ns_ = 0;
  uint64_t sample_start_bytes_ = 0;
  double previous_rate_ = 0;  // bytes/s of the sample before the last
  uint32_t mark_ = rate_mark::off;
};

}  // namespace xttcp
