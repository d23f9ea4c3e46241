#include "engine/report/ntttcp_json.hh"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "engine/report/ntttcp_figures.hh"

namespace xttcp {

namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json metric(const char* name, std::string value) {
  return ordered_json{{"metric", name}, {"value", std::move(value)}};
}

ordered_json parameters(const TestSpec& spec) {
  return ordered_json{
      {"sendSocketBuff", std::to_string(spec.workload.send_buffer)},
      {"recvSocketBuff", std::to_string(spec.workload.recv_buffer)},
      {"port", std::to_string(spec.layout.base_port)},
      {"syncPort", std::to_string(spec.sync_port())},
      {"noSync", ntttcp_bool(spec.control.no_sync)},
      {"waitTimeoutMilliseconds", "0"},
      {"async", "False"},
      {"verbose", ntttcp_bool(spec.output.verbose)},
      {"wsa", "False"},
      {"useIpv6", ntttcp_bool(spec.layout.ipv6)},
      {"udp", ntttcp_bool(spec.workload.protocol == Protocol::udp)},
      {"verifyData", "False"},
      {"waitAll", "False"},
      {"runTime", std::to_string(spec.workload.duration_s)},
      {"warmupTime", std::to_string(spec.workload.warmup_s)},
      {"cooldownTime", std::to_string(spec.workload.cooldown_s)},
      {"dashNTimeout", "0"},
      {"bindSender", "False"},
      {"senderName", "NA"},
      {"maxActiveThreads", "0"},
      {"tp", "False"},
      {"noStdioBuffer", "False"},
      {"throughputBpms", "0"},
      {"cpuBurn", "0"},
      {"latencyMeasurement", "False"},
      {"useIOComplPorts", "NA"},
      {"cpuFromIdleFlag", "False"},
      {"getEstats", "False"},
      {"qosFlag", "False"},
      {"jitterMeasurement", "False"},
      {"packetSpacing", "0"},
  };
}

// nlohmann prints `"key": value`; the original prints `"key" : value`. Insert the space
// before every colon that separates a key from its value (outside strings), so the layout
// (4-space indent, one member per line) matches the original byte for byte.
std::string with_spaced_colons(const std::string& text) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == ':') {
      out.push_back(' ');
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string render_ntttcp_json(const Result& result) {
  const NtttcpFigures f = ntttcp_figures(result);
  ordered_json body;
  body["computername"] = f.computername;
  body["version"] = "5.33-linux";
  body["parameters"] = parameters(result.spec);

  if (f.verbose) {
    ordered_json threads = ordered_json::array();
    for (const NtttcpThreadFigures& t : f.threads) {
      threads.push_back(ordered_json{
          {"index", std::to_string(t.index)},
          {"realTime", metric("s", fixed3(t.seconds))},
          {"throughputs",
           {metric("KB/s", fixed3(t.kilobytes_per_s)),
            metric("MB/s", fixed3(t.megabytes_per_s) + " bps"),  // the original's stray " bps"
            metric("mbps", fixed3(t.megabits_per_s))}},
          {"avgBytesPerCompl", metric("B", "0.000")},
      });
    }
    body["threads"] = std::move(threads);
  }

  body["totalBytes"] = metric("MB", fixed6(f.total_megabytes));
  body["realTime"] = metric("s", fixed6(f.seconds));
  body["avgBytesPerCompl"] = metric("B", "0.000");
  body["threadsAvgBytesPerCompl"] = metric("B", "0.000");
  body["avgFrameSize"] = metric("B", "0.000");
  body["throughputs"] = {metric("MB/s", fixed3(f.megabytes_per_s)),
                         metric("mbps", fixed3(f.megabits_per_s)),
                         metric("Bps", fixed3(f.bytes_per_s)), metric("buffer/s", "0.000")};
  body["totalBuffers"] = "0.000";
  body["avgPacketsPerInterrupt"] = metric("packets/interrupt", fixed3(f.packets_per_interrupt));
  body["interrupt"] = metric("count/sec", fixed3(f.interrupts_per_s));
  body["interruptTotal"] = metric("count", std::to_string(f.total_interrupts));
  body["dpcs"] = metric("count/sec", "0.000");
  body["avgPacketsPerDpc"] = metric("packets/dpc", "0.000");
  body["cycles"] = metric("cycles/byte", fixed3(result.cpu.cycles_per_byte));
  body["packetsSent"] = std::to_string(f.packets_sent);
  body["packetsReceived"] = std::to_string(f.packets_received);
  body["packets_retransmitted"] = std::to_string(f.retrans_segs);  // snake_case, as the original
  body["errors"] = "0";
  body["cpu"] = metric("%", fixed3(result.cpu.process_busy));  // "cpu busy (all)"
  body["bufferCount"] = "0";
  body["bufferLen"] = "0";
  body["io"] = "0";
  if (result.spec.output.show_tcp_retrans) {
    body["tcp_retransmits"] = {
        metric("retrans_segs", std::to_string(f.retrans_segs)),
        metric("retrans_segments_per_sec", fixed2(f.retrans_segs_per_s)),
        metric("lost_retrans_per_sec", fixed2(f.lost_retrans_per_s)),
        metric("syn_retrans_per_sec", fixed2(f.syn_retrans_per_s)),
        metric("fast_retrans_per_sec", fixed2(f.fast_retrans_per_s)),
        metric("forward_retrans_per_sec", fixed2(f.forward_retrans_per_s)),
        metric("slowStart_retrans_per_sec", fixed2(f.slow_start_retrans_per_s)),
        metric("retrans_fail_per_sec", fixed2(f.retrans_fail_per_s)),
    };
  }
  if (f.has_rtt) body["tcpAverageRtt metric"] = fmt::format("{} us", f.average_rtt_us);
  body["os"] = f.os;

  ordered_json doc;
  doc[f.sender ? "ntttcps" : "ntttcpr"] = std::move(body);
  // Invalid UTF-8 (a hostname, uname) is replaced rather than thrown on.
  std::string text = doc.dump(4, ' ', false, nlohmann::json::error_handler_t::replace);
  return with_spaced_colons(text) + "\n";
}

}  // namespace xttcp
