// A --reverse test's connections on the receiver (one port): the sync listener puts each it
// admitted for a reverse sender, tagged with that sender's sync connection; the test takes its
// own once it starts. What no test takes is closed when the next test ends. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <vector>

#include "engine/net/unique_socket.hh"

namespace xttcp {

class ReverseStreams {
 public:
  void put(UniqueSocket socket, int session) {
    {
      std::lock_guard lock(mutex_);
      streams_.push_back({std::move(socket), session});
    }
    arrived_.notify_all();
  }
  // Session `session`'s connections in the order they came, once `count` came or at
  // `deadline` (then fewer); every other session's are closed.
  std::vector<UniqueSocket> take(int session, std::size_t count,
                                 std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    arrived_.wait_until(lock, deadline, [&] { return of(session) >= count; });
    std::vector<UniqueSocket> taken;
    for (Stream& stream : streams_)
      if (stream.session == session && taken.size() < count)
        taken.push_back(std::move(stream.socket));
    streams_.clear();
    return taken;
  }
  // Closes `session`'s (its sync connection closed).
  void drop(int session) {
    std::lock_guard lock(mutex_);
    std::erase_if(streams_, [session](const Stream& stream) { return stream.session == session; });
  }
  // Closes whatever is left (a test ended: no stream waiting now is any later test's).
  void clear() {
    std::lock_guard lock(mutex_);
    streams_.clear();
  }

 private:
  struct Stream {
    UniqueSocket socket;
    int session;
  };
  std::size_t of(int session) const {
    std::size_t n = 0;
    for (const Stream& stream : streams_) n += stream.session == session ? 1 : 0;
    return n;
  }

  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<Stream> streams_;
};

}  // namespace xttcp
