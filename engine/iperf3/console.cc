#include "engine/iperf3/console.hh"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>

#include "engine/report/iperf2_console.hh"

namespace xttcp::iperf3 {

std::string unit_text(double value, char format) {
  // iperf3's unit_snprintf is iperf 2's, its labels without the plural "s" 3.12's formats add.
  std::string text = iperf2_amount(value, format);
  text.pop_back();
  return text;
}

namespace {

// The columns every row starts with: who (and with --bidir its role), when, how much, how fast.
std::string lead(std::optional<int> id, const std::string& role, double start_s, double end_s,
                 uint64_t bytes, char format) {
  const std::string who = id ? fmt::format("[{:3d}]", *id) : std::string("[SUM]");
  const double span_s = end_s - start_s;
  const double rate = span_s > 0 ? static_cast<double>(bytes) / span_s : 0;
  return fmt::format("{}{} {:6.2f}-{:<6.2f} sec  {}s  {}s/sec", who, role, start_s, end_s,
                     unit_text(static_cast<double>(bytes), 'A'), unit_text(rate, format));
}

double percent(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0;
}

std::string out_of_order_line(const std::string& role, double end_s, int64_t count) {
  return fmt::format("[SUM]{} {:4.1f}-{:4.1f} sec  {} datagrams received out-of-order", role, 0.0,
                     end_s, count);
}

// The rows' tail: which end's figures they are.
const char* tail_of(bool sender) { return sender ? "sender" : "receiver"; }
// An interval row's tail: "(omitted)" in the omit period (-O), as 3.12 marks it.
std::string omitted_tail(const IntervalSample& sample) { return sample.omitted ? "(omitted)" : ""; }

bool is_bidir(const auto& groups) {
  return std::any_of(groups.begin(), groups.end(), [](const auto& g) { return !g.role.empty(); });
}

}  // namespace

std::string row_text(const Row& row, char format) {
  std::string text = lead(row.id, row.role, row.start_s, row.end_s, row.bytes, format);
  if (row.retransmits && row.cwnd_bytes)
    return text + fmt::format("  {:3d}   {}s       {}", *row.retransmits,
                              unit_text(static_cast<double>(*row.cwnd_bytes), 'A'), row.tail);
  if (row.retransmits)
    return text + fmt::format("  {:3d}             {}", *row.retransmits, row.tail);
  return text + "                  " + row.tail;
}

std::string header(bool retransmits, bool cwnd, bool bidir) {
  std::string text = bidir ? "[ ID][Role] Interval           Transfer     Bitrate"
                           : "[ ID] Interval           Transfer     Bitrate";
  if (retransmits) text += "         Retr";
  if (retransmits && cwnd) text += "  Cwnd";
  return text;
}

std::string udp_row_text(const UdpRow& row, char format) {
  const std::string text = lead(row.id, row.role, row.start_s, row.end_s, row.bytes, format);
  // 3.12 pads a --bidir sender's count to the Jitter column its header has.
  if (row.datagrams_only)
    return text +
           fmt::format(" {} {}  {}", row.role.empty() ? "" : "          ", row.total, row.tail);
  // 3.12 prints the lost percent with %.2g: 0 as "0", 0.5 as "0.5", 100 as "1e+02".
  char lost[32];
  std::snprintf(lost, sizeof lost, "%.2g", row.lost_percent.value_or(percent(row.lost, row.total)));
  return text + fmt::format("  {:5.3f} ms  {}/{} ({}%)  {}", row.jitter_ms, row.lost, row.total,
                            lost, row.tail);
}

std::string udp_header(bool sender_intervals, bool bidir) {
  return std::string(bidir ? "[ ID][Role]" : "[ ID]") + " Interval           Transfer     " +
         "Bitrate         " +
         (sender_intervals ? "Total Datagrams" : "Jitter    Lost/Total Datagrams");
}

std::vector<std::string> banner_lines(uint16_t port, uint32_t test_number) {
  return {banner_rule, fmt::format("Server listening on {} (test #{})", port, test_number),
          banner_rule};
}

std::string accepted_line(const std::string& host, uint16_t port) {
  return fmt::format("Accepted connection from {}, port {}", host, port);
}

std::string connected_line(int id, const std::string& local_host, uint16_t local_port,
                           const std::string& remote_host, uint16_t remote_port) {
  return fmt::format("[{:3d}] local {} port {} connected to {} port {}", id, local_host, local_port,
                     remote_host, remote_port);
}

int LiveReport::id_of(const StreamGroup& group, uint64_t key) const {
  const std::size_t index = group.first + key;
  return index < ids_.size() ? ids_[index] : static_cast<int>(key);
}

void LiveReport::intervals(const std::vector<IntervalSample>& by_group, bool udp) {
  // 3.12 leaves out a last interval shorter than a tenth of -i that carried nothing.
  const bool carried = std::any_of(by_group.begin(), by_group.end(), [&](const auto& s) {
    return s.seconds >= interval_s_ / 10 || s.bytes > 0;
  });
  if (!carried || by_group.size() != groups_.size()) return;
  const bool bidir = is_bidir(groups_);
  const bool sending = !groups_.empty() && groups_.front().sending;
  if (!header_said_) {
    // TCP --bidir: 3.12 knows retransmits for both ends' sends, and says so in one header.
    emit_(udp ? udp_header(sending && !bidir, bidir)
              : header(sending || bidir, sending || bidir, bidir));
    header_said_ = true;
  }
  bool several = false;
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    if (udp)
      udp_rows(groups_[g], by_group[g]);
    else
      tcp_rows(groups_[g], by_group[g]);
    several = several || groups_[g].count > 1;
  }
  if (several) emit_(separator);
  ended_with_separator_ = several;
}

