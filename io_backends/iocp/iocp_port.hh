// One I/O completion port per worker (RAII), the sockets associated with it, and the batched
// wait of the worker loop.
#pragma once

#include <cstdint>
#include <utility>

#include "base/status.hh"
#include "engine/net/os_socket.hh"

namespace xttcp::iocp {

// Completions dequeued per wait, and how long a wait lasts at most: a worker sees `stop` within
// about this long (the DataWorker contract asks for 100 ms).
inline constexpr ULONG completion_batch = 64;
inline constexpr DWORD max_wait_ms = 100;
// At the end, how long a worker waits for the completions of what it cancelled. Memory the
// kernel may still write is never freed: past this bound it is left allocated (and said so).
inline constexpr DWORD drain_timeout_ms = 2000;

class CompletionPort {
 public:
  CompletionPort() = default;
  CompletionPort(CompletionPort&& other) noexcept : port_(std::exchange(other.port_, nullptr)) {}
  CompletionPort& operator=(CompletionPort&& other) noexcept {
    if (this != &other) {
      close();
      port_ = std::exchange(other.port_, nullptr);
    }
    return *this;
  }
  CompletionPort(const CompletionPort&) = delete;
  CompletionPort& operator=(const CompletionPort&) = delete;
  ~CompletionPort() { close(); }

  // One port for one thread (concurrency 1). Error: "CreateIoCompletionPort: <reason>".
  static Expected<CompletionPort> create();

  bool valid() const { return port_ != nullptr; }

  // Associates `socket` with the port under `key` and asks Windows to skip the completion packet
  // (and the handle's event) when an operation succeeds at once. Returns whether it did: when
  // true, a call that returns success has completed inline and no packet follows; when false
  // (an LSP without IFS handles), every operation completes through the port.
  Expected<bool> associate(SOCKET socket, ULONG_PTR key);

  // GetQueuedCompletionStatusEx: up to `capacity` entries, waiting at most `timeout_ms`.
  // Returns how many were removed (0 on timeout).
  ULONG wait(OVERLAPPED_ENTRY* entries, ULONG capacity, DWORD timeout_ms);

 private:
  void close();
  HANDLE port_ = nullptr;
};

}  // namespace xttcp::iocp
