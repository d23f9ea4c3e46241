#include "engine/udp/datagram_accounting.hh"

#include <algorithm>
#include <climits>
#include <string>

#include "engine/iperf3/udp_datagram.hh"
#include "engine/udp/datagram_header.hh"
#include "engine/udp/end_marker.hh"

namespace xttcp::udp {

DatagramAccounting::Tracked& DatagramAccounting::tracked(uint32_t flow_id) {
  if (last_ >= flows_.size() || flows_[last_].flow_id != flow_id) {
    if (auto known = index_.find(flow_id); known != index_.end()) {
      last_ = known->second;
    } else if (flows_.size() < limit_) {
      // A new flow: registered once (a lock and an allocation), then counted lock-free.
      UdpFlowCounters& counters = registry_->add(slot_, flow_id);
      flows_.push_back({flow_id, &counters, std::make_unique<SequenceTracker>(counters)});
      last_ = static_cast<uint32_t>(flows_.size() - 1);
      index_.emplace(flow_id, last_);
      if (layout_ == DatagramLayout::iperf2) sources_.push_back(source_);
    } else {
      make_room(flow_id);
    }
  }
  return flows_[last_];
}

// The table is full: a flow hands its counts to the retired record and its place to `flow_id`,
// whose tracker starts from the first sequence it sees (it may have been tracked before). The
// one leaving is one that has not shown itself a flow yet (a spray's invented ids send one
// datagram each) if there is one, else any; of those, the one silent longest. A spray of invented
// ids costs a scan of the table per datagram, no memory. In the iperf2 layout the leaving flow's
// stream ends there, reported with what it had.
DatagramAccounting::Tracked& DatagramAccounting::make_room(uint32_t flow_id) {
  auto leaves_before = [](const Tracked& a, const Tracked& b) {
    const bool a_settled = a.seen >= settled_datagrams, b_settled = b.seen >= settled_datagrams;
    return a_settled != b_settled ? b_settled : a.last_ns < b.last_ns;
  };
  uint32_t oldest = 0;
  for (uint32_t i = 1; i < flows_.size(); ++i)
    if (leaves_before(flows_[i], flows_[oldest])) oldest = i;
  if (!told_full_) {
    told_full_ = true;
    if (registry_->on_table_full)
      registry_->on_table_full(
          "UDP: more flows reached one port than the " + std::to_string(limit_) +
          " it tracks (invented flow ids, or very many senders): one that sent fewer than " +
          std::to_string(settled_datagrams) +
          " datagrams, else the one silent longest, makes room each time, its datagrams "
          "counted as unattributed");
  }
  UdpFlowCounters& retired = retired_record();
  Tracked& place = flows_[oldest];
  if (layout_ == DatagramLayout::iperf2 && !place.ended && place.first_ns != 0) {
    stream_event(place, oldest, StreamEnd::evicted, place.last_ns, true, false);
    flow_ended();
  }
  place.ended = false;  // the flow leaving was announced if it ended; the newcomer has not
  place.first_ns = 0;
  place.seen = 0;
  place.reports = 0;
  place.reported_ns = 0;
  place.brought = 0;
  if (layout_ == DatagramLayout::iperf2) sources_[oldest] = source_;
  index_.erase(place.flow_id);
  registry_->retire(*place.counters, retired);
  ++retired_count_;
  UdpFlowCounters& counters = registry_->add(slot_, flow_id);
  place.flow_id = flow_id;
  place.counters = &counters;
  place.tracker = std::make_unique<SequenceTracker>(counters);
  place.tracker->expect_from_first();
  index_.emplace(flow_id, oldest);
  last_ = oldest;
  return place;
}

UdpFlowCounters& DatagramAccounting::retired_record() { return record(retired_, retired_flow); }

UdpFlowCounters& DatagramAccounting::record(UdpFlowCounters*& cached, uint32_t flow_id) {
  if (cached == nullptr) cached = &registry_->add(slot_, flow_id);
  return *cached;
}

const FlowRules& DatagramAccounting::rules() {
  const FlowAdmission* admission = registry_->admission();
  if (admission == nullptr) return rules_;  // never declared: every flow is the test's
  if (const uint32_t generation = admission->generation(); generation != rules_generation_) {
    rules_ = admission->rules();  // a test started: its senders' declarations
    rules_generation_ = generation;
  }
  return rules_;
}

bool DatagramAccounting::admitted(uint32_t flow_id, uint16_t token) {
  const FlowRules& now = rules();
  return !now.declared || (is_sender_flow_id(flow_id) && now.admits(flow_id, token));
}

bool DatagramAccounting::count_headerless(std::size_t length) {
  count_datagram(record(headerless_, headerless_flow), static_cast<uint32_t>(length));
  return false;
}

void DatagramAccounting::announce() {
  for (; announced_ < ended_; ++announced_)
    if (on_flow_end_ != nullptr && *on_flow_end_) (*on_flow_end_)();
}

// A marker of a flow whose data was native raises its expected count; one whose data had no
// header (compat) only ends it: its datagrams are counted together with every compat sender's.
// Without declarations (the Windows dialect's count mode) a marker ends a flow only if the flow
// brought this socket data, or names the count this receiver was given (-n): a flow whose data
// was all lost (an MTU black hole) still ends, lost whole, while a marker under an invented id
// alone ends nothing.
bool DatagramAccounting::ends_a_flow(const EndMarker& marker) const {
  if (rules_.declared) return true;  // admitted: a flow its sender declared, data lost or not
  if (compat_end_after_ > 0 && marker.sent == compat_end_after_) return true;
  if (marker.compat_data) return compat_ != nullptr;
  const auto known = index_.find(marker.flow_id);
  return known != index_.end() &&
         flows_[known->second].counters->datagrams.load(std::memory_order_relaxed) > 0;
}

void DatagramAccounting::on_end_marker(const unsigned char* data, std::size_t available) {
  EndMarker marker;
  if (!decode_end_marker(data, available, marker)) return;  // cut short: not ours to read
  if (!admitted(marker.flow_id, marker.token) ||
      !ends_a_flow(marker)) {  // a flow nobody of the test set up
    count_datagram(record(foreign_markers_, foreign_markers_flow),
                   static_cast<uint32_t>(end_marker_size));
    return;
  }
  if (marker.compat_data) {
    if (compat_end_after_ > 0) {  // one compat flow here, perhaps ended by its count already
      if (!compat_ended_) {
        compat_ended_ = true;
        flow_ended();
      }
      return;
    }
    if (std::find(ended_compat_.begin(), ended_compat_.end(), marker.flow_id) !=
        ended_compat_.end())
      return;
    if (ended_compat_.size() >= limit_) return;  // invented ids: a bound, like the flows'
    ended_compat_.push_back(marker.flow_id);
    flow_ended();
    return;
  }
  if (!is_sender_flow_id(marker.flow_id) || marker.flow_id == compat_flow)
    return;  // not a sender's
  Tracked& flow = tracked(marker.flow_id);
  flow.tracker->on_end(marker.sent);
  if (flow.ended) return;
  flow.ended = true;
  flow_ended();
}

void DatagramAccounting::count_unsequenced(std::size_t length) {
  if (!compat_) compat_ = std::make_unique<SequenceTracker>(registry_->add(slot_, compat_flow));
  compat_->on_compat_datagram(static_cast<uint32_t>(length));
}

// iperf 2 numbers a flow's datagrams from 1 and ends it with the negated next number (the FIN,
// counted as a datagram, as iperf 2's server counts it): number n is the tracker's n - 1. A
// repeated FIN is answered again within the report budget and counted no more. Every datagram of
// an iperf 2 client carries the head: one without it is no stream's.
bool DatagramAccounting::on_iperf2(const unsigned char* data, std::size_t available,
                                   std::size_t length, uint64_t now_ns) {
  iperf2::UdpHead head;
  if (!iperf2::decode_head(data, available, head) || head.sequence == 0 ||
      head.sequence == INT64_MIN)
    return count_headerless(length);
  Tracked& flow = tracked(source_flow_);
  if (flow.first_ns == 0) {
    flow.first_ns = now_ns;
    began_ = source_flow_;
    if (on_flow_start_ != nullptr && *on_flow_start_) (*on_flow_start_)();
  }
  flow.last_ns = now_ns;
  flow.steady_ns = steady_ns_;
  flow.brought += length;
  if (flow.seen < settled_datagrams) ++flow.seen;
  const bool is_fin = head.sequence < 0;
  const auto number = static_cast<uint64_t>(is_fin ? -head.sequence : head.sequence);
  if (!flow.ended) {
    const uint64_t send_ns =
        uint64_t{head.tv_sec} * 1'000'000'000u + uint64_t{head.tv_usec} * 1000u;
    flow.tracker->on_datagram(static_cast<uint32_t>(number - 1), send_ns, now_ns,
                              static_cast<uint32_t>(length));
  }
  if (!is_fin) return true;
  const bool first = !flow.ended;
  if (first) {
    flow.ended = true;
    flow_ended();
  }
  const bool answer = report_budget(flow);
  if (first || answer) stream_event(flow, last_, StreamEnd::fin, now_ns, first, answer);
  return true;
}

bool DatagramAccounting::report_budget(Tracked& flow) {
  if (flow.reports >= iperf2_reports_per_stream) return false;
  if (flow.reports > 0 && steady_ns_ < flow.reported_ns + iperf2_report_spacing_ns) return false;
  if (uint64_t{flow.reports + 1} * iperf2::server_report_size > flow.brought) return false;
  ++flow.reports;
  flow.reported_ns = steady_ns_;
  return true;
}

void DatagramAccounting::stream_event(Tracked& flow, std::size_t place, StreamEnd how,
                                      uint64_t end_ns, bool ended_now, bool answer) {
  const UdpFlowSnapshot counts = read(*flow.counters);
  const uint64_t seconds_ns = end_ns > flow.first_ns ? end_ns - flow.first_ns : 0;
  Iperf2StreamEvent event;
  iperf2::ServerReport& report = event.report;
  report.bytes = counts.bytes;
  report.stop_sec = static_cast<uint32_t>(seconds_ns / 1'000'000'000u);
  report.stop_usec = static_cast<uint32_t>(seconds_ns % 1'000'000'000u / 1000u);
  report.datagrams = counts.expected;
  report.lost = counts.lost();
  report.out_of_order = counts.reordered;
  report.jitter_sec = static_cast<uint32_t>(counts.jitter_ns / 1'000'000'000u);
  report.jitter_usec = static_cast<uint32_t>(counts.jitter_ns % 1'000'000'000u / 1000u);
  event.flow_id = flow.flow_id;
  event.source = place < sources_.size() ? sources_[place] : source_;
  event.how = how;
  event.ended_now = ended_now;
  event.answer = answer;
  events_.push_back(event);
}

void DatagramAccounting::end_silent_streams(uint64_t steady_ns) {
  if (layout_ != DatagramLayout::iperf2) return;
  for (std::size_t i = 0; i < flows_.size(); ++i) {
    Tracked& flow = flows_[i];
    if (flow.ended || flow.first_ns == 0 || steady_ns < flow.steady_ns + iperf2_silence_ns)
      continue;
    flow.ended = true;
    flow_ended();
    stream_event(flow, i, StreamEnd::silent, flow.last_ns, true, false);
  }
}

bool DatagramAccounting::on_datagram(const unsigned char* data, std::size_t available,
                                     std::size_t length, uint64_t now_ns) {
  if (layout_ == DatagramLayout::iperf2) return on_iperf2(data, available, length, now_ns);
  if (layout_ == DatagramLayout::iperf3 || layout_ == DatagramLayout::iperf3_wide)
    return on_iperf3(data, available, length, now_ns);
  DatagramHeader header;
  if (decode(data, available, header)) {
    if (has_end_flag(data)) {
      on_end_marker(data, available);
      return false;
    }
    if (!admitted(header.flow_id, header.token)) {  // not the test's: counted apart, no data of its
      count_datagram(record(foreign_, foreign_flow), static_cast<uint32_t>(length));
      return false;
    }
    if (!is_sender_flow_id(header.flow_id) || header.flow_id == compat_flow) {  // never a sender's
      count_datagram(retired_record(), static_cast<uint32_t>(length));
      return true;
    }
    Tracked& flow = tracked(header.flow_id);
    flow.last_ns = now_ns;
    if (flow.seen < settled_datagrams) ++flow.seen;
    flow.tracker->on_datagram(header.sequence, header.send_time_ns, now_ns,
                              static_cast<uint32_t>(length));
    return true;
  }
  // Every datagram of a declared flow carries the header: one without it is no flow's.
  if (rules().declared) return count_headerless(length);
  count_unsequenced(length);
  if (compat_end_after_ > 0 && !compat_ended_ && ++compat_seen_ >= compat_end_after_) {
    compat_ended_ = true;
    flow_ended();
  }
  return true;
}

// iperf3 numbers a stream's datagrams from 1; the tracker's flows start at 0, so its `expected`
// is iperf3's highest sequence seen (the receiver's "packets").
bool DatagramAccounting::on_iperf3(const unsigned char* data, std::size_t available,
                                   std::size_t length, uint64_t now_ns) {
  iperf3::UdpHead head;
  if (!iperf3::decode_head(data, available, layout_ == DatagramLayout::iperf3_wide, head))
    return count_headerless(length);
  Tracked& flow = tracked(slot_);
  flow.last_ns = now_ns;
  const uint64_t send_ns = uint64_t{head.seconds} * 1'000'000'000 + head.microseconds * 1000ull;
  flow.tracker->on_datagram(static_cast<uint32_t>(head.sequence - 1), send_ns, now_ns,
                            static_cast<uint32_t>(length));
  return true;
}

}  // namespace xttcp::udp
