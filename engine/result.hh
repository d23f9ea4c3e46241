// Result: the one model every renderer reads (console, XML, JSON, native JSON).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/rr_result.hh"
#include "engine/spec.hh"
#include "engine/stop_reason.hh"
#include "topology/nic/rss_description.hh"

namespace xttcp {

// The network interface a run used and its driver (engine/stats/host_environment.hh).
struct NicIdentity {
  std::string interface_name;  // not "interface": a macro of the Windows headers
  std::string driver, driver_version, firmware, bus;  // ethtool's driver info; "" = not told
  uint32_t mtu = 0;
  // What a driver update can change, one line each as topology/nic discovery read it ("" = the
  // driver does not say): "rx 0 tx 0 combined 4 other 1", "rx 1024 tx 1024", "rx-usecs 0
  // tx-usecs 0 rx-frames 0 tx-frames 0 adaptive-rx off adaptive-tx off", "tso on, gso on, gro
  // on, lro off, rx-checksum on, tx-checksum on", "4 queue IRQs on CPUs 0-3".
  std::string channels, rings, coalescing, offloads, queue_irqs;
};

struct HostInfo {
  std::string hostname;
  std::string os;      // `uname -a` style line
  std::string kernel;  // release
  std::string cpu_model;
  uint32_t cpu_cores = 0;  // number of cpuN lines in /proc/stat
  double cpu_mhz = 0;      // first "cpu MHz" of /proc/cpuinfo
  // The environment a regression check compares (docs/native-json.md); "" = not readable here.
  std::string governor;                 // cpu0's cpufreq scaling_governor
  std::string smt;                      // SMT control: on, off, forceoff, notsupported, ...
  std::string dmi_vendor, dmi_product;  // the machine (a cloud VM's type)
  std::vector<std::pair<std::string, std::string>> sysctls;  // name, value (Linux)
  std::string build;               // xttcp's build: type and optional features
  std::optional<NicIdentity> nic;  // the interface of the run's local address
};

// System-wide CPU split over the window, from /proc/stat deltas (percent).
struct CpuSplit {
  double user = 0, system = 0, idle = 0, iowait = 0, softirq = 0;
  double cycles_per_byte = 0;
  double process_busy = 0;  // this process's CPU time / wall time (can exceed 100)
  double process_user_s = 0, process_system_s = 0;
  // The host's softirq threads (ksoftirqd) over the window: receive work the kernel deferred,
  // in no process's time above. On loopback it is mostly the test's own. Linux only; nullopt
  // when not measured (docs/native-json.md).
  std::optional<double> softirq_threads_s;
};

// Deltas of /proc/net/snmp and /proc/net/netstat over the window.
struct TcpRetransmits {
  uint64_t retrans_segs = 0;
  uint64_t lost_retransmit = 0, syn_retrans = 0, fast_retrans = 0, forward_retrans = 0,
           slow_start_retrans = 0, retrans_fail = 0;
};

struct NicPackets {
  std::string interface_name;  // not "interface": a macro of the Windows headers
  uint64_t tx_packets = 0, rx_packets = 0;
};

struct Interrupts {
  std::string pattern;
  uint64_t total = 0;
};

// Duration of the send()/recv() calls of one thread (NTttcp for Windows -lm), in nanoseconds.
struct IoLatency {
  double average_ns = 0, min_ns = 0, max_ns = 0;
  uint64_t calls = 0;  // the timed calls behind the figures (0 when not told, e.g. in tests)
};

// One NTttcp "thread" row: a sender (port, thread) pair or a receiver port.
struct ThreadResult {
  uint32_t index = 0;
  double seconds = 0;
  uint64_t bytes = 0;
  // Completed send/recv calls in the window (Windows "Avg B / Compl"); nullopt = not counted.
  std::optional<uint64_t> operations;
  std::optional<IoLatency> latency;  // with -lm (Windows dialect); nullopt = not measured
};

// System-wide transport counters over the window, as NTttcp for Windows counts "packets":
// TCP segments out/in and failed connection attempts, or UDP datagrams out/in and receive
// errors (/proc/net/snmp Tcp: OutSegs InSegs AttemptFails, Udp: OutDatagrams InDatagrams
// InErrors).
struct TransportCounters {
  uint64_t packets_sent = 0, packets_received = 0, errors = 0;
};

// Zero-copy sends (--zerocopy): how many were asked for, how many completion notifications came
// back, and how many of those report that the kernel copied the data anyway.
struct ZeroCopyStats {
  uint64_t sends = 0;
  uint64_t notifications = 0;
  uint64_t copied = 0;
  bool fell_back = false;  // --zerocopy=auto switched to plain sends (nearly all were copied)
  ZeroCopyStats& operator+=(const ZeroCopyStats& other) {
    sends += other.sends;
    notifications += other.notifications;
    copied += other.copied;
    fell_back = fell_back || other.fell_back;
    return *this;
  }
};

// The iperf2 dialect over UDP (docs/iperf2.md): one stream's figures as iperf 2's server reports
// them in its report datagram. A client holds what the server sent back; a server what it sent.
struct Iperf2UdpStream {
  uint64_t bytes = 0;      // every datagram's payload, the FIN's included
  double seconds = 0;      // at the server: the stream's first datagram to its FIN
  uint64_t datagrams = 0;  // the FIN's number: data datagrams + the FIN
  uint64_t lost = 0, out_of_order = 0;
  double jitter_ms = 0;
};

// A TCP receiver's receives of one stream by size, as iperf 2's server counts its reads for -e's
// Reads=Dist: how many, and how many fell in each of 8 bins of -l/8 bytes (bin k holds the sizes
// k x w + 1 .. (k + 1) x w; a size past the last bin is counted in `reads` only).
inline constexpr std::size_t read_size_bins = 8;
struct ReadSizes {
  uint64_t reads = 0;
  std::array<uint64_t, read_size_bins> bins{};

