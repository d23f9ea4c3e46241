// The parameter message an iperf3 client sends once, after PARAM_EXCHANGE: how the test runs
// (tests/reference/iperf3-3.12/README.md 3.2). Read within bounds (it comes from the network),
// and written as 3.12 writes it: the same keys, in the same order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.hh"

namespace xttcp::iperf3 {

enum class Protocol { tcp, udp, sctp };

// What one key of the message sets. A flag that 3.12 sends only when on (as `true` or 1) is
// on when its key is present, whatever its value, as 3.12 reads it.
struct Parameters {
  Protocol protocol = Protocol::tcp;
  uint32_t omit_s = 0;                     // -O
  std::optional<int32_t> server_affinity;  // -A n,m: the server pins itself to CPU m
  uint32_t time_s = 10;                    // -t; 0 when -n or -k ends the test
  uint64_t bytes = 0;                      // -n ("num"); 0: not used
  uint64_t blocks = 0;                     // -k ("blockcount"); 0: not used
  uint32_t mss = 0;                        // -M ("MSS"); 0: not set
  bool nodelay = false;                    // -N
  uint32_t parallel = 1;                   // -P
  bool reverse = false;                    // -R: the server sends
  bool bidirectional = false;              // --bidir: P streams each way
  uint32_t window = 0;                     // -w, bytes; 0: not set
  uint32_t length = 0;                     // -l ("len"); 0: absent (the server's 131072)
  uint64_t rate_bps = 0;                   // -b per stream ("bandwidth"); 0: unlimited
  uint64_t fq_rate_bps = 0;                // --fq-rate ("fqrate")
  uint32_t pacing_timer_us = 1000;         // --pacing-timer
  uint32_t burst = 0;                      // -b R/N
  uint32_t tos = 0;                        // -S / --dscp ("TOS")
  uint32_t flow_label = 0;                 // -L ("flowlabel")
  std::string title;                       // -T
  std::string extra_data;                  // --extra-data
  std::string congestion;                  // -C
  std::string congestion_used;             // never in a normal 3.12 run
  bool get_server_output = false;          // --get-server-output
  bool udp_counters_64bit = false;         // --udp-counters-64bit
  bool repeating_payload = false;          // --repeating-payload
  bool zerocopy = false;                   // -Z
  bool dont_fragment = false;              // --dont-fragment
  bool authenticated = false;              // "authtoken" present (--username)
  std::string client_version = "3.12";

  bool operator==(const Parameters&) const = default;
};

// The server's bounds on what a client may ask (3.12's own client limits; its server checks
// none of them): beyond them a test is refused in one line naming the key and the bound.
inline constexpr uint32_t max_parallel = 128;
inline constexpr uint32_t max_time_s = 86400;
inline constexpr uint32_t max_omit_s = 60;
inline constexpr uint32_t max_tcp_length = 1024 * 1024;
inline constexpr uint32_t min_udp_length = 16;
inline constexpr uint32_t max_udp_length = 65507;
inline constexpr uint32_t max_window = 512u * 1024 * 1024;
inline constexpr uint32_t max_mss = 9216;
inline constexpr uint32_t max_burst = 1000;
inline constexpr std::size_t max_text_bytes = 1024;      // title, extra_data
inline constexpr std::size_t max_congestion_bytes = 15;  // TCP_CA_NAME_MAX less its NUL

// Reads the message's JSON text: the parameters, or one line naming the key and its rule
// ("iperf3 parameters: parallel 500 is over 128 streams"). Unknown keys are ignored, as 3.12
// does; SCTP is read (the caller refuses it).
Expected<Parameters> read_parameters(std::string_view json);

// The message as a 3.12 client writes it (keys in its order, absent when it omits them).
std::string write_parameters(const Parameters& parameters);

}  // namespace xttcp::iperf3
