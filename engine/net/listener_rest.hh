// A listener that runs out of descriptors (or memory) on accept(): it rests and comes back
// (ListenerRest). Portable and pure: every kernel-socket listener uses it, the data ports'
// (io_backends/common/accept_failure.hh, io_backends/iocp) and the control ports' (sync,
// the Windows dialect's -sp and token ports).
#pragma once

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>

#include <fmt/format.h>

namespace xttcp {

// Out of descriptors or memory: the pending connection stays queued, so retrying at once would
// only spin. The listener rests (ListenerRest) while the connections it has go on being served.
inline bool accept_failure_lasts(int err) {
  return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

// One line naming the port, the reason and, when it helps, what to do.
inline std::string describe_accept_failure(uint16_t port, int err) {
  return "accept on port " + std::to_string(port) + ": " + std::strerror(err) +
         (err == EMFILE ? " (raise the open-files limit: ulimit -n)" : "");
}

// A listener that ran out of descriptors (or memory): it stops polling for `pause`,
// then tries again, for as long as the shortage lasts, and never turns off for good. One line
// when a shortage begins and one when accepting works again, so the user hears of it at once
// (a sender meanwhile waits in the listen queue and its receiver counts nothing), not at the
// end of the run. Pure: the caller owns the clock and the polling.
class ListenerRest {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds pause{250};

  // accept() failed with `err` at `now`. False: not a shortage (the caller carries on). True:
  // rest until resume_at(); `line` is set when this failure begins a shortage, else cleared.
  bool on_failure(int err, uint16_t port, Clock::time_point now, std::string& line) {
    line.clear();
    if (!accept_failure_lasts(err)) return false;
    on_shortage(describe_accept_failure(port, err), now, line);
    return true;
  }
  // The caller found a shortage itself (another OS's codes), described as `what` ("accept on
  // port 5001: <reason>"): rest until resume_at(); `line` as on_failure() sets it.
  void on_shortage(const std::string& what, Clock::time_point now, std::string& line) {
    line.clear();
    if (!short_) {
      short_ = true;
      since_ = now;
      failures_ = 0;
      line = fmt::format(
          "{}; not accepting for {} ms, then again until it works (the connections "
          "already accepted are served)",
          what, pause.count());
    }
    ++failures_;
    resting_ = true;
    resume_at_ = now + pause;
  }
  // accept() gave a connection at `now`: the line saying the listener is back after a shortage,
  // else empty.
  std::string on_success(uint16_t port, Clock::time_point now) {
    if (!short_) return {};
    short_ = false;
    return fmt::format("accept on port {} works again after {:.1f} s ({} tries)", port,
                       std::chrono::duration<double>(now - since_).count(), failures_ + 1);
  }
  bool resting() const { return resting_; }
  bool due(Clock::time_point now) const { return resting_ && now >= resume_at_; }
  Clock::time_point resume_at() const { return resume_at_; }
  // The caller polls the listener again.
  void resume() { resting_ = false; }
  // How long a loop that waits at most `longest` may wait before this listener is due: all of
  // it when not resting, 0 when due.
  std::chrono::milliseconds wait_at_most(Clock::time_point now,
                                         std::chrono::milliseconds longest) const {
    if (!resting_) return longest;
    if (now >= resume_at_) return std::chrono::milliseconds(0);
    return std::min(longest, std::chrono::ceil<std::chrono::milliseconds>(resume_at_ - now));
  }
  bool in_shortage() const { return short_; }

 private:
  bool resting_ = false;
  bool short_ = false;
  uint64_t failures_ = 0;
  Clock::time_point since_{}, resume_at_{};
};

}  // namespace xttcp