  ReadSizes& operator+=(const ReadSizes& other) {
    reads += other.reads;
    for (std::size_t k = 0; k < read_size_bins; ++k) bins[k] += other.bins[k];
    return *this;
  }
  bool operator==(const ReadSizes&) const = default;
};

// TCP_INFO of one of our own connections, read at the end of the run.
struct ConnectionStats {
  std::string local, remote;
  uint64_t bytes = 0;
  uint32_t rtt_us = 0, rttvar_us = 0;
  uint32_t total_retrans = 0;
  uint32_t snd_cwnd = 0, pmtu = 0;  // snd_cwnd in segments
  uint32_t snd_mss = 0;             // bytes per segment (iperf2 -e prints cwnd x mss)
  uint64_t delivery_rate_bps = 0;
  std::string congestion;  // TCP_CONGESTION read back at the end; "" where the OS does not say
  ZeroCopyStats zerocopy;  // this connection's zero-copy sends (sender, --zerocopy)
  std::optional<Iperf2UdpStream> iperf2_udp;  // the iperf2 dialect's UDP streams
  // Not in result files: which stream of the test this is, as its per-stream interval figures
  // name it (StreamInterval::key): a sender's flow slot, a TCP receiver's connection watch id, a
  // UDP receiver's flow id; nullopt = none (a TCP receiver's connection nobody watched).
  std::optional<uint64_t> stream;
  // Not in result files: a TCP receiver's reads by size (io.count_reads), the whole connection.
  std::optional<ReadSizes> read_sizes;
};

// TCP_INFO of one connection at one instant, as the kernel keeps it (cumulative counts).
struct TcpSample {
  uint32_t rtt_us = 0, rttvar_us = 0;
  uint32_t snd_cwnd = 0;  // segments
  uint32_t snd_mss = 0;   // bytes per segment
  uint32_t snd_wnd = 0;   // the peer's receive window, bytes (Linux 5.4+; 0 where unknown)
  uint32_t pmtu = 0;      // path MTU, bytes
  uint32_t total_retrans = 0;
  uint64_t delivery_rate_bps = 0, pacing_rate_bps = 0;  // bits per second
  uint64_t bytes_acked = 0, bytes_received = 0;
  // Time (µs) the connection had data to send, and of it: limited by the peer's receive
  // window, and by our send buffer (Linux 4.10+; 0 where the OS does not say).
  uint64_t busy_us = 0, rwnd_limited_us = 0, sndbuf_limited_us = 0;
};

// One connection over one interval (docs/native-json.md: intervals[].connections): gauges as read
// at the interval's end, counts as the change over it.
struct ConnectionInterval {
  uint32_t id = 0;     // Result::watched_connections[].id
  uint64_t bytes = 0;  // acknowledged (sender) or received (receiver) by TCP in the interval
  uint32_t rtt_us = 0, rttvar_us = 0, snd_cwnd = 0;
  uint32_t snd_mss = 0;  // not in result files (the iperf2 dialect's -e Cwnd is cwnd x mss)
  uint32_t snd_wnd = 0, pmtu = 0;  // not in result files (the iperf3 dialect's -J has them)
  uint32_t retransmits = 0;
  uint64_t delivery_rate_bps = 0, pacing_rate_bps = 0;
  uint64_t busy_us = 0, rwnd_limited_us = 0, sndbuf_limited_us = 0;
};

// A connection whose TCP_INFO was read at every interval: its id in the intervals, and who.
struct WatchedConnection {
  uint32_t id = 0;
  std::string local, remote;
};

// One stream's share of an interval (the iperf2 dialect's per-stream interval lines): a sender's
// flow, a TCP receiver's connection (with io.count_reads) or a UDP receiver's flow.
struct StreamInterval {
  uint64_t key = 0;  // the stream, as ConnectionStats::stream names it
  uint64_t bytes = 0;
  // Sender: its send calls. TCP receiver: its receives (as read_sizes->reads).
  uint64_t operations = 0;
  // UDP: datagrams sent (sender) or received (receiver), and the receiver's sequence accounting.
  uint64_t datagrams = 0, lost = 0, reordered = 0, jitter_ns = 0;
  std::optional<ConnectionInterval> tcp;  // TCP: its TCP_INFO figures, when it is watched
  std::optional<ReadSizes> read_sizes;    // TCP receiver with io.count_reads
};

struct IntervalSample {
  double start_s = 0;  // from the start of the measured window (omitted: of the test)
  double seconds = 0;
  uint64_t bytes = 0;
  // UDP runs (docs/udp.md): datagrams sent (sender) or received (receiver) in the interval, and
  // the receiver's sequence accounting over it.
  uint64_t datagrams = 0, lost = 0, reordered = 0, jitter_ns = 0;
  // TCP: every watched connection open at the interval's end (docs/native-json.md).
  std::vector<ConnectionInterval> connections;
  // Live reports only (not kept in result files): the send/receive calls of the interval, and
  // the streams at its end (TCP: connections open; UDP: flows seen).
  uint64_t operations = 0;
  uint32_t streams = 0;
  // Live reports only: an interval of the warm-up (iperf3's -O omit period), in no window.
  bool omitted = false;
  // Live reports only: each stream's share of the interval (StreamInterval), in the order the
  // streams began, when the run asks for it (the iperf2 dialect); empty otherwise. A Result keeps
  // it for at most limits::watched_connections streams.
  std::vector<StreamInterval> per_stream;
};

// One UDP flow of the whole run (docs/udp.md). flow = the sender's flow id.
struct UdpFlowResult {
  uint32_t flow = 0;
  bool native = true;     // false: NTTTCP payload, counted but not sequenced
  uint64_t sent = 0;      // sender: datagrams sent; receiver: what the sender reported, or 0
  uint64_t received = 0;  // receiver: distinct datagrams (native) or all datagrams (compat)
  uint64_t lost = 0, duplicates = 0, reordered = 0;
  double jitter_ms = 0;
};

// UDP figures of a run; absent for TCP.
struct UdpResult {
  std::string payload;            // "native", "compat" or, at a receiver, "mixed"
  uint32_t datagram_size = 0;     // sender: -b; receiver: mean received size
  uint32_t gso_segments = 0;      // sender: datagrams per GSO send, 0 = GSO not used
  bool gro = false;               // receiver: UDP_GRO on
  uint64_t window_datagrams = 0;  // in the measured window
  double window_pps = 0;
  // The whole run. Receiver: sent is the sender's count when it reported one (loss_source
  // "sender count"), else lost comes from sequence gaps ("sequence gaps").
  uint64_t sent = 0, received = 0, lost = 0, duplicates = 0, reordered = 0;
  double loss_percent = 0;
  std::string loss_source;
  double jitter_ms = 0;  // the largest flow's RFC 3550 jitter
  // Receiver: datagrams counted above but in no flow of `flows` (their flow left the receiver's
  // bounded flow table to make room: invented flow ids, or more flows than it tracks).
  uint64_t unattributed = 0;
  // Receiver: what came from flows no sender of the test declared (docs/hostile-peers.md), in
  // none of the counts above nor the test's bytes; their end markers ended nothing.
  uint64_t foreign_datagrams = 0, foreign_bytes = 0, foreign_end_markers = 0;
  // Receiver: datagrams without the header every datagram of the test carries (too short for
  // it, or another payload), where the test's senders declared their flows or in the iperf2
  // layout; in none of the counts above nor the test's bytes.
  uint64_t headerless_datagrams = 0, headerless_bytes = 0;
  std::vector<UdpFlowResult> flows;
};

// A device the backend drives itself (dpdk: its port) over the measured window, from counters
// read at the window's edges (engine/stats/device_window.hh).
struct DeviceQueueResult {
  uint32_t queue = 0;
  uint64_t tx_frames = 0, tx_bytes = 0, rx_frames = 0, rx_bytes = 0;  // bytes without the FCS
};
// What a device the backend drives itself says of itself when it is set up (dpdk: the ethdev
// API), each part as read or why not ("unavailable: <reason>", never invented): its NUMA node,
// queues, and RSS in the shape a kernel NIC's takes (docs/topology.md). Backend-neutral: filled
// by the backend, read by the engine without asking which backend it is.
struct DeviceDescription {
  std::optional<int> numa_node;  // nullopt: numa_unavailable says why
  std::string numa_unavailable;
  uint32_t rx_queues = 0, tx_queues = 0;          // configured
  uint32_t max_rx_queues = 0, max_tx_queues = 0;  // the device's maximum
  uint32_t reta_size = 0;                         // indirection table entries it reports; 0 none
  uint32_t hash_key_size = 0;                     // RSS key bytes it reports; 0 none
  std::vector<std::string> rss_offloads;          // flow types it can hash ("ipv4-udp", ...)
  // The RSS: `rss.nic` the device, `rss.hash_function` ("unknown" when the device does not say),
  // `rss.key` and `rss.indirection` (empty: the *_unavailable reason), `rss.queues` the RX queues,
  // `rss.hash_fields` per flow type (tcp4, udp4, tcp6, udp6) as configured now.
  RssDescription rss;
  std::string key_unavailable, indirection_unavailable, hash_fields_unavailable;
  std::vector<std::string> warnings;  // e.g. workers off the device's NUMA node
};

struct DeviceResult {
  std::string device, driver;
  std::optional<DeviceDescription> description;  // when the backend described the device
  std::string direction;     // "tx" (sender) or "rx" (receiver): what the rates below count
  uint64_t frames = 0;       // that direction's frames in the window (the backend's own count)
  uint64_t frame_bytes = 0;  // their bytes without the FCS
  double mpps = 0;
  double l1_gbps = 0;  // frames + FCS + preamble and inter-frame gap (20 B): the line's view
  double l2_gbps = 0;  // frames + FCS (4 B)
  double l4_gbps = 0;  // UDP payload
  double cycles_per_frame = 0;  // TSC cycles x polling threads / frames
  uint64_t tsc_hz = 0;
  uint32_t pollers = 0;
  std::vector<DeviceQueueResult> queues;
  // Deltas of the device's own counters (rte_eth_stats, then xstats): the rte_eth_stats eight
  // always, any other only when it moved.
  std::vector<std::pair<std::string, uint64_t>> counters;
};

// A receiver with --allow / --max-clients: who it turned away, since it started listening.
struct AccessResult {
  uint64_t refused_control = 0;    // sync connections closed at once
  uint64_t refused_data = 0;       // data connections closed at once
  uint64_t refused_datagrams = 0;  // UDP datagrams dropped unread
  uint64_t over_max_clients = 0;   // of the connections: from a host beyond --max-clients
  uint64_t unauthenticated = 0;    // of the connections: without --auth-key's proof or preamble
};

// --placement as the run applied it: the mode asked, the mode used (spread when the NIC could
// not support the one asked) and why, in one sentence.
struct PlacementResult {
  std::string asked;  // "" in results made without prepare_run (tests, old files)
  std::string used;
  std::string why;
};

// A sender's source ports as chosen for the receiver's RSS (docs/topology.md): whether they
// were spread over its RX queues on purpose, why (or why not), and the prediction.
struct SourcePortSpread {
  bool spread = false;
  std::string why;                        // one sentence
  std::string nic;                        // the receiver's NIC (or file) the description came from
  std::string flow_type;                  // "tcp4", "udp6", ...
  uint32_t queues = 0;                    // the receiver's RX queues
  std::vector<uint32_t> flows_per_queue;  // predicted, one entry per queue
  std::vector<uint32_t> flow_queues;      // predicted RX queue per connection, slot order
  std::vector<uint16_t> flow_ports;       // the source port per connection, slot order
};

// A sender's prediction (source_ports) set against what the receiver's NIC counted per RX queue
// over the window (the receiver's queue_window), when the sender spread its flows on purpose
// and its peer is xttcp (docs/topology.md). Shares are 0..1 per RX queue.
struct SpreadCheck {
  std::string unavailable;              // why there is nothing to compare; "" when compared
  std::string measure;                  // what the measured shares count: rx_packets or rx_bytes
  std::vector<double> predicted_share;  // flows predicted on the queue / flows
  std::vector<double> measured_share;   // the queue's packets (bytes) / all queues'
  uint32_t widest_queue = 0;            // the queue where the two differ most
  double widest_gap = 0;                // |measured - predicted| there
};

// Per-queue truth over the measured window (docs/topology.md): the NIC's own per-queue counters
// (ETHTOOL_GSTATS), its queue interrupts per CPU (/proc/interrupts), the NET_RX/NET_TX
// softirqs per CPU (/proc/softirqs) and each CPU's busy time (/proc/stat), each a delta between
// the window's edges.
struct QueueDelta {
  uint32_t queue = 0;
  std::optional<uint64_t> rx_packets, rx_bytes, tx_packets, tx_bytes;  // what the driver counts
};
struct QueueIrqDelta {
  int irq = 0;
  std::string kind;  // "rx", "tx", "combined"
  int queue = 0;
  std::vector<uint64_t> per_cpu;
};
// One CPU's time over the window, from /proc/stat's "cpuN" line at both edges: each figure is a
// share (0..1) of the ticks the CPU counted in the window. busy = user + system + irq + softirq +
// steal = 1 - idle - iowait; user includes nice. ticks 0 (a window shorter than a tick): all 0.
struct CpuBusy {
  uint32_t cpu = 0;    // the kernel's CPU id (cpuN), not an index
  uint64_t ticks = 0;  // USER_HZ ticks counted in the window (the shares' resolution)
  double busy = 0, user = 0, system = 0, irq = 0, softirq = 0, steal = 0;
};
struct QueueWindow {
  std::string nic, driver;
  std::vector<QueueDelta> queues;
  std::string queues_source;       // "ethtool", "netlink qstats" (docs/topology.md); "" unread
  std::string queues_unavailable;  // why `queues` is empty ("" when read)
  std::vector<QueueIrqDelta> irqs;
  std::string irqs_unavailable;
  std::vector<uint64_t> net_rx_softirqs, net_tx_softirqs;  // per CPU
  std::string softirqs_unavailable;
  // Every CPU online at both edges, by id; a CPU that came or went in the window is left out.
  std::vector<CpuBusy> cpus;
  std::string cpus_unavailable;         // why `cpus` is empty ("" when read)
  std::optional<uint32_t> busiest_cpu;  // the id of the CPU with the highest busy share
  // max / mean over the queues of RX (TX) packets, else bytes; nullopt when nothing was counted
  std::optional<double> rx_imbalance, tx_imbalance;
};

struct Result {
  // What was run.
  TestSpec spec;
  Role role = Role::receiver;
  std::string tool_version;
  std::string backend;
  HostInfo host;
  std::string cpu_mapping;  // e.g. "worker 0 -> cpu 1, worker 1 -> any"
  std::string start_time;   // ISO 8601 UTC, start of the measured window
  uint32_t negotiated_cycle_s = 0;

