// Socket set-up shared by every kernel-socket backend and the control plane (control path only).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/net/address.hh"
#include "engine/net/unique_fd.hh"
#include "engine/status.hh"

namespace xttcp {

// The interface that owns `address`, for SO_BINDTODEVICE (-a); nullopt if none or wildcard.
std::optional<std::string> interface_of(const SocketAddress& address);

// A non-blocking TCP listener on `address` (SO_REUSEADDR), or "port N: <reason>".
Expected<UniqueFd> listen_tcp(const SocketAddress& address, int backlog);

struct ConnectOptions {
  std::optional<SocketAddress> source;  // -a address and/or -f port
  bool bind_to_device = false;          // SO_BINDTODEVICE to the interface owning `source`
  bool no_delay = false;
  uint64_t max_pacing_rate_bytes = 0;   // SO_MAX_PACING_RATE, 0 = unset
};

// SO_MAX_PACING_RATE, then SO_BINDTODEVICE and bind() to the source when one is set (any
// socket type, before connect).
Status apply_connect_options(int fd, const ConnectOptions& options);

// Starts a non-blocking connect; the caller waits for writability (many at once).
Expected<UniqueFd> start_connect_tcp(const SocketAddress& remote, const ConnectOptions& options);

// After writability: the connect's outcome ("127.0.0.1:5001: connection refused").
Status finish_connect(int fd, const SocketAddress& remote);

// Blocking connect bounded by `timeout` (used by the control plane).
Expected<UniqueFd> connect_tcp(const SocketAddress& remote, const ConnectOptions& options,
                               std::chrono::milliseconds timeout);

Status set_nonblocking(int fd, bool on);

}  // namespace xttcp