void LiveReport::udp_rows(const StreamGroup& group, const IntervalSample& sample) {
  const double start = sample.start_s, end = sample.start_s + sample.seconds;
  const bool sender = group.sending;
  const std::string tail = omitted_tail(sample);
  UdpRow sum{std::nullopt, start, end, sample.bytes, sender};
  sum.role = group.role;
  sum.tail = tail;
  double jitter_ms = 0;
  for (const StreamInterval& s : sample.per_stream) {
    UdpRow row{id_of(group, s.key), start, end, s.bytes, sender};
    row.role = group.role;
    row.tail = tail;
    row.jitter_ms = static_cast<double>(s.jitter_ns) / 1e6;
    row.lost = sender ? 0 : static_cast<int64_t>(s.lost);
    row.total = static_cast<int64_t>(sender ? s.datagrams : s.lost + s.datagrams);
    emit_(udp_row_text(row, format_));
    jitter_ms += row.jitter_ms;
    sum.lost += row.lost;
    sum.total += row.total;
  }
  if (group.count <= 1 || sample.per_stream.empty()) return;     // empty: it measured none
  sum.jitter_ms = jitter_ms / static_cast<double>(group.count);  // 3.12: over all streams
  emit_(udp_row_text(sum, format_));
}

void LiveReport::tcp_rows(const StreamGroup& group, const IntervalSample& sample) {
  const double start = sample.start_s, end = sample.start_s + sample.seconds;
  int64_t retransmits = 0;
  const std::string tail = omitted_tail(sample);
  for (const StreamInterval& s : sample.per_stream) {
    Row row;
    row.id = id_of(group, s.key);
    row.role = group.role;
    row.tail = tail;
    row.start_s = start;
    row.end_s = end;
    row.bytes = s.bytes;
    if (group.sending) {
      row.retransmits = s.tcp ? s.tcp->retransmits : 0;
      row.cwnd_bytes = s.tcp ? uint64_t{s.tcp->snd_cwnd} * s.tcp->snd_mss : 0;
      retransmits += *row.retransmits;
    }
    emit_(row_text(row, format_));
  }
  if (group.count <= 1 || sample.per_stream.empty()) return;  // empty: it measured none
  Row sum;
  sum.role = group.role;
  sum.tail = tail;
  sum.start_s = start;
  sum.end_s = end;
  sum.bytes = sample.bytes;
  if (group.sending) sum.retransmits = retransmits;
  emit_(row_text(sum, format_));
}

