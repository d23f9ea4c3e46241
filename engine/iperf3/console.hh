// iperf3 3.12's console lines (tests/reference/iperf3-3.12/README.md 8; its src/iperf_locale.c
// formats and src/units.c numbers): the server's banner and connection lines, the interval rows
// of each stream and their [SUM], and the summary. Pure: figures in, lines out.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/iperf3/directions.hh"
#include "engine/iperf3/paired_intervals.hh"
#include "engine/report/interval_sink.hh"

namespace xttcp::iperf3 {

// A number as iperf3's unit_snprintf writes it, 4 places then the unit: `format` 'a' adaptive
// bits (1000-based), 'A' adaptive bytes (1024-based), or one of k m g t / K M G T; a value in
// bytes ("36.9 Gbit" for 4.6e9 bytes/s in 'a'). The caller appends "s" or "s/sec".
std::string unit_text(double bytes, char format);

inline constexpr const char* separator = "- - - - - - - - - - - - - - - - - - - - - - - - -";
inline constexpr const char* banner_rule =
    "-----------------------------------------------------------";

// One row of a stream (its socket number, as 3.12 prints) or of [SUM] (id nullopt).
struct Row {
  std::optional<int> id;  // nullopt: [SUM]
  double start_s = 0, end_s = 0;
  uint64_t bytes = 0;
  std::optional<int64_t> retransmits;  // a TCP sender's: the Retr column
  std::optional<uint64_t> cwnd_bytes;  // a TCP sender's intervals: the Cwnd column
  std::string tail;                    // "", "sender", "receiver" or "(omitted)"
  std::string role = "";               // --bidir: "[TX-C]" ... after the id (StreamGroup)
};
std::string row_text(const Row& row, char format);

// The header over rows with (or without) Retr and Cwnd; `bidir`: with the [Role] column.
std::string header(bool retransmits, bool cwnd, bool bidir = false);

// The server's lines before a test: the banner, and once the client is in, its control peer.
std::vector<std::string> banner_lines(uint16_t port, uint32_t test_number);
std::string accepted_line(const std::string& host, uint16_t port);
// A stream's connection, as both ends print it.
std::string connected_line(int id, const std::string& local_host, uint16_t local_port,
                           const std::string& remote_host, uint16_t remote_port);

// A UDP row: a sender's interval (the Total Datagrams column alone), or jitter and lost/total
// (a receiver's interval, and every summary row).
struct UdpRow {
  std::optional<int> id;  // nullopt: [SUM]
  double start_s = 0, end_s = 0;
  uint64_t bytes = 0;
  bool datagrams_only = false;  // a sender's interval: `total` is its datagrams sent
  double jitter_ms = 0;
  int64_t lost = 0, total = 0;
  std::optional<double> lost_percent;  // nullopt: lost/total (3.12's [SUM] divides otherwise)
  std::string tail;                    // "", "sender", "receiver" or "(omitted)"
  std::string role = "";               // --bidir: "[TX-C]" ... after the id (StreamGroup)
};
std::string udp_row_text(const UdpRow& row, char format);
// The header over a UDP sender's intervals (Total Datagrams), or over any other UDP rows (and
// over every UDP row of --bidir, with the [Role] column).
std::string udp_header(bool sender_intervals, bool bidir = false);

// Prints each interval's rows as it ends (the interval header first), group by group (--bidir:
// each row with its group's role): one per stream in slot order, then [SUM] when a group has more
// than one stream, and then a separator. Receiver rows have no Retr/Cwnd; a TCP sender's have
// both. UDP (`udp`): a sender's rows show each stream's datagrams; a receiver's its jitter
// (jitter_ns) and lost/total, total being lost + datagrams (3.12's change in the highest sequence
// number); [SUM]'s jitter is the streams' mean.
class LiveReport final : public GroupIntervals {
 public:
  // `ids`: each stream's socket number, in stream order; `groups`: stream_groups(); `emit`:
  // where a line goes.
  LiveReport(std::vector<int> ids, std::vector<StreamGroup> groups, char format, double interval_s,
             std::function<void(const std::string&)> emit)
      : ids_(std::move(ids)),
        groups_(std::move(groups)),
        format_(format),
        interval_s_(interval_s),
        emit_(std::move(emit)) {}
  // The last line printed was a separator (the [SUM] of several streams ends with one).
  bool ended_with_separator() const { return ended_with_separator_; }
  void intervals(const std::vector<IntervalSample>& by_group, bool udp) override;

