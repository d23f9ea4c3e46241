#include "engine/net/peer_admission.hh"

#include <algorithm>

namespace xttcp {

PeerAdmission::PeerAdmission(AddressFilter filter, uint32_t max_clients)
    : filter_(std::move(filter)), max_clients_(max_clients) {}

bool PeerAdmission::admit_connection(const SocketAddress& peer, Door door) {
  std::lock_guard lock(mutex_);
  uint64_t& refused = door == Door::control ? refused_.control : refused_.data;
  if (!filter_.allows(peer)) {
    ++refused;
    return false;
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
