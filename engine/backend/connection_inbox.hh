// One port (--one-port): the data connections the receiver's sync listener accepted and
// admitted, handed to a receiver worker while it runs; the worker has no listener of its own.
// Any thread puts; the worker, woken through pollable(), takes. Control path: once per
// connection.
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
  };

  static Expected<std::unique_ptr<ConnectionInbox>> create();

  // Hands `socket` over as a connection of flow `slot`; once closed(), closes it instead.
  void put(UniqueSocket socket, uint32_t slot);
  // Every connection handed since the last take (the worker's thread, once woken).
  std::vector<Handed> take();
  // What the worker waits on (read interest) beside its connections.
  NativeSocket pollable() const { return wake_.pollable(); }
  // The worker is gone: whatever is still here, or comes later, is closed.
  void close();

 private:
  explicit ConnectionInbox(WakeSignal wake) : wake_(std::move(wake)) {}

  WakeSignal wake_;
  std::mutex mutex_;
  std::vector<Handed> handed_;  // under mutex_
  bool closed_ = false;         // under mutex_
};

}  // namespace xttcp
