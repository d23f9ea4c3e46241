#include "engine/stats/connection_watch.hh"

#include <algorithm>

#include "engine/stats/tcp_info.hh"

namespace xttcp {

uint32_t ConnectionWatch::add(NativeSocket socket) {
  std::lock_guard lock(mutex_);
  if (open_.size() >= capacity_) {
    ++not_watched_;
    return not_watched;
  }
  const ConnectionStats addresses = read_tcp_info(socket);  // a few calls, for 64 at most
  const uint32_t id = next_id_++;
  open_.push_back(Entry{{id, addresses.local, addresses.remote}, socket});
  return id;
}

void ConnectionWatch::remove(uint32_t id) {
  if (id == not_watched) return;
  std::lock_guard lock(mutex_);
  auto it = std::lower_bound(open_.begin(), open_.end(), id,
                             [](const Entry& e, uint32_t wanted) { return e.who.id < wanted; });
  if (it == open_.end() || it->who.id != id) return;
  if (std::optional<TcpSample> last = read_tcp_sample(it->socket)) {
    if (closed_.size() >= capacity_) closed_.erase(closed_.begin());  // no reader for a while
    closed_.push_back(Reading{id, *last, it->who});
  }
  open_.erase(it);
}

std::vector<ConnectionWatch::Reading> ConnectionWatch::read(uint32_t new_from) {
  std::vector<Reading> readings;
  std::lock_guard lock(mutex_);  // held over the reads: no socket closes under them
  readings.reserve(open_.size() + closed_.size());
  for (const Entry& e : open_) {
    std::optional<TcpSample> sample = read_tcp_sample(e.socket);
    if (!sample) continue;
    readings.push_back(Reading{e.who.id, *sample, std::nullopt});
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
