// TestSpec: the one validated model of what the user asked for. Every command-line dialect
// fills it; the engine, the plan and every renderer read only this.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/access_spec.hh"
#include "engine/iperf2_spec.hh"
#include "engine/iperf3_spec.hh"
#include "engine/rr_spec.hh"
#include "engine/repeat_options.hh"
#include "topology/placement_spec.hh"

namespace xttcp {

enum class Role { receiver, sender, local };
enum class ZeroCopy { off, on, automatic };  // --zerocopy[=on|off|auto]
enum class Protocol { tcp, udp };
// --udp-payload: native = xttcp's 24-byte header per datagram (flow, sequence, send time);
// compat = NTTTCP-for-Linux's all-'B' payload; automatic = native unless the receiver is NTTTCP;
// iperf2 = iperf 2's 16-byte head and client header (the iperf2 dialect sets it at both ends,
// engine/iperf2/udp_datagram.hh); iperf3 = iperf3's 12- or 16-byte head (the iperf3 dialect,
// engine/iperf3/udp_datagram.hh).
enum class UdpPayload { automatic, native, compat, iperf2, iperf3 };
inline constexpr uint32_t udp_native_header_bytes = 24;  // engine/udp/datagram_header.hh

// NTTTCP-for-Linux limits (const.h) and defaults (default_ntttcp_test()).
namespace limits {
inline constexpr uint32_t max_ports = 512;
inline constexpr uint32_t max_threads_per_port = 25600;
inline constexpr uint32_t max_conns_per_thread = 1000;
inline constexpr uint32_t max_remote_endpoints = 8;
inline constexpr uint32_t max_udp_send_size = 65535 - 8 - 20;
inline constexpr uint64_t max_connections = 1u << 20;  // xttcp's own bound on -P x -n x -l
// xttcp's own bound on -b (Windows: -l): one send or receive call moves at most this (Linux
// refuses a 2 GiB receive), and each worker allocates buffers of it.
inline constexpr uint64_t max_buffer_bytes = 1ull << 30;
// --max-clients: far above any real test, small enough that the list of hosts stays cheap.
inline constexpr uint64_t max_clients = 4096;
// Connections whose TCP_INFO is read at every interval (intervals[].connections): xttcp's
// default test has 64; more would grow the result file by every interval of every connection.
inline constexpr uint32_t watched_connections = 64;
}  // namespace limits

namespace defaults {
inline constexpr uint32_t ports = 16;
inline constexpr uint32_t threads_per_port = 4;
inline constexpr uint32_t conns_per_thread = 1;
inline constexpr uint16_t base_port = 5001;
inline constexpr uint16_t source_base_port = 25001;  // bare -f
inline constexpr uint32_t receiver_buffer = 64 * 1024;
inline constexpr uint32_t sender_buffer = 128 * 1024;
inline constexpr uint32_t duration_s = 60;
inline constexpr const char* log_file = "ntttcp-for-linux-log.log";
inline constexpr const char* xml_file = "ntttcp-for-linux-log.xml";
inline constexpr const char* json_file = "ntttcp-for-linux-log.json";
inline constexpr double interval_s = 0.5;
// --max-cycle left out: a sender's word holds this receiver for an hour at most (or its own
// cycle, if longer).
inline constexpr uint32_t max_cycle_s = 3600;
}  // namespace defaults

// The command-line dialect a run was asked in; it chooses the console and XML formats and, for
// iperf2, the control plane and the wire headers (docs/iperf2.md).
enum class Dialect { linux, windows, iperf2, iperf3 };

// --defaults: whose defaults a run starts from. xttcp's are the fast ones (MSG_TRUNC receive,
// UDP segmentation and batching, io_uring for TCP); ntttcp's do the original's work (a receiver
// that copies into user space, one send per write, epoll), so CPU and cycles/byte figures compare
// with years of NTttcp results. Invoked as ntttcp[.exe] / ntttcps / ntttcpr, ntttcp's apply.
enum class Defaults { xttcp, ntttcp };

// One CPU mapping (NTttcp for Windows: -m threads,cpu,host): `threads` connections of one thread
// and one port each, pinned to `cpu` (nullopt = '*'), towards (sender) or bound to (receiver)
// `host` ("" = any).
struct ThreadMapping {
  uint32_t threads = 1;
  std::optional<int> cpu;
  std::string host;
};

// The spec is organised by meaning, not by dialect: both grammars (tools/cli) map their options
// into these parts, and the engine, the backends and the renderers read them by what they mean.
// Defaults of options only one grammar sets are that original's (NTTTCP-for-Linux's
// default_ntttcp_test(), NTttcp-for-Windows' ntttcp.c 5.40).

// What is moved, how fast and for how long.
struct Workload {
  Protocol protocol = Protocol::tcp;
  // I/O sizes (-b sets the application buffer for send()/recv(), not SO_SNDBUF).
  uint32_t send_buffer = defaults::sender_buffer;
  uint32_t recv_buffer = defaults::receiver_buffer;
  uint64_t rate_limit_bps = 0;     // -B, bits/s over all sender threads; 0 = off
  uint64_t fq_rate_limit_bps = 0;  // --fq-rate-limit, bits/s over all connections; 0 = off
  uint64_t thread_rate_kBps = 0;   // -thr: per-thread send limit in KB/s (1 KB = 1024 B)
  uint32_t warmup_s = 0;           // -W
  uint32_t duration_s = defaults::duration_s;  // -t; 0 = continuous
  uint32_t cooldown_s = 0;                     // -C
  // Count mode (Windows -n): each sender thread sends this many buffers (nullopt = timed by -t).
  std::optional<uint64_t> buffer_count;
  uint32_t count_timeout_s = 10800;                // count mode's longest run: -t with -n, else 3 h
  UdpPayload udp_payload = UdpPayload::automatic;  // --udp-payload (sender)
  bool verify_data = false;                        // -d: received bytes must all be 'A'
  // --reverse (sender, on one port): the data flows the other way, from the receiver (-r) to
  // this end, over the connections this end makes (so a sender behind NAT or a firewall can
  // test the download direction). Each end keeps its role for the control protocol.
  bool reverse = false;
  // --bidir (sender, on one port): both ways at once, each over its own connections (P x n x l
  // of them each way): this end sends on those it opens to the receiver and receives on those
  // it opens for the receiver to send on. Each direction is measured and reported on its own.
  bool bidir = false;
};

// Where the flows go: addresses, ports, connections, threads and CPUs.
struct Layout {
  // Receiver: local bind address ("" = any). Sender: the receiver's address.
  std::string address;
  bool ipv6 = false;
  // NTTTCP-for-Linux: ports x threads-per-port x connections-per-thread.
  uint32_t ports = defaults::ports;                        // -P
  uint32_t threads_per_port = defaults::threads_per_port;  // -n (sender)
  uint32_t conns_per_thread = defaults::conns_per_thread;  // -l (sender)
  uint16_t base_port = defaults::base_port;                // -p; sync port is base_port - 1
  uint16_t source_base_port = 0;                           // -f; 0 = ephemeral
  std::string source_address;                              // -a (sender)
  // --source-addresses: the sender's connections round-robin over these (flow slot modulo
  // count); the first is also source_address (the sync connection's). Empty = -a's alone.
  std::vector<std::string> source_addresses;
  // CPU mapping from Linux -m n,cpu,host: nullopt = '*' (spread over all cores).
  std::optional<int> mapping_cpu;
  std::string mapping_text = "16,*,*";  // as given, echoed in verbose output
  // Windows -m, in order; global thread i uses base_port + i. Empty = the Linux layout.
  std::vector<ThreadMapping> mappings;
  std::optional<uint32_t> worker_threads;  // --threads: OS threads running the flows
  bool pin_workers = false;                // --pin: each worker on its own CPU
  std::optional<uint32_t> numa_node;       // -na: NUMA node of unpinned threads
  // The data connections come on the control port and are made by the control plane, which
  // hands them to the workers (WorkerContext::adopted, or a receiver's ConnectionInbox): no
  // port per flow. The iperf3 dialect (accepted and told apart by their cookie, or connected)
  // and --one-port (native: the sync port is PORT, every data connection opens with the
  // session's preamble, sync_auth.hh).
  bool one_port = false;
  uint32_t mapped_threads() const {
    uint32_t total = 0;
    for (const ThreadMapping& mapping : mappings) total += mapping.threads;
    return total;
  }
};

// How each data-path call is made on the sockets.
struct IoOptions {
  bool no_delay = false;              // --no-delay
  ZeroCopy zerocopy = ZeroCopy::off;  // --zerocopy: MSG_ZEROCOPY / SEND_ZC sends
  bool skip_rx_copy = true;           // --skip-rx-copy[=on|off]: MSG_TRUNC discard
  bool udp_gso = true;                // --udp-gso: UDP_SEGMENT sends where the kernel has it
  bool udp_gro = true;                // --udp-gro: UDP_GRO receives where the kernel has it
  uint32_t outstanding = 0;           // -a [n]: outstanding buffers per thread; 0 = sync I/O
  int64_t socket_recv_buffer = -1;    // -rb: SO_RCVBUF; -1 = OS default (autotuning)
  int64_t socket_send_buffer = -1;    // -sb: SO_SNDBUF; -1 = OS default; -a n makes it 0
  // -a n without -sb: the original then sets SO_SNDBUF 0 (Windows sends from the application's
  // buffers). Linux would shrink the send buffer to its minimum instead: its backends skip it.
  bool send_buffer_implied = false;
  bool udp_unconnected = false;         // -uc: sendto/recvfrom
  bool wait_all = false;                // -wa: MSG_WAITALL on receives
  uint32_t udp_send_offload = 0;        // -uso: UDP send segmentation offload message size
  bool udp_receive_coalescing = false;  // -uro
  bool time_each_call = false;          // -lm: time every send/recv call
  uint32_t wait_timeout_ms = 600000;    // -to: I/O and thread waits; 0 = infinite
  bool udp_send_batching =
      true;                   // sendmmsg batches; off = one call per datagram (--defaults ntttcp)
  std::string congestion;     // --congestion: TCP_CONGESTION; "" = the system's
  uint32_t busy_poll_us = 0;  // --busy-poll: SO_BUSY_POLL microseconds; 0 = off
  bool receive_mark = true;   // --receive-mark: SO_RCVLOWAT following the rate
  // A TCP receiver counts each connection's receives, their bytes and sizes, for per-stream
  // figures (the iperf2 dialect's server with -i or -e: its per-stream lines and Reads=Dist).
  // Off, its data path does none of it.
  bool count_reads = false;
};

// How the two ends agree on the test: the control connection and its timeouts.
struct Control {
  bool no_sync = false;             // -N (Windows: -ns)
  bool multi_clients = false;       // -M (receiver)
  bool last_client = false;         // -L (sender)
  bool hold = false;                // -H (receiver)
  bool daemonize = false;           // -D
  bool port_assignment = false;     // -sp: the data ports handed out over the base port
  uint32_t connect_timeout_s = 10;  // --connect-timeout
  uint32_t wait_timeout_s = 0;      // --wait-timeout: receiver waits for a sender; 0 = forever
  // --max-cycle (receiver): the longest test cycle (W+t+C) a sender's proposal may make; 0 = no
  // limit. Left out: an hour, or this receiver's own cycle if longer (max_cycle_default).
  std::optional<uint32_t> max_cycle_s;
  std::string auth_key_file;  // --auth-key: the shared key's file; empty = no authentication
};

// What is printed and written.
struct Output {
  std::optional<std::string> log_file;          // -O
  std::optional<std::string> xml_file;          // -x
  std::optional<std::string> json_file;         // -j
  std::optional<std::string> native_json_file;  // --json
  bool quiet = false;                           // -Q
  bool verbose = false;                         // -V
  bool show_tcp_retrans = false;                // --show-tcp-retrans
  std::string show_nic_packets;                 // --show-nic-packets IF
  std::string show_dev_interrupts;              // --show-dev-interrupts STR
  double interval_s = defaults::interval_s;     // --interval (real-time lines and samples)
  uint32_t sample_s = 0;                        // -sam: one result block per sample; 0 = one
  bool hide_per_thread = false;                 // -hpt
  bool xml_append = true;                       // -xml appends to its file, as the original does
  std::optional<std::string> csv_file;          // --csv: the intervals as CSV
  std::optional<std::string> json_stream;       // --json-stream: NDJSON per interval, live ("-")
};

// Per-backend blocks: options only one backend reads (its check() refuses them elsewhere).
struct UringOptions {
  bool sqpoll = false;  // --sqpoll: io_uring kernel submission thread
};
// --backend dpdk (io_backends/dpdk/README.md): EAL arguments, the port, the next hop's MAC.
struct DpdkOptions {
  std::string args;      // --dpdk-args: passed to rte_eal_init
  std::string port;      // --dpdk-port: port id, PCI address, name or MAC
  std::string peer_mac;  // --peer-mac: destination MAC of sent frames
};

// What a grammar accepts and echoes but nothing runs differently for.
struct AcceptedOptions {
  bool use_epoll = false;        // Linux -e: our receiver always uses the chosen backend
  bool wsa = false;              // Windows -w: WSASend/WSARecv (requires -a)
  bool no_stdio_buffer = false;  // Windows -nsb: xttcp's console lines are unbuffered
};

struct TestSpec {
  Role role = Role::receiver;
  // The grammar the user wrote: the console and XML formats follow it.
  Dialect dialect = Dialect::linux;
  std::string backend = "auto";  // --backend; "auto" = the registry's choice
  // With --backend auto, once the tools layer settled it (backend then holds the name): why that
  // one, measured here or by rule, for the console and the result; "" when one was named.
  std::string backend_why;
  Defaults defaults = Defaults::xttcp;  // --defaults (the fields it set may be set again after it)