  // What happened.
  StopReason stop;         // why the test ended before its cycle (cause none: on time)
  bool cut_short = false;  // its window ended early: the figures are partial
  double duration_s = 0;   // measured window, exact
  uint64_t total_bytes = 0;
  uint64_t total_operations = 0;
  uint32_t threads_created = 0;
  uint32_t connections_tested = 0;
  std::vector<ThreadResult> threads;
  std::vector<IntervalSample> intervals;
  std::vector<ConnectionStats> connections;
  // TCP: the connections whose TCP_INFO the intervals hold (at most limits::watched_connections
  // open at once), and how many more were open and left out.
  std::vector<WatchedConnection> watched_connections;
  uint64_t connections_not_watched = 0;

  CpuSplit cpu;
  TcpRetransmits tcp;
  uint64_t tcp_info_retransmits = 0;           // summed from our own connections
  std::optional<uint32_t> tcp_average_rtt_us;  // sender, TCP
  std::optional<NicPackets> nic;
  std::optional<Interrupts> interrupts;
  std::optional<ZeroCopyStats> zerocopy;  // sender with --zerocopy
  std::optional<UdpResult> udp;           // UDP runs
  std::optional<RrResult> rr;             // --rr runs
  std::vector<std::string> notes;         // what the data path decided, e.g. a zero-copy fallback
  std::optional<AccessResult> access;     // receiver with --allow / --max-clients

