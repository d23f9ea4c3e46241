// The spec's one list of fields, read by several views (docs/architecture.md): the JSON writer
// and reader (spec_json.cc: `v(key, field)` for every key, in the order it is written) and -V's
// settings block of the NTTTCP-for-Linux console (linux_flags.cc: the LinuxEcho rules a field
// carries after its key). A view ignores what it does not read. A new field is one line here.
#pragma once

#include <string>

#include "engine/report/linux_flags_echo.hh"
#include "engine/spec.hh"

namespace xttcp::spec_table {

using Side = LinuxEcho::Side;

inline std::string any_address(const TestSpec& s) { return s.layout.ipv6 ? "::" : "0.0.0.0"; }

// Every key of the spec, in the order the JSON has it. `v` is a view: `v(key, field, echo...)`,
// `v.when(...)`, `v.object_when(...)` and `v.present(...)` as spec_json.cc's Writer and Reader
// define them. The keys are flat, as format 1 has them (the parts of
// TestSpec are not in the JSON); the NTttcp-for-Windows options sit under "windows" with that
// grammar's names (docs/native-json.md).
template <class Spec, class Visitor>
void windows_fields(Spec& s, Visitor& v) {
  v("mappings", s.layout.mappings);
  v("async_buffers", s.io.outstanding);
  v("socket_recv_buffer", s.io.socket_recv_buffer);
  v("socket_send_buffer", s.io.socket_send_buffer);
  v("send_buffer_implied", s.io.send_buffer_implied);
  v("buffer_count", s.workload.buffer_count);
  v("count_timeout_s", s.workload.count_timeout_s);
  v("wait_timeout_ms", s.io.wait_timeout_ms);
  v("sync_port", s.control.port_assignment);
  v("sample_s", s.output.sample_s);
  v("numa_node", s.layout.numa_node);
  v("hide_per_thread", s.output.hide_per_thread);
  v("latency_measurement", s.io.time_each_call);
  v("verify_data", s.workload.verify_data);
  v("udp_unconnected", s.io.udp_unconnected);
  v("wait_all", s.io.wait_all);
  v("wsa", s.accepted.wsa);
  v("throttle_kBps", s.workload.thread_rate_kBps);
  v("udp_send_offload", s.io.udp_send_offload);
  v("udp_receive_coalescing", s.io.udp_receive_coalescing);
  v("no_stdio_buffer", s.accepted.no_stdio_buffer);
  v("xml_append", s.output.xml_append);
}

template <class Spec, class Visitor>
void spec_fields(Spec& s, Visitor& v) {
  v("role", s.role, LinuxEcho{.line = FlagsLine::role, .label = ""});
  v("address", s.layout.address,
    LinuxEcho{.line = FlagsLine::server_address,
              .label = "server address:\t\t\t ",
              .text = [](const TestSpec& t) {
                return t.layout.address.empty() ? any_address(t) : t.layout.address;
              }});
  v("protocol", s.workload.protocol,
    LinuxEcho{.line = FlagsLine::protocol, .label = "protocol:\t\t\t "});
  v("ipv6", s.layout.ipv6,
    LinuxEcho{.line = FlagsLine::domain, .label = "domain:\t\t\t\t ", .yes = "IPv6", .no = "IPv4"});
  v("ports", s.layout.ports,
    LinuxEcho{.line = FlagsLine::connections,
              .label = "connections:\t\t\t ",
              .side = Side::sender,
              .text =
                  [](const TestSpec& t) {
                    return std::to_string(t.layout.ports) + " X " +
                           std::to_string(t.layout.threads_per_port) + " X " +
                           std::to_string(t.layout.conns_per_thread);
                  }},
    LinuxEcho{.line = FlagsLine::ports, .label = "ports:\t\t\t\t ", .side = Side::receiver});
  v("threads_per_port", s.layout.threads_per_port);
  v("conns_per_thread", s.layout.conns_per_thread);
  v("base_port", s.layout.base_port,
    LinuxEcho{.line = FlagsLine::server_port, .label = "server port starting at:\t "});
  v("source_base_port", s.layout.source_base_port,
    LinuxEcho{.line = FlagsLine::client_port,
              .label = "client source port starting at:\t ",
              .side = Side::sender,
              .only_when_set = true});
  v("source_address", s.layout.source_address,
    LinuxEcho{.line = FlagsLine::client_address,
              .label = "client address:\t\t\t ",
              .side = Side::sender,
              .text = [](const TestSpec& t) {
                return t.layout.source_address.empty() ? any_address(t) : t.layout.source_address;
              }});
  v("mapping_cpu", s.layout.mapping_cpu,
    LinuxEcho{.line = FlagsLine::cpu_affinity, .label = "cpu affinity:\t\t\t ", .unset = "*"});
  v("mapping_text", s.layout.mapping_text);
  v("send_buffer", s.workload.send_buffer,
    LinuxEcho{.line = FlagsLine::send_buffer,
              .label = "sender socket buffer (bytes):\t ",
              .side = Side::sender});
  v("recv_buffer", s.workload.recv_buffer,
    LinuxEcho{.line = FlagsLine::recv_buffer,
              .label = "receiver socket buffer (bytes):\t ",
              .side = Side::receiver});
  v("rate_limit_bps", s.workload.rate_limit_bps,
    LinuxEcho{.line = FlagsLine::rate_limit,
              .label = "bandwidth limit (bits/sec):\t ",
              .side = Side::sender,
              .only_when_set = true});
  v("fq_rate_limit_bps", s.workload.fq_rate_limit_bps,
    LinuxEcho{.line = FlagsLine::fq_rate_limit,
              .label = "fq rate limit (bits/sec):\t ",
              .side = Side::sender,
              .only_when_set = true});
  v("no_delay", s.io.no_delay, LinuxEcho{.line = FlagsLine::no_delay, .label = "tcp nodelay:\t "});
  v("warmup_s", s.workload.warmup_s,
    LinuxEcho{.line = FlagsLine::warmup, .label = "test warm-up (sec):\t\t ", .unset = "no"});
  v("duration_s", s.workload.duration_s,
    LinuxEcho{
        .line = FlagsLine::duration, .label = "test duration (sec):\t\t ", .unset = "continuous"});
  v("cooldown_s", s.workload.cooldown_s,
    LinuxEcho{.line = FlagsLine::cooldown, .label = "test cool-down (sec):\t\t ", .unset = "no"});
  v("no_sync", s.control.no_sync, flag_line(FlagsLine::no_sync, "*** no sender/receiver synch"));
  v("multi_clients", s.control.multi_clients,
    LinuxEcho{.line = FlagsLine::multi_clients,
              .label = "multiple clients:\t\t ",
              .only_when_set = true});
  v("last_client", s.control.last_client,
    LinuxEcho{
        .line = FlagsLine::last_client, .label = "last client:\t\t\t ", .only_when_set = true});
  v("hold", s.control.hold,
    flag_line(FlagsLine::hold, "*** hold receiver always running", Side::receiver));
  v("daemonize", s.control.daemonize, flag_line(FlagsLine::daemon, "*** run as daemon"));
  v("use_epoll", s.accepted.use_epoll,
    flag_line(FlagsLine::use_epoll, "*** use epoll()", Side::receiver));
  // The doubled colons are the original's ("%s:" of a label that already ends in ':').
  v("log_file", s.output.log_file,
    LinuxEcho{.line = FlagsLine::log_file,
              .label = "capture console output to::\t ",
              .only_when_set = true});
  v("xml_file", s.output.xml_file,
    LinuxEcho{.line = FlagsLine::xml_file,
              .label = "save output to xml file::\t ",
              .only_when_set = true});
  v("json_file", s.output.json_file,
    LinuxEcho{.line = FlagsLine::json_file,
              .label = "save output to json file::\t ",
              .only_when_set = true});
  v("quiet", s.output.quiet,
    LinuxEcho{.line = FlagsLine::quiet,
              .label = "quiet mode:\t\t\t ",
              .yes = "enabled",
              .no = "disabled"});
  v("verbose", s.output.verbose,
    LinuxEcho{.line = FlagsLine::verbose,
              .label = "verbose mode:\t\t\t ",
              .yes = "enabled",
              .no = "disabled"});
  v("show_tcp_retrans", s.output.show_tcp_retrans,
    LinuxEcho{.line = FlagsLine::tcp_retrans, .label = "show system tcp retransmit:\t "});
  v("show_nic_packets", s.output.show_nic_packets,
    LinuxEcho{
        .line = FlagsLine::nic_packets, .label = "show packets for:\t\t ", .only_when_set = true});
  v("show_dev_interrupts", s.output.show_dev_interrupts,
    LinuxEcho{.line = FlagsLine::interrupts,
              .label = "show device interrupts for:\t ",
              .only_when_set = true});
  v("backend", s.backend);
  v("native_json_file", s.output.native_json_file);
  v("interval_s", s.output.interval_s);
  v("worker_threads", s.layout.worker_threads);
  v("pin_workers", s.layout.pin_workers);
  v("placement", s.placement.mode);
  v("nic", s.placement.nic);
  v("zerocopy", s.io.zerocopy);
  v("skip_rx_copy", s.io.skip_rx_copy);
  v("congestion", s.io.congestion);
  v("busy_poll_us", s.io.busy_poll_us);
  v("receive_mark", s.io.receive_mark);
  v.when(s.io.count_reads, "count_reads", s.io.count_reads);
  v("sqpoll", s.uring.sqpoll);
  v("udp_payload", s.workload.udp_payload);
  v("udp_gso", s.io.udp_gso);
  v("udp_gro", s.io.udp_gro);
  v.when(!s.io.udp_send_batching, "udp_send_batching", s.io.udp_send_batching);
  v("dpdk_args", s.dpdk.args);
  v("dpdk_port", s.dpdk.port);
  v("peer_mac", s.dpdk.peer_mac);
  v("connect_timeout_s", s.control.connect_timeout_s);
  v("wait_timeout_s", s.control.wait_timeout_s);
  v.when(s.control.max_cycle_s.has_value(), "max_cycle_s", s.control.max_cycle_s);
  v.when(!s.control.auth_key_file.empty(), "auth_key_file", s.control.auth_key_file);
  v.when(s.layout.one_port, "one_port", s.layout.one_port);
  v.when(s.workload.reverse, "reverse", s.workload.reverse);
  v.when(s.workload.bidir, "bidir", s.workload.bidir);
  // Written only when they say something: a list given, a Windows command line.
  v.when(!s.layout.source_addresses.empty(), "source_addresses", s.layout.source_addresses);
  v.when(s.output.csv_file.has_value(), "csv_file", s.output.csv_file);
  v.when(s.output.json_stream.has_value(), "json_stream", s.output.json_stream);
  v.object_when(s.access.restricted(), "access", [&](auto& inner) {
    inner("allow", s.access.allow);
    inner("max_clients", s.access.max_clients);
  });
  v.object_when(s.rr.on, "rr", [&](auto& inner) {
    inner.present(s.rr.on);  // the block's presence is --rr itself
    inner("depth", s.rr.depth);
    inner("response_size", s.rr.response_size);
    inner("delay_us", s.rr.delay_us);
  });
  v.object_when(s.repeat.count > 1, "repeat", [&](auto& inner) {
    inner("count", s.repeat.count);
    inner("pause_s", s.repeat.pause_s);
  });
  v.when(s.defaults != Defaults::xttcp, "defaults", s.defaults);
  const bool windows = s.dialect == Dialect::windows;
  v.when(s.dialect != Dialect::linux, "dialect", s.dialect);
  v.object_when(windows, "windows", [&](auto& inner) { windows_fields(s, inner); });
}

}  // namespace xttcp::spec_table
