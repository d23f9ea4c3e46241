// The receiver's door (--allow, --max-clients, --auth-key): decides, per connection or datagram,
// whether a peer is served, and counts the ones turned away so the result can say so.
// Thread-safe: the sync thread and every receiver worker ask it.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/net/address_filter.hh"
#include "engine/net/unique_socket.hh"

namespace xttcp {

class PeerAdmission {
 public:
  enum class Door { control, data, datagram };
  struct Refusals {
    uint64_t control = 0;           // sync / token / port-assignment connections closed at once
    uint64_t data = 0;              // data connections closed at once
    uint64_t datagrams = 0;         // UDP datagrams dropped unread
    uint64_t over_max_clients = 0;  // of control + data: from a host beyond --max-clients
    uint64_t unauthenticated = 0;   // of control + data: without --auth-key's proof or preamble
    uint64_t over_descriptor_reserve = 0;  // of data: into the descriptors kept for the sync port
    uint64_t total() const { return control + data + datagrams; }
  };

  // max_clients: distinct peer hosts served in one test (0 = no limit).
  PeerAdmission(AddressFilter filter, uint32_t max_clients);

  // True when nothing is filtered: backends skip asking (and reading source addresses).
  bool open() const { return filter_.empty() && max_clients_ == 0 && !sessions_required_; }
  // Control path (one call per connection): --allow, then --max-clients, then for a data
  // connection with --auth-key its preamble, read now from `socket` (the listener defers the
  // accept until data came: sync_auth.hh). A refused peer is counted; the caller closes its
  // connection.
  bool admit_connection(const SocketAddress& peer, Door door, NativeSocket socket = invalid_socket);
  // One port (--one-port): a data connection whose preamble the sync listener read, naming
  // `cookie`: --allow, --max-clients and the session, as admit_connection() does, and the
  // session (its sync connection's id) must be `welcome` now. The session, or nullopt (refused,
  // counted).
  std::optional<int> admit_stream(const SocketAddress& peer, const std::array<uint8_t, 16>& cookie,
                                  const std::function<bool(int session)>& welcome);

  // Descriptors kept for the sync port: a data connection accepted into one of the last few
  // of the open-files limit is closed at once, so idle data connections cannot block the sync
  // accept. POSIX sockets take the lowest free number, so one at or past the ceiling means
  // fewer than this many are free. Set before any worker runs; Windows sockets are no such
  // numbers (no ceiling there).
  static constexpr uint64_t descriptors_for_control = 32;
  void keep_descriptors_for_control(uint64_t open_files_limit);
  bool within_data_descriptors(NativeSocket socket) const {
    return static_cast<uint64_t>(socket) < data_descriptor_ceiling_;
  }
  // Counts one such closure. Said at most once per kReserveLineEvery (a flood of them would
  // otherwise take the data path's line budget from the lines that matter, "works again"): the
  // closures this line says, itself included, or 0 when it stays unsaid.
  static constexpr std::chrono::seconds kReserveLineEvery{10};
  uint64_t count_over_descriptor_reserve();
  uint64_t open_files_limit() const { return open_files_limit_; }
  uint64_t kept_for_control() const { return open_files_limit_ - data_descriptor_ceiling_; }

  // A data listener ran out of descriptors (or memory), or accepts again: while short, its
  // queued connections wait unserved. Shortages begun so far, and listeners short now.
  void accept_shortage_began() {
    accept_shortages_.fetch_add(1, std::memory_order_relaxed);
    listeners_short_.fetch_add(1, std::memory_order_relaxed);
  }
  void accept_shortage_ended() { listeners_short_.fetch_sub(1, std::memory_order_relaxed); }
  uint64_t accept_shortages() const { return accept_shortages_.load(std::memory_order_relaxed); }
  int64_t listeners_short() const { return listeners_short_.load(std::memory_order_relaxed); }

  // --auth-key, --one-port: data connections must open with the preamble of a session open now
  // (authenticated, or handed its cookie on one port).
  void require_sessions() { sessions_required_ = true; }
  bool sessions_required() const { return sessions_required_; }
  // Sync connection `id` proved the key, or was handed `cookie` (one port): its data
  // connections name `cookie` (sync_auth.hh).
  void session_opened(int id, const std::array<uint8_t, 16>& cookie);
  void session_closed(int id);
  // A sync connection closed for want of the key's proof.
  void count_unauthenticated_control();
  // Hot path when --allow is set (one call per datagram): the filter only, no lock.
  bool admit_datagram(const SocketAddress& peer) {
    if (filter_.allows(peer)) return true;
    refused_datagrams_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }

  Refusals refusals() const;
  // -H: a new test begins; --max-clients counts its hosts afresh (refusals go on adding up).
  void next_test();
  const AddressFilter& filter() const { return filter_; }
  uint32_t max_clients() const { return max_clients_; }

 private:
  bool admit(const SocketAddress& peer, Door door, bool check_session,
             const std::optional<std::array<uint8_t, 16>>& cookie);

  AddressFilter filter_;
  uint32_t max_clients_;
  mutable std::mutex mutex_;
  std::vector<std::string> hosts_;  // distinct hosts admitted (only kept with max_clients)
  bool sessions_required_ = false;  // set before any worker runs
  uint64_t data_descriptor_ceiling_ = UINT64_MAX;  // likewise
  uint64_t open_files_limit_ = UINT64_MAX;
  std::vector<std::pair<int, std::array<uint8_t, 16>>> sessions_;  // under mutex_
  Refusals refused_;             // control, data, over_max_clients (under mutex_)
  uint64_t reserve_unsaid_ = 0;  // under mutex_
  std::chrono::steady_clock::time_point reserve_said_at_{};  // under mutex_
  std::atomic<uint64_t> refused_datagrams_{0};
  std::atomic<uint64_t> accept_shortages_{0};
  std::atomic<int64_t> listeners_short_{0};
};

}  // namespace xttcp
