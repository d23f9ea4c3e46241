// Wakes a thread that waits in poll_sockets() from any other thread: an eventfd on Linux, a
// loopback UDP socket connected to itself on Windows (WSAPoll waits on sockets only).
// Per platform: wake_signal_linux.cc, wake_signal_windows.cc.
#pragma once

#include "base/status.hh"
#include "engine/net/unique_socket.hh"

namespace xttcp {

class WakeSignal {
 public:
  static Expected<WakeSignal> create();  // "eventfd: <reason>", "wake socket: <reason>"

  void notify();  // safe from any thread; wakes become one readable event until drained
  void drain();   // on the waiting thread, after the entry came back readable
  // What to put in the wait (read interest).
  NativeSocket pollable() const { return handle_.get(); }

 private:
  explicit WakeSignal(UniqueSocket handle) : handle_(std::move(handle)) {}
  UniqueSocket handle_;
};

}  // namespace xttcp
