// One port (--one-port): the data connections the receiver's sync listener accepted and
// admitted, handed to a receiver worker while it runs; the worker has no listener of its own.
// Each belongs to a session (its sender's sync connection) and goes when that session goes:
// orders say which to close (a session that left; at a test's start, every session but the
// test's senders). Any thread puts; the worker, woken through pollable(), takes. Control path:
// once per connection or order.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "base/status.hh"
#include "engine/net/unique_socket.hh"
#include "engine/net/wake_signal.hh"

namespace xttcp {

class ConnectionInbox {
 public:
  struct Handed {
    UniqueSocket socket;
    uint32_t slot = 0;  // the FlowPlan::slot it counts into
    int session = 0;    // its sender's sync connection
  };
  // Close the connections of `sessions`, or with `all_but`, of every session not in it.
  struct Order {
    std::vector<int> sessions;
    bool all_but = false;
    bool closes(int session) const {
      bool named = false;
      for (int s : sessions) named |= s == session;
      return named != all_but;
    }
  };
  struct Mail {
    std::vector<Handed> handed;
    std::vector<Order> orders;  // after the handed ones, in the order given
  };

  static Expected<std::unique_ptr<ConnectionInbox>> create();

  // Hands `socket` over as a connection of flow `slot`; once closed(), closes it instead.
  void put(UniqueSocket socket, uint32_t slot, int session);
  void order(Order order);
  // Everything put or ordered since the last take (the worker's thread, once woken).
  Mail take();
  // What the worker waits on (read interest) beside its connections.
  NativeSocket pollable() const { return wake_.pollable(); }
  // The worker is gone: whatever is still here, or comes later, is closed.
  void close();

 private:
  explicit ConnectionInbox(WakeSignal wake) : wake_(std::move(wake)) {}

  WakeSignal wake_;
  std::mutex mutex_;
  Mail mail_;            // under mutex_
  bool closed_ = false;  // under mutex_
};

}  // namespace xttcp
