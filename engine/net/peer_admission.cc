#include "engine/net/peer_admission.hh"

#include <algorithm>
#include <optional>
#include <utility>

#include "base/crypto.hh"
#include "engine/control/sync_auth.hh"
#include "engine/net/socket_io.hh"

namespace xttcp {

PeerAdmission::PeerAdmission(AddressFilter filter, uint32_t max_clients)
    : filter_(std::move(filter)), max_clients_(max_clients) {}

bool PeerAdmission::admit_connection(const SocketAddress& peer, Door door, NativeSocket socket) {
  // The preamble is read outside the lock: it is one non-blocking receive.
  std::optional<sync_auth::Cookie> cookie;
  const bool check_session = sessions_required_ && door == Door::data;
  if (check_session) {
    sync_auth::Preamble preamble{};
    const SocketTransfer got =
        receive_now(socket, reinterpret_cast<char*>(preamble.data()), preamble.size());
    if (got.bytes == static_cast<int64_t>(preamble.size())) cookie = sync_auth::cookie_in(preamble);
  }
  return admit(peer, door, check_session, cookie);
}

std::optional<int> PeerAdmission::admit_stream(const SocketAddress& peer,
                                               const std::array<uint8_t, 16>& cookie,
                                               const std::function<bool(int session)>& welcome) {
  std::optional<int> session;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, held] : sessions_)
      if (crypto::equal_in_constant_time(held, cookie)) session = id;
  }
  // Asked outside the lock: `welcome` takes the sync listener's own.
  if (!session || !welcome(*session)) {
    std::lock_guard lock(mutex_);
    ++refused_.data;
    ++refused_.unauthenticated;
    return std::nullopt;
  }
  if (!admit(peer, Door::data, false, std::nullopt)) return std::nullopt;
  return session;
}

bool PeerAdmission::admit(const SocketAddress& peer, Door door, bool check_session,
                          const std::optional<std::array<uint8_t, 16>>& cookie) {
  std::lock_guard lock(mutex_);
  uint64_t& refused = door == Door::control ? refused_.control : refused_.data;
  if (!filter_.allows(peer)) {
    ++refused;
    return false;
  }
  if (check_session) {
    const bool known =
        cookie && std::any_of(sessions_.begin(), sessions_.end(), [&](const auto& open) {
          return crypto::equal_in_constant_time(open.second, *cookie);
        });
    if (!known) {
      ++refused;
      ++refused_.unauthenticated;
      return false;
    }
  }
  if (max_clients_ == 0) return true;
  std::string host = peer.host();
  constexpr std::string_view mapped = "::ffff:";  // an IPv4 peer on a dual-stack socket
  if (host.starts_with(mapped) && host.find('.') != std::string::npos) host.erase(0, mapped.size());
  if (std::find(hosts_.begin(), hosts_.end(), host) != hosts_.end()) return true;
  if (hosts_.size() >= max_clients_) {
    ++refused;
    ++refused_.over_max_clients;
    return false;
  }
  hosts_.push_back(std::move(host));
  return true;
}

void PeerAdmission::keep_descriptors_for_control(uint64_t open_files_limit) {
#ifndef _WIN32
  open_files_limit_ = open_files_limit;
  // Half of a very small limit, so the data ports keep some too.
  const uint64_t kept = std::min(descriptors_for_control, open_files_limit / 2);
  data_descriptor_ceiling_ = open_files_limit - kept;
#else
  (void)open_files_limit;
#endif
}

uint64_t PeerAdmission::count_over_descriptor_reserve() {
  std::lock_guard lock(mutex_);
  ++refused_.data;
  ++refused_.over_descriptor_reserve;
  ++reserve_unsaid_;
  const auto now = std::chrono::steady_clock::now();
  if (refused_.over_descriptor_reserve > 1 && now - reserve_said_at_ < kReserveLineEvery) return 0;
  reserve_said_at_ = now;
  return std::exchange(reserve_unsaid_, 0);
}

void PeerAdmission::session_opened(int id, const std::array<uint8_t, 16>& cookie) {
  std::lock_guard lock(mutex_);
  sessions_.emplace_back(id, cookie);
}

void PeerAdmission::session_closed(int id) {
  std::lock_guard lock(mutex_);
  std::erase_if(sessions_, [id](const auto& session) { return session.first == id; });
}

void PeerAdmission::count_unauthenticated_control() {
  std::lock_guard lock(mutex_);
  ++refused_.control;
  ++refused_.unauthenticated;
}

void PeerAdmission::next_test() {
  std::lock_guard lock(mutex_);
  hosts_.clear();
}

PeerAdmission::Refusals PeerAdmission::refusals() const {
  std::lock_guard lock(mutex_);
  Refusals out = refused_;
  out.datagrams = refused_datagrams_.load(std::memory_order_relaxed);
  return out;
}

}  // namespace xttcp
