#include "engine/report/iperf2_streams.hh"

#include <algorithm>
#include <tuple>

namespace xttcp {

uint32_t Iperf2StreamNumbers::number(uint64_t key) {
  if (std::optional<uint32_t> known = find(key)) return *known;
  keys_.push_back(key);
  return count();
}

std::optional<uint32_t> Iperf2StreamNumbers::find(uint64_t key) const {
  const auto it = std::find(keys_.begin(), keys_.end(), key);
  if (it == keys_.end()) return std::nullopt;
  return static_cast<uint32_t>(it - keys_.begin() + 1);
}

Iperf2Endpoint iperf2_endpoint(const std::string& text, bool hide) {
  Iperf2Endpoint e{text, "0"};
  const std::size_t colon = text.rfind(':');
  if (colon != std::string::npos) {
    e.host = text.substr(0, colon);
    e.port = text.substr(colon + 1);
  }
  if (e.host.starts_with('[') && e.host.ends_with(']'))
    e.host = e.host.substr(1, e.host.size() - 2);
  if (hide) e.host = e.host.find(':') != std::string::npos ? "x:x:x:x" : "x.x.x.x";
  return e;
}

namespace {

Iperf2StreamNumbers interval_numbers(const Result& r) {
  Iperf2StreamNumbers numbers;
  for (const IntervalSample& sample : r.intervals)
    for (const StreamInterval& s : sample.per_stream) numbers.number(s.key);
  return numbers;
}

}  // namespace

std::vector<Iperf2Stream> iperf2_streams(const Result& r) {
  const Iperf2StreamNumbers numbers = interval_numbers(r);
  // A UDP receiver's keys are its flows' ids, which say nothing of when they began.
  const bool keys_in_order = r.role == Role::sender || r.spec.workload.protocol == Protocol::tcp;
  std::vector<std::size_t> order(r.connections.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto rank = [&](std::size_t i) {
    const std::optional<uint64_t>& key = r.connections[i].stream;
    const std::optional<uint32_t> number = key ? numbers.find(*key) : std::nullopt;
    if (number) return std::tuple<int, uint64_t>{0, *number};
    if (key && keys_in_order) return std::tuple<int, uint64_t>{1, *key};
    return std::tuple<int, uint64_t>{2, 0};  // stable: in the order the run listed them
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });

  std::vector<Iperf2Stream> streams;
  // A sender runs one thread per stream (-P): thread k's calls are those of the stream in slot k.
  const bool one_thread_each = r.role == Role::sender && r.threads.size() == r.connections.size();
  uint32_t next_unnumbered = numbers.count() + 1;
  for (std::size_t i : order) {
    const ConnectionStats& c = r.connections[i];
    Iperf2Stream s;
    const std::optional<uint32_t> number = c.stream ? numbers.find(*c.stream) : std::nullopt;
    s.id = number ? *number : next_unnumbered++;
    s.local = iperf2_endpoint(c.local, r.spec.iperf2.hide_ips);
    s.remote = iperf2_endpoint(c.remote, r.spec.iperf2.hide_ips);
    s.bytes = c.bytes;
    if (one_thread_each) {
      const uint64_t slot = c.stream.value_or(i);
      for (const ThreadResult& t : r.threads)
        if (t.index == slot) s.calls = t.operations;
    }
    s.tcp = c;
    s.udp = c.iperf2_udp;
    streams.push_back(std::move(s));
  }
  return streams;
}

const Iperf2Stream* iperf2_stream_by_id(const std::vector<Iperf2Stream>& streams, uint32_t id) {
  for (const Iperf2Stream& s : streams)
    if (s.id == id) return &s;
  return nullptr;
}

Iperf2Interval iperf2_interval(const IntervalSample& sample, double from, double to,
                               Iperf2StreamNumbers& numbers) {
  Iperf2Interval i{from,
                   to,
                   sample.bytes,
                   sample.operations,
                   sample.datagrams,
                   sample.lost,
                   static_cast<double>(sample.jitter_ns) / 1e6,
                   {}};
  for (const StreamInterval& s : sample.per_stream) i.streams.push_back({numbers.number(s.key), s});
  std::sort(i.streams.begin(), i.streams.end(),
            [](const Iperf2StreamShare& a, const Iperf2StreamShare& b) { return a.id < b.id; });
  return i;
}

std::vector<Iperf2Interval> iperf2_intervals(const Result& r) {
  std::vector<Iperf2Interval> out;
  Iperf2StreamNumbers numbers = interval_numbers(r);
  const double step = r.spec.output.interval_s;
  for (std::size_t k = 0; k < r.intervals.size(); ++k) {
    const IntervalSample& sample = r.intervals[k];
    const double from = static_cast<double>(k) * step;
    const double to = std::min(from + step, r.duration_s);
    if (sample.seconds <= 0 || to <= from) continue;
    out.push_back(iperf2_interval(sample, from, to, numbers));
  }
  return out;
}

}  // namespace xttcp
