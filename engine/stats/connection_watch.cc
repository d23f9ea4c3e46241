#include "engine/stats/connection_watch.hh"

#include <algorithm>

#include "engine/stats/tcp_info.hh"

namespace xttcp {

ConnectionWatch::ConnectionWatch(uint32_t capacity, bool tallies) : capacity_(capacity) {
  if (!tallies) return;
  tallies_ = std::make_unique<StreamTally[]>(capacity);
  for (uint32_t i = capacity; i > 0; --i) free_tallies_.push_back(&tallies_[i - 1]);
}

uint32_t ConnectionWatch::add(NativeSocket socket, uint32_t slot, StreamTally** tally) {
  if (tally != nullptr) *tally = nullptr;
  std::lock_guard lock(mutex_);
  if (open_.size() >= capacity_) {
    ++not_watched_;
    return not_watched;
  }
  const ConnectionStats addresses = read_tcp_info(socket);  // a few calls, for 64 at most
  const uint32_t id = next_id_++;
  StreamTally* own = nullptr;
  if (!free_tallies_.empty()) {  // one per open entry: never short while open_ has room
    own = free_tallies_.back();
    free_tallies_.pop_back();
    own->reset();
  }
  open_.push_back(Entry{{id, addresses.local, addresses.remote}, socket, slot, own});
  if (tally != nullptr) *tally = own;
  return id;
}

void ConnectionWatch::remove(uint32_t id) {
  if (id == not_watched) return;
  std::lock_guard lock(mutex_);
  auto it = std::lower_bound(open_.begin(), open_.end(), id,
                             [](const Entry& e, uint32_t wanted) { return e.who.id < wanted; });
  if (it == open_.end() || it->who.id != id) return;
  std::optional<TcpSample> last = read_tcp_sample(it->socket);
  // A tally's last counts are kept even when TCP_INFO can no longer be read.
  if (last || it->tally != nullptr) {
    if (closed_.size() >= capacity_) closed_.erase(closed_.begin());  // no reader for a while
    closed_.push_back(Reading{id, it->slot, last.value_or(TcpSample{}),
                              it->tally ? it->tally->read() : StreamTally::Counts{}, it->who});
  }
  if (it->tally != nullptr) free_tallies_.push_back(it->tally);
  open_.erase(it);
}

std::vector<ConnectionWatch::Reading> ConnectionWatch::read(uint32_t new_from) {
  std::vector<Reading> readings;
  std::lock_guard lock(mutex_);  // held over the reads: no socket closes under them
  readings.reserve(open_.size() + closed_.size());
  for (const Entry& e : open_) {
    std::optional<TcpSample> sample = read_tcp_sample(e.socket);
    if (!sample && e.tally == nullptr) continue;  // a tally is read even without TCP_INFO
    readings.push_back(Reading{e.who.id, e.slot, sample.value_or(TcpSample{}),
                               e.tally ? e.tally->read() : StreamTally::Counts{}, std::nullopt});
    if (e.who.id >= new_from) readings.back().who = e.who;
  }
  for (Reading& r : closed_) {
    if (r.id < new_from) r.who.reset();
    readings.push_back(std::move(r));
  }
  closed_.clear();
  std::sort(readings.begin(), readings.end(),
            [](const Reading& a, const Reading& b) { return a.id < b.id; });
  return readings;
}

uint64_t ConnectionWatch::not_watched_count() const {
  std::lock_guard lock(mutex_);
  return not_watched_;
}

namespace {

template <class T>
T grown(T now, T before) {
  return now >= before ? now - before : T{0};
}

}  // namespace

std::vector<ConnectionInterval> interval_figures(
    const std::vector<ConnectionWatch::Reading>& before,
    const std::vector<ConnectionWatch::Reading>& now, Role role) {
  std::vector<ConnectionInterval> out;
  out.reserve(now.size());
  auto earlier = before.begin();  // both in id order
  for (const ConnectionWatch::Reading& r : now) {
    while (earlier != before.end() && earlier->id < r.id) ++earlier;
    const TcpSample from =
        earlier != before.end() && earlier->id == r.id ? earlier->sample : TcpSample{};
    const TcpSample& to = r.sample;
    ConnectionInterval c;
    c.id = r.id;
    c.bytes = role == Role::receiver ? grown(to.bytes_received, from.bytes_received)
                                     : grown(to.bytes_acked, from.bytes_acked);
    c.rtt_us = to.rtt_us;
    c.rttvar_us = to.rttvar_us;
    c.snd_cwnd = to.snd_cwnd;
    c.snd_mss = to.snd_mss;
    c.snd_wnd = to.snd_wnd;
    c.pmtu = to.pmtu;
    c.retransmits = grown(to.total_retrans, from.total_retrans);
    c.delivery_rate_bps = to.delivery_rate_bps;
    c.pacing_rate_bps = to.pacing_rate_bps;
    c.busy_us = grown(to.busy_us, from.busy_us);
    c.rwnd_limited_us = grown(to.rwnd_limited_us, from.rwnd_limited_us);
    c.sndbuf_limited_us = grown(to.sndbuf_limited_us, from.sndbuf_limited_us);
    out.push_back(c);
  }
  return out;
}

}  // namespace xttcp