 private:
  void udp_rows(const StreamGroup& group, const IntervalSample& sample);
  void tcp_rows(const StreamGroup& group, const IntervalSample& sample);
  int id_of(const StreamGroup& group, uint64_t key) const;

  std::vector<int> ids_;
  std::vector<StreamGroup> groups_;
  char format_;
  double interval_s_;
  std::function<void(const std::string&)> emit_;
  bool header_said_ = false;
  bool ended_with_separator_ = false;
};

// A summary's rows of one group of streams (directions.hh): its direction (this end sends on
// them) and its role column (--bidir), its streams in slot order.
template <typename Stream>
struct SummaryGroup {
  bool sender = true;
  std::string role;
  std::vector<Stream> streams;
};

// The summary: a separator when `separator_first` (not after intervals of several streams, whose
// last [SUM] ended with one), the header, then group by group one row per stream of this end's
// direction ("sender" or "receiver"), then [SUM] when there is more than one.
struct SummaryStream {
  int id = 0;
  uint64_t bytes = 0;
  double seconds = 0;
  std::optional<int64_t> retransmits;  // a TCP sender's
};
std::vector<std::string> summary_lines(const std::vector<SummaryGroup<SummaryStream>>& groups,
                                       char format, bool separator_first);

// The client's summary, group by group: both directions of each stream, its sender's row (from
// whichever end sent) then its receiver's, then [SUM] of each when there is more than one
// stream. As 3.12's, the [SUM] rows take the last stream's times.
struct StreamBothEnds {
  int id = 0;
  uint64_t sent_bytes = 0;
  double sent_s = 0;
  std::optional<int64_t> retransmits;  // the sender's, when it knows them (TCP_INFO)
  uint64_t received_bytes = 0;
  double received_s = 0;
};
std::vector<std::string> client_summary_lines(
    const std::vector<SummaryGroup<StreamBothEnds>>& groups, char format, bool separator_first);

// UDP summaries. As 3.12's, every row takes the first stream's times, a sender's row shows
// 0.000 ms and 0 lost of the datagrams sent, and [SUM]'s jitter is the streams' mean. A receiver
// that saw datagrams out of order says so ("[SUM]  0.0- 2.0 sec  3 datagrams received
// out-of-order") before its row.

// One stream as one end saw it: the server's summary, its own direction only.
struct UdpSummaryStream {
  int id = 0;
  uint64_t bytes = 0;        // sent (sender) or received (receiver)
  double seconds = 0;        // this end's stream time
  double jitter_ms = 0;      // a receiver's
  int64_t lost = 0;          // a receiver's
  int64_t packets = 0;       // datagrams sent (sender); highest sequence number seen (receiver)
  int64_t out_of_order = 0;  // a receiver's
};
std::vector<std::string> udp_summary_lines(
    const std::vector<SummaryGroup<UdpSummaryStream>>& groups, char format, bool separator_first);

// One stream as both ends saw it: the client's summary, a sender row then a receiver row.
struct UdpStreamBothEnds {
  int id = 0;
  uint64_t sent_bytes = 0;       // the sending end's
  double sent_s = 0;             // the sending end's stream time
  int64_t sent_packets = 0;      // datagrams the sending end sent; 0: unknown
  uint64_t received_bytes = 0;   // the receiving end's
  double received_s = 0;         // the receiving end's stream time
  double jitter_ms = 0;          // the receiving end's
  int64_t lost = 0;              // the receiving end's
  int64_t received_packets = 0;  // the receiving end's highest sequence number seen
  int64_t out_of_order = 0;      // the receiving end's (known only when this client received)
};
std::vector<std::string> client_udp_summary_lines(
    const std::vector<SummaryGroup<UdpStreamBothEnds>>& groups, char format, bool separator_first);

}  // namespace xttcp::iperf3
