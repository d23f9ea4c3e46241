// What a Windows-dialect receiver has seen of its senders before a test starts, per data port,
// for its control ports to judge who may speak for a thread (docs/hostile-peers.md): the hosts
// whose data connections came to the port (TCP: the workers report each one, on their own
// threads, and when), the hosts the -sp port handed the port to, and the host whose token
// counted for it. Thread-safe; one call per connection (control path, never per buffer).
// Bounded: per port and kind, the hosts_per_port most recent hosts (a flood of more hosts than
// that pushes the first ones out: docs/hostile-peers.md says what that costs).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace xttcp {

class SenderEvidence {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t hosts_per_port = 64;

  // A data connection from `host` on `port`, seen at `at` (the first one per host is kept).
  void data_connection(uint16_t port, const std::string& host, Clock::time_point at);
  // -sp: `port` was handed out to `host`.
  void handed_out(uint16_t port, const std::string& host);
  // The token of `port`'s thread counted, from `host`.
  void token_counted(uint16_t port, const std::string& host);
  // The token exchange starts over: no thread's token counts any longer.
  void forget_tokens();

  // When the first data connection from `host` on `port` was seen; nullopt: none was.
  std::optional<Clock::time_point> data_connection_seen(uint16_t port,
                                                        const std::string& host) const;
  // -sp: whether `port` was ever handed out to `host`.
  bool handed_out_to(uint16_t port, const std::string& host) const;
  // -sp: whether `port` is in use by a host it was handed out to (that host's data connection
  // came to it, or its token counted for it): then it goes to nobody else.
  bool claimed(uint16_t port) const;

 private:
  struct Seen {
    std::string host;
    Clock::time_point at{};
  };
  struct PortRecord {
    std::vector<Seen> data;  // oldest first
    std::vector<std::string> handed_to;
    std::optional<std::string> token_from;
  };
  static const Seen* find(const std::vector<Seen>& seen, const std::string& host);

  mutable std::mutex mutex_;
  std::map<uint16_t, PortRecord> ports_;
};

}  // namespace xttcp
