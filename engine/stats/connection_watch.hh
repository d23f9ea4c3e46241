// The TCP connections open right now, so the control thread can read each one's TCP_INFO at
// every interval (docs/native-json.md: intervals[].connections). Workers add a connection when
// it opens and remove it before they close it, and the reader reads under the same lock: a
// socket is never read after its number was given back to the OS (and maybe to a new socket).
// All of it is control path: a worker touches the watch at connect, accept and close only.
// With tallies (io.count_reads), each watched connection also has a StreamTally its worker counts
// its receives into, lock-free, and the reader reads with its TCP_INFO.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/net/os_socket.hh"
#include "engine/result.hh"
#include "engine/stats/stream_tally.hh"

namespace xttcp {

class ConnectionWatch {
 public:
  static constexpr uint32_t not_watched = UINT32_MAX;

  // At most `capacity` connections open at once are watched; the others are counted. `tallies`:
  // each watched connection has a StreamTally.
  explicit ConnectionWatch(uint32_t capacity, bool tallies = false);

  // A connection opened: its id, never reused within this watch, or not_watched past the
  // capacity. Reads its addresses once, here. `slot`: the flow slot it counts into. With
  // tallies, `*tally` is set to the connection's (zeroed; stable until remove(id)), else null.
  uint32_t add(NativeSocket socket, uint32_t slot = 0, StreamTally** tally = nullptr);
  // Before its socket is closed: the connection `id` (from add()) is read one last time, and
  // that reading is the next read()'s (so the interval it closed in keeps its last bytes).
  void remove(uint32_t id);

  struct Reading {
    uint32_t id;
    uint32_t slot;  // add()'s
    TcpSample sample;
    StreamTally::Counts tally;             // with tallies; else zero
    std::optional<WatchedConnection> who;  // for ids >= read()'s new_from only
  };
  // Control thread (one reader): TCP_INFO of every watched connection open now, and the last
  // reading of those removed since the previous read(), in id order, with the addresses of
  // those with ids from `new_from` on (the ones the caller has not seen yet: ids only grow).
  std::vector<Reading> read(uint32_t new_from);
  // Connections that opened while the watch was full.
  uint64_t not_watched_count() const;

 private:
  struct Entry {
    WatchedConnection who;
    NativeSocket socket;
    uint32_t slot;
    StreamTally* tally;  // null without tallies
  };
  const uint32_t capacity_;
  std::unique_ptr<StreamTally[]> tallies_;  // capacity_ of them, or none
  std::vector<StreamTally*> free_tallies_;
  mutable std::mutex mutex_;
  std::vector<Entry> open_;      // at most capacity_, in id order
  std::vector<Reading> closed_;  // removed since the last read(); at most capacity_
  uint32_t next_id_ = 0;
  uint64_t not_watched_ = 0;
};

// The interval figures of each connection from two readings: `now`'s gauges, and its counts'
// change since `before` (a connection absent from `before` opened within the interval: from 0).
// A count that went backwards (it cannot, unless the OS reset it) gives 0.
std::vector<ConnectionInterval> interval_figures(
    const std::vector<ConnectionWatch::Reading>& before,
    const std::vector<ConnectionWatch::Reading>& now, Role role);

}  // namespace xttcp