std::vector<std::string> summary_lines(const std::vector<SummaryGroup<SummaryStream>>& groups,
                                       char format, bool separator_first) {
  std::vector<std::string> lines;
  if (separator_first) lines.push_back(separator);
  const bool any_sender =
      std::any_of(groups.begin(), groups.end(), [](const auto& g) { return g.sender; });
  lines.push_back(header(any_sender, false, is_bidir(groups)));
  for (const SummaryGroup<SummaryStream>& group : groups) {
    const bool sender = group.sender;
    const std::string tail = tail_of(sender);
    Row sum{std::nullopt, 0, 0, 0, std::nullopt, std::nullopt, tail, group.role};
    if (sender) sum.retransmits = 0;
    for (const SummaryStream& s : group.streams) {
      Row row{s.id,
              0,
              s.seconds,
              s.bytes,
              sender ? std::optional<int64_t>(s.retransmits.value_or(0)) : std::nullopt,
              std::nullopt,
              tail,
              group.role};
      lines.push_back(row_text(row, format));
      sum.bytes += s.bytes;
      sum.end_s = std::max(sum.end_s, s.seconds);
      if (sender) *sum.retransmits += s.retransmits.value_or(0);
    }
    if (group.streams.size() > 1) lines.push_back(row_text(sum, format));
  }
  return lines;
}

std::vector<std::string> client_summary_lines(
    const std::vector<SummaryGroup<StreamBothEnds>>& groups, char format, bool separator_first) {
  std::vector<std::string> lines;
  if (separator_first) lines.push_back(separator);
  bool retransmits = false;
  for (const auto& group : groups)
    for (const StreamBothEnds& s : group.streams) retransmits = retransmits || s.retransmits;
  lines.push_back(header(retransmits, false, is_bidir(groups)));
  for (const SummaryGroup<StreamBothEnds>& group : groups) {
    Row sent_sum{std::nullopt, 0, 0, 0, std::nullopt, std::nullopt, "sender", group.role};
    Row received_sum{std::nullopt, 0, 0, 0, std::nullopt, std::nullopt, "receiver", group.role};
    if (retransmits) sent_sum.retransmits = 0;
    for (const StreamBothEnds& s : group.streams) {
      const std::optional<int64_t> retr =
          retransmits ? std::optional<int64_t>(s.retransmits.value_or(0)) : std::nullopt;
      lines.push_back(row_text(
          {s.id, 0, s.sent_s, s.sent_bytes, retr, std::nullopt, "sender", group.role}, format));
      lines.push_back(row_text({s.id, 0, s.received_s, s.received_bytes, std::nullopt, std::nullopt,
                                "receiver", group.role},
                               format));
      sent_sum.bytes += s.sent_bytes;
      sent_sum.end_s = s.sent_s;
      if (retr) *sent_sum.retransmits += *retr;
      received_sum.bytes += s.received_bytes;
      received_sum.end_s = s.received_s;
    }
    if (group.streams.size() > 1) {
      lines.push_back(row_text(sent_sum, format));
      lines.push_back(row_text(received_sum, format));
    }
  }
  return lines;
}