  // The peer's result when the peer is xttcp and shared it, parsed within bounds
  // (parse_peer_result); a peer's result never holds a peer of its own.
  std::shared_ptr<const Result> peer;
  // --bidir: this end's result for the other direction (the sender's receiving, the receiver's
  // sending), with its own peer; the figures above are the direction from sender to receiver.
  // One level: the other direction has no other direction of its own.
  std::shared_ptr<const Result> other_direction;

  // For the Windows renderers: nullopt = not collected on this OS or in this run, and then the
  // console prints "NA" rather than a false 0 (the XML file writes 0, as NTttcp does).
  std::optional<TransportCounters> transport;
  std::optional<uint64_t> dpcs;  // Windows deferred procedure calls in the window; none on Linux

  // The backend's own device over the window (dpdk: the port); nullopt for kernel backends.
  std::optional<DeviceResult> device;

  // NTttcp for Windows -sam: one Result per sample of the window, in order (each renders as its
  // own block); the figures above are the whole window's. Empty without -sam. A sample carries
  // the window's figures only: no connections, notes, peer, zero-copy or whole-run UDP figures.
  std::vector<Result> samples;
  // -lm (Windows dialect): over every timed call of every thread (per thread: threads[].latency);
  // nullopt = not measured, or no call was timed in the window.
  std::optional<IoLatency> latency;

  PlacementResult placement;  // --placement as applied (with cpu_mapping: where workers ran)
  std::optional<SourcePortSpread> source_ports;  // a sender's, when the run chose its ports
  std::optional<QueueWindow> queue_window;       // when the run watched a NIC's queues
  std::optional<SpreadCheck> spread_check;       // a sender's, when it spread its flows

  double throughput_bps() const {
    return duration_s > 0 ? static_cast<double>(total_bytes) * 8.0 / duration_s : 0.0;
  }
};

}  // namespace xttcp
