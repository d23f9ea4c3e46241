#include "engine/iperf3/console.hh"

#include <algorithm>
#include <fmt/format.h>

#include "engine/report/iperf2_console.hh"

namespace xttcp::iperf3 {

std::string unit_text(double value, char format) {
  // iperf3's unit_snprintf is iperf 2's, its labels without the plural "s" 3.12's formats add.
  std::string text = iperf2_amount(value, format);
  text.pop_back();
  return text;
}

std::string row_text(const Row& row, char format) {
  const std::string who = row.id ? fmt::format("[{:3d}]", *row.id) : std::string("[SUM]");
  const double seconds = row.end_s - row.start_s;
  const double rate = seconds > 0 ? static_cast<double>(row.bytes) / seconds : 0;
  std::string text =
      fmt::format("{} {:6.2f}-{:<6.2f} sec  {}s  {}s/sec", who, row.start_s, row.end_s,
                  unit_text(static_cast<double>(row.bytes), 'A'), unit_text(rate, format));
  if (row.retransmits && row.cwnd_bytes)
    return text + fmt::format("  {:3d}   {}s       {}", *row.retransmits,
                              unit_text(static_cast<double>(*row.cwnd_bytes), 'A'), row.tail);
  if (row.retransmits)
    return text + fmt::format("  {:3d}             {}", *row.retransmits, row.tail);
  return text + "                  " + row.tail;
}

std::string header(bool retransmits, bool cwnd) {
  std::string text = "[ ID] Interval           Transfer     Bitrate";
  if (retransmits) text += "         Retr";
  if (retransmits && cwnd) text += "  Cwnd";
  return text;
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

void LiveReport::interval(Role, std::chrono::system_clock::time_point, const IntervalSample& sample,
                          bool) {
  // 3.12 leaves out a last interval shorter than a tenth of -i that carried nothing.
  if (sample.seconds < interval_s_ / 10 && sample.bytes == 0) return;
  if (!header_said_) {
    emit_(header(sender_, sender_));
    header_said_ = true;
  }
  const double start = sample.start_s, end = sample.start_s + sample.seconds;
  int64_t retransmits = 0;
  for (const StreamInterval& s : sample.per_stream) {
    Row row;
    row.id = s.key < ids_.size() ? ids_[s.key] : static_cast<int>(s.key);
    row.start_s = start;
    row.end_s = end;
    row.bytes = s.bytes;
    if (sender_) {
      row.retransmits = s.tcp ? s.tcp->retransmits : 0;
      row.cwnd_bytes = s.tcp ? uint64_t{s.tcp->snd_cwnd} * s.tcp->snd_mss : 0;
      retransmits += *row.retransmits;
    }
    emit_(row_text(row, format_));
  }
  if (ids_.size() > 1) {
    Row sum;
    sum.start_s = start;
    sum.end_s = end;
    sum.bytes = sample.bytes;
    if (sender_) sum.retransmits = retransmits;
    emit_(row_text(sum, format_));
    emit_(separator);
  }
  ended_with_separator_ = ids_.size() > 1;
}

std::vector<std::string> summary_lines(const std::vector<SummaryStream>& streams, bool sender,
                                       char format, bool separator_first) {
  std::vector<std::string> lines;
  if (separator_first) lines.push_back(separator);
  lines.push_back(header(sender, false));
  const std::string tail = sender ? "sender" : "receiver";
  uint64_t bytes = 0;
  double seconds = 0;
  int64_t retransmits = 0;
  for (const SummaryStream& s : streams) {
    Row row{s.id,
            0,
            s.seconds,
            s.bytes,
            sender ? std::optional<int64_t>(s.retransmits.value_or(0)) : std::nullopt,
            std::nullopt,
            tail};
    lines.push_back(row_text(row, format));
    bytes += s.bytes;
    seconds = std::max(seconds, s.seconds);
    retransmits += s.retransmits.value_or(0);
  }
  if (streams.size() > 1) {
    Row sum{std::nullopt,
            0,
            seconds,
            bytes,
            sender ? std::optional<int64_t>(retransmits) : std::nullopt,
            std::nullopt,
            tail};
    lines.push_back(row_text(sum, format));
  }
  return lines;
}

std::vector<std::string> client_summary_lines(const std::vector<StreamBothEnds>& streams,
                                              char format, bool separator_first) {
  std::vector<std::string> lines;
  if (separator_first) lines.push_back(separator);
  const bool retransmits =
      std::any_of(streams.begin(), streams.end(), [](const auto& s) { return s.retransmits; });
  lines.push_back(header(retransmits, false));
  Row sent_sum{std::nullopt, 0, 0, 0, std::nullopt, std::nullopt, "sender"};
  Row received_sum{std::nullopt, 0, 0, 0, std::nullopt, std::nullopt, "receiver"};
  if (retransmits) sent_sum.retransmits = 0;
  for (const StreamBothEnds& s : streams) {
    const std::optional<int64_t> retr =
        retransmits ? std::optional<int64_t>(s.retransmits.value_or(0)) : std::nullopt;
    lines.push_back(
        row_text({s.id, 0, s.sent_s, s.sent_bytes, retr, std::nullopt, "sender"}, format));
    lines.push_back(row_text(
        {s.id, 0, s.received_s, s.received_bytes, std::nullopt, std::nullopt, "receiver"}, format));
    sent_sum.bytes += s.sent_bytes;
    sent_sum.end_s = s.sent_s;
    if (retr) *sent_sum.retransmits += *retr;
    received_sum.bytes += s.received_bytes;
    received_sum.end_s = s.received_s;
  }
  if (streams.size() > 1) {
    lines.push_back(row_text(sent_sum, format));
    lines.push_back(row_text(received_sum, format));
  }
  return lines;
}

}  // namespace xttcp::iperf3