std::vector<std::string> udp_summary_lines(
    const std::vector<SummaryGroup<UdpSummaryStream>>& groups, char format, bool separator_first) {
  std::vector<std::string> lines;
  if (separator_first) lines.push_back(separator);
  lines.push_back(udp_header(false, is_bidir(groups)));
  // As 3.12's, every row takes the test's first stream's times.
  double window_s = 0;
  for (const auto& group : groups)
    if (!group.streams.empty()) {
      window_s = group.streams.front().seconds;
      break;
    }
  for (const SummaryGroup<UdpSummaryStream>& group : groups) {
    if (group.streams.empty()) continue;
    const bool sender = group.sender;
    const std::string tail = tail_of(sender);
    UdpRow sum{std::nullopt, 0, window_s, 0};
    sum.tail = tail;
    sum.role = group.role;
    double jitter_ms = 0;
    for (const UdpSummaryStream& s : group.streams) {
      UdpRow row{s.id, 0, window_s, s.bytes};
      row.total = s.packets;
      row.tail = tail;
      row.role = group.role;
      if (!sender) {
        row.jitter_ms = s.jitter_ms;
        row.lost = s.lost;
      }
      if (s.out_of_order > 0)
        lines.push_back(out_of_order_line(group.role, window_s, s.out_of_order));
      lines.push_back(udp_row_text(row, format));
      sum.bytes += row.bytes;
      sum.lost += row.lost;
      sum.total += row.total;
      jitter_ms += row.jitter_ms;
    }
    if (group.streams.size() > 1) {
      sum.jitter_ms = jitter_ms / static_cast<double>(group.streams.size());
      lines.push_back(udp_row_text(sum, format));
    }
  }
  return lines;
}

std::vector<std::string> client_udp_summary_lines(
    const std::vector<SummaryGroup<UdpStreamBothEnds>>& groups, char format, bool separator_first) {
  std::vector<std::string> lines;
  if (separator_first) lines.push_back(separator);
  lines.push_back(udp_header(false, is_bidir(groups)));
  // As 3.12's, every row takes the test's first stream's times.
  const UdpStreamBothEnds* first = nullptr;
  for (const auto& group : groups)
    if (!first && !group.streams.empty()) first = &group.streams.front();
  if (!first) return lines;
  const double sent_s = first->sent_s, received_s = first->received_s;
  for (const SummaryGroup<UdpStreamBothEnds>& group : groups) {
    UdpRow sent_sum{std::nullopt, 0, sent_s, 0};
    sent_sum.tail = "sender";
    sent_sum.role = group.role;
    UdpRow received_sum{std::nullopt, 0, received_s, 0};
    received_sum.tail = "receiver";
    received_sum.role = group.role;
    double jitter_ms = 0;
    int64_t packets = 0;  // the senders' counts where known: what 3.12's [SUM] lost % is over
    for (const UdpStreamBothEnds& s : group.streams) {
      UdpRow sent{s.id, 0, sent_s, s.sent_bytes};
      sent.total = s.sent_packets;
      sent.tail = "sender";
      sent.role = group.role;
      lines.push_back(udp_row_text(sent, format));
      if (s.out_of_order > 0)
        lines.push_back(out_of_order_line(group.role, sent_s, s.out_of_order));
      UdpRow received{s.id, 0, received_s, s.received_bytes};
      received.jitter_ms = s.jitter_ms;
      received.lost = s.lost;
      received.total = s.received_packets;
      received.tail = "receiver";
      received.role = group.role;
      lines.push_back(udp_row_text(received, format));
      sent_sum.bytes += s.sent_bytes;
      sent_sum.total += s.sent_packets;
      received_sum.bytes += s.received_bytes;
      received_sum.lost += s.lost;
      received_sum.total += s.received_packets;
      jitter_ms += s.jitter_ms;
      packets += s.sent_packets ? s.sent_packets : s.received_packets;
    }
    if (group.streams.size() > 1) {
      received_sum.jitter_ms = jitter_ms / static_cast<double>(group.streams.size());
      received_sum.lost_percent = percent(received_sum.lost, packets);
      lines.push_back(udp_row_text(sent_sum, format));
      lines.push_back(udp_row_text(received_sum, format));
    }
  }
  return lines;
}

}  // namespace xttcp::iperf3
