#include "engine/control/sender_evidence.hh"

#include <algorithm>

namespace xttcp {

namespace {

// Keeps at most `limit` entries: the oldest go first.
template <class T>
void keep_recent(std::vector<T>& entries, std::size_t limit) {
  if (entries.size() > limit)
    entries.erase(entries.begin(), entries.begin() + (entries.size() - limit));
}

}  // namespace

const SenderEvidence::Seen* SenderEvidence::find(const std::vector<Seen>& seen,
                                                 const std::string& host) {
  auto it = std::find_if(seen.begin(), seen.end(), [&](const Seen& s) { return s.host == host; });
  return it == seen.end() ? nullptr : &*it;
}

void SenderEvidence::data_connection(uint16_t port, const std::string& host, Clock::time_point at) {
  std::lock_guard lock(mutex_);
  std::vector<Seen>& data = ports_[port].data;
  if (find(data, host) != nullptr) return;  // the first one tells when the host came
  data.push_back({host, at});
  keep_recent(data, hosts_per_port);
}

void SenderEvidence::handed_out(uint16_t port, const std::string& host) {
  std::lock_guard lock(mutex_);
  std::vector<std::string>& to = ports_[port].handed_to;
  if (std::find(to.begin(), to.end(), host) != to.end()) return;
  to.push_back(host);
  keep_recent(to, hosts_per_port);
}

void SenderEvidence::token_counted(uint16_t port, const std::string& host) {
  std::lock_guard lock(mutex_);
  ports_[port].token_from = host;
}

void SenderEvidence::forget_tokens() {
  std::lock_guard lock(mutex_);
  for (auto& [port, record] : ports_) record.token_from.reset();
}

std::optional<SenderEvidence::Clock::time_point> SenderEvidence::data_connection_seen(
    uint16_t port, const std::string& host) const {
  std::lock_guard lock(mutex_);
  auto it = ports_.find(port);
  if (it == ports_.end()) return std::nullopt;
  const Seen* seen = find(it->second.data, host);
  if (seen == nullptr) return std::nullopt;
  return seen->at;
}

bool SenderEvidence::handed_out_to(uint16_t port, const std::string& host) const {
  std::lock_guard lock(mutex_);
  auto it = ports_.find(port);
  if (it == ports_.end()) return false;
  const std::vector<std::string>& to = it->second.handed_to;
  return std::find(to.begin(), to.end(), host) != to.end();
}

bool SenderEvidence::claimed(uint16_t port) const {
  std::lock_guard lock(mutex_);
  auto it = ports_.find(port);
  if (it == ports_.end()) return false;
  const PortRecord& record = it->second;
  return std::any_of(record.handed_to.begin(), record.handed_to.end(),
                     [&](const std::string& host) {
                       return find(record.data, host) != nullptr || record.token_from == host;
                     });
}

}  // namespace xttcp