  Workload workload;
  Layout layout;
  IoOptions io;
  Control control;
  Output output;
  UringOptions uring;
  DpdkOptions dpdk;
  AcceptedOptions accepted;
  // Blocks of their own, each in its own header.
  PlacementSpec placement;  // --placement, --nic: CPUs chosen by the NIC (topology/)
  AccessSpec access;        // --allow, --max-clients (receiver)
  RrSpec rr;                // --rr and its options (engine/rr_spec.hh)
  RepeatOptions repeat;     // --repeat, --repeat-pause (sender)
  Iperf2Options iperf2;     // the iperf2 dialect's reports (engine/iperf2_spec.hh)
  Iperf3Options iperf3;     // the iperf3 dialect's server (engine/iperf3_spec.hh)

  // Derived counts.
  // 64-bit: the per-flag maxima multiply past 2^32 (512 x 25600 x 1000).
  uint64_t sender_threads() const { return uint64_t{layout.ports} * layout.threads_per_port; }
  uint64_t sender_connections() const { return sender_threads() * layout.conns_per_thread; }
  // The native sync connection's port: PORT - 1, or PORT itself on one port (--one-port).
  uint16_t sync_port() const {
    return static_cast<uint16_t>(layout.one_port ? layout.base_port : layout.base_port - 1);
  }
  uint32_t cycle_s() const { return workload.warmup_s + workload.duration_s + workload.cooldown_s; }
  // The longest cycle this receiver lets a sender ask for (--max-cycle; 0 = no limit).
  uint32_t max_cycle() const {
    return control.max_cycle_s.value_or(std::max(cycle_s(), defaults::max_cycle_s));
  }
  bool is_sender() const { return role == Role::sender; }
};

const char* to_string(Role role);
const char* to_string(Protocol protocol);
const char* to_string(ZeroCopy zerocopy);   // "off", "on", "auto"
const char* to_string(UdpPayload payload);  // "auto", "native", "compat"
const char* to_string(Defaults defaults);   // "xttcp", "ntttcp"

}  // namespace xttcp
