#include "engine/report/native_json.hh"
#include "engine/report/linux_console.hh"

#include <gtest/gtest.h>

#include "tests/unit/report/golden.hh"
#include "tests/unit/report/sample_results.hh"
#include "tests/unit/report/windows_sample_results.hh"

namespace xttcp {
namespace {

void expect_same_latency(const std::optional<IoLatency>& a, const std::optional<IoLatency>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  EXPECT_EQ(a->calls, b->calls);
  EXPECT_EQ(a->average_ns, b->average_ns);
  EXPECT_EQ(a->min_ns, b->min_ns);
  EXPECT_EQ(a->max_ns, b->max_ns);
}

// Field-by-field equality of everything render_native_json writes.
void expect_same(const Result& a, const Result& b) {
  EXPECT_EQ(spec_to_json(a.spec), spec_to_json(b.spec));
  EXPECT_EQ(a.role, b.role);
  EXPECT_EQ(a.tool_version, b.tool_version);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.host.hostname, b.host.hostname);
  EXPECT_EQ(a.host.os, b.host.os);
  EXPECT_EQ(a.host.kernel, b.host.kernel);
  EXPECT_EQ(a.host.cpu_model, b.host.cpu_model);
  EXPECT_EQ(a.host.cpu_cores, b.host.cpu_cores);
  EXPECT_EQ(a.host.cpu_mhz, b.host.cpu_mhz);
  EXPECT_EQ(a.cpu_mapping, b.cpu_mapping);
  EXPECT_EQ(a.start_time, b.start_time);
  EXPECT_EQ(a.negotiated_cycle_s, b.negotiated_cycle_s);
  EXPECT_EQ(a.duration_s, b.duration_s);  // exact: doubles are written round-trippable
  EXPECT_EQ(a.cut_short, b.cut_short);
  EXPECT_EQ(a.stop.cause, b.stop.cause);
  EXPECT_EQ(a.stop.message, b.stop.message);
  EXPECT_EQ(a.total_bytes, b.total_bytes);
  EXPECT_EQ(a.total_operations, b.total_operations);
  EXPECT_EQ(a.threads_created, b.threads_created);
  EXPECT_EQ(a.connections_tested, b.connections_tested);
  ASSERT_EQ(a.threads.size(), b.threads.size());
  for (std::size_t i = 0; i < a.threads.size(); ++i) {
    EXPECT_EQ(a.threads[i].index, b.threads[i].index);
    EXPECT_EQ(a.threads[i].seconds, b.threads[i].seconds);
    EXPECT_EQ(a.threads[i].bytes, b.threads[i].bytes);
    expect_same_latency(a.threads[i].latency, b.threads[i].latency);
  }
  expect_same_latency(a.latency, b.latency);
  ASSERT_EQ(a.intervals.size(), b.intervals.size());
  for (std::size_t i = 0; i < a.intervals.size(); ++i) {
    EXPECT_EQ(a.intervals[i].start_s, b.intervals[i].start_s);
    EXPECT_EQ(a.intervals[i].seconds, b.intervals[i].seconds);
    EXPECT_EQ(a.intervals[i].bytes, b.intervals[i].bytes);
  }
  ASSERT_EQ(a.connections.size(), b.connections.size());
  for (std::size_t i = 0; i < a.connections.size(); ++i) {
    const ConnectionStats& x = a.connections[i];
    const ConnectionStats& y = b.connections[i];
    EXPECT_EQ(x.local, y.local);
    EXPECT_EQ(x.remote, y.remote);
    EXPECT_EQ(x.bytes, y.bytes);
    EXPECT_EQ(x.rtt_us, y.rtt_us);
    EXPECT_EQ(x.rttvar_us, y.rttvar_us);
    EXPECT_EQ(x.total_retrans, y.total_retrans);
    EXPECT_EQ(x.snd_cwnd, y.snd_cwnd);
    EXPECT_EQ(x.pmtu, y.pmtu);
    EXPECT_EQ(x.delivery_rate_bps, y.delivery_rate_bps);
  }
  EXPECT_EQ(a.cpu.user, b.cpu.user);
  EXPECT_EQ(a.cpu.system, b.cpu.system);
  EXPECT_EQ(a.cpu.idle, b.cpu.idle);
  EXPECT_EQ(a.cpu.iowait, b.cpu.iowait);
  EXPECT_EQ(a.cpu.softirq, b.cpu.softirq);
  EXPECT_EQ(a.cpu.cycles_per_byte, b.cpu.cycles_per_byte);
  EXPECT_EQ(a.cpu.process_busy, b.cpu.process_busy);
  EXPECT_EQ(a.cpu.process_user_s, b.cpu.process_user_s);
  EXPECT_EQ(a.cpu.process_system_s, b.cpu.process_system_s);
  EXPECT_EQ(a.cpu.softirq_threads_s, b.cpu.softirq_threads_s);
  EXPECT_EQ(a.tcp.retrans_segs, b.tcp.retrans_segs);
  EXPECT_EQ(a.tcp.lost_retransmit, b.tcp.lost_retransmit);
  EXPECT_EQ(a.tcp.syn_retrans, b.tcp.syn_retrans);
  EXPECT_EQ(a.tcp.fast_retrans, b.tcp.fast_retrans);
  EXPECT_EQ(a.tcp.forward_retrans, b.tcp.forward_retrans);
  EXPECT_EQ(a.tcp.slow_start_retrans, b.tcp.slow_start_retrans);
  EXPECT_EQ(a.tcp.retrans_fail, b.tcp.retrans_fail);
  EXPECT_EQ(a.tcp_info_retransmits, b.tcp_info_retransmits);
  EXPECT_EQ(a.tcp_average_rtt_us, b.tcp_average_rtt_us);
  ASSERT_EQ(a.nic.has_value(), b.nic.has_value());
  if (a.nic) {
    EXPECT_EQ(a.nic->interface_name, b.nic->interface_name);
    EXPECT_EQ(a.nic->tx_packets, b.nic->tx_packets);
    EXPECT_EQ(a.nic->rx_packets, b.nic->rx_packets);
  }
  ASSERT_EQ(a.interrupts.has_value(), b.interrupts.has_value());
  if (a.interrupts) {
    EXPECT_EQ(a.interrupts->pattern, b.interrupts->pattern);
    EXPECT_EQ(a.interrupts->total, b.interrupts->total);
  }
  ASSERT_EQ(a.peer != nullptr, b.peer != nullptr);
  if (a.peer) {
    EXPECT_EQ(render_native_json(*a.peer), render_native_json(*b.peer));
  }
}

Result full_sender() {
  Result r = test::sample_sender_verbose();
  r.spec.layout.mapping_cpu = 2;
  r.spec.layout.worker_threads = 4;
  r.spec.output.native_json_file = "out.json";
  r.spec.workload.rate_limit_bps = 10'000'000'000ull;
  r.spec.layout.source_address = "127.0.0.2";
  r.spec.output.show_dev_interrupts = "virtio";
  r.interrupts = Interrupts{"virtio", 12345};
  r.tcp_info_retransmits = 7;
  r.spec.io.zerocopy = ZeroCopy::automatic;
  r.spec.backend_why =  // --backend auto, settled by a record of xttcp calibrate
      "io_uring: 1.15x epoll's throughput for 1 TCP connection, no receive copy, measured on "
      "this host on 2026-12-06 ('xttcp calibrate' measures again)";
  r.zerocopy = ZeroCopyStats{1000, 990, 985, true};
  r.notes = {"zero-copy: 99.49 % of sends were copied by the kernel; switched to plain send"};
  ConnectionStats connection;
  connection.local = "127.0.0.1:40000";
  connection.remote = "127.0.0.1:25001";
  connection.bytes = 19874971648;
  connection.rtt_us = 183;
  connection.zerocopy = ZeroCopyStats{1000, 990, 985, true};
  r.connections.push_back(connection);
  // TCP_INFO per interval of the one watched connection (and one more left out).
  r.watched_connections = {{0, connection.local, connection.remote}};
  r.connections_not_watched = 1;
  for (size_t k = 0; k < r.intervals.size(); ++k) {
    ConnectionInterval c;
    c.bytes = r.intervals[k].bytes - 1000;
    c.rtt_us = 180 + static_cast<uint32_t>(k);
    c.rttvar_us = 20;
    c.snd_cwnd = 300;
    c.retransmits = k == 1 ? 3 : 0;
    c.delivery_rate_bps = 39'000'000'000;
    c.busy_us = 500'000;
    c.sndbuf_limited_us = 120'000;
    r.intervals[k].connections.push_back(c);
  }
  r.host.nic = NicIdentity{"eth0", "ena", "2.13.3g", "", "0000:00:05.0", 9001};
  r.host.nic->channels = "rx 0 tx 0 combined 8 other 1";
  r.host.nic->rings = "rx 1024 tx 1024";
  r.host.nic->coalescing =
      "rx-usecs 0 tx-usecs 64 rx-frames 0 tx-frames 0 adaptive-rx on adaptive-tx off";
  r.host.nic->offloads = "tso on, gso on, gro on, lro off, rx-checksum on, tx-checksum on";
  r.host.nic->queue_irqs = "8 queue IRQs on CPUs 0,2,4,6";
  r.peer = std::make_shared<const Result>(test::sample_receiver());
  r.cut_short = true;  // Ctrl+C: the figures are partial, and say so
  r.stop = {StopCause::interrupted, "interrupted by signal"};
  return r;
}

TEST(NativeJson, Golden) {
  test::expect_golden("native-sender.json", render_native_json(full_sender()));
}

// --allow / --max-clients: the spec's access block and who was turned away, round-tripped.
TEST(NativeJson, AccessGolden) {
  Result r = test::sample_receiver();
  r.spec.access = {{"10.0.0.0/8", "192.0.2.7/32"}, 4};
  r.access = AccessResult{2, 3, 100, 1};
  r.notes.push_back(
      "refused so far: 2 sync connection(s), 3 data connection(s), 100 datagram(s) "
      "from senders not served here (--allow 10.0.0.0/8,192.0.2.7/32, "
      "--max-clients 4: 1 over it)");
  const std::string text = render_native_json(r);
  test::expect_golden("native-receiver-access.json", text);
  auto back = parse_native_json(text);
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_TRUE(back->access);
  EXPECT_EQ(back->access->refused_datagrams, 100u);
  EXPECT_EQ(back->access->over_max_clients, 1u);
  EXPECT_EQ(back->spec.access.allow, r.spec.access.allow);
  EXPECT_EQ(back->spec.access.max_clients, 4u);
}

// NTttcp-for-Windows -lm: per-thread and overall call latency, only when measured.
Result windows_sender_with_latency() {
  Result r = test::sample_windows_sender_console();
  r.spec = test::windows_spec("-s -m 2,*,127.0.0.1 -t 5 -lm");
  r.threads[0].latency = IoLatency{12000.25, 800, 250000, 40000};
  r.threads[1].latency = IoLatency{14000.75, 900, 300000, 60000};
  r.latency = IoLatency{13200.55, 800, 300000, 100000};
  return r;
}

// Regenerate the golden files with XTTCP_UPDATE_GOLDEN=1.
TEST(NativeJson, LatencyGolden) {
  const std::string text = render_native_json(windows_sender_with_latency());
  test::expect_golden("native-windows-sender-latency.json", text);
  auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["summary"]["latency"]["calls"], 100000);
  EXPECT_EQ(doc["threads"][1]["latency"]["max_ns"], 300000.0);
  // Not measured: no latency keys at all.
  const std::string plain = render_native_json(test::sample_windows_sender_console());
  EXPECT_EQ(plain.find("latency\""), std::string::npos);
}

// A Linux run measures its host's ksoftirqd threads; the goldens' results predate the figure.
Result sender_with_softirq_threads() {
  Result r = full_sender();
  r.cpu.softirq_threads_s = 0.42;
  return r;
}

TEST(NativeJson, SoftirqThreadsGolden) {
  test::expect_golden("native-sender-softirq-threads.json",
                      render_native_json(sender_with_softirq_threads()));
}

TEST(NativeJson, SoftirqThreadsNullOrAbsentIsNotMeasured) {
  auto doc = nlohmann::json::parse(render_native_json(sender_with_softirq_threads()));
  doc["cpu"]["softirq_threads_s"] = nullptr;
  Expected<Result> parsed = parse_native_json(doc.dump());
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_FALSE(parsed->cpu.softirq_threads_s);
  doc["cpu"].erase("softirq_threads_s");
  parsed = parse_native_json(doc.dump());
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_FALSE(parsed->cpu.softirq_threads_s);
}

TEST(NativeJson, RoundTripsEverything) {
  for (const Result& original : {test::sample_receiver(), full_sender(),
                                 windows_sender_with_latency(), sender_with_softirq_threads()}) {
    std::string text = render_native_json(original);
    Expected<Result> parsed = parse_native_json(text);
    ASSERT_TRUE(parsed) << parsed.error().message;
    expect_same(original, *parsed);
    EXPECT_EQ(text, render_native_json(*parsed));  // the peer object included
  }
}

TEST(NativeJson, PeerIsEmbeddedAsAnObject) {
  auto doc = nlohmann::json::parse(render_native_json(full_sender()));
  ASSERT_TRUE(doc["peer"].is_object());
  EXPECT_EQ(doc["peer"]["role"], "receiver");
  EXPECT_EQ(doc["peer"]["summary"]["total_bytes"], 19870252526u);
  Expected<Result> peer = parse_native_json(doc["peer"].dump());
  ASSERT_TRUE(peer) << peer.error().message;
  EXPECT_EQ(peer->total_bytes, 19870252526u);
}

TEST(NativeJson, ThePeerFrameIsCompactAndCarriesAtMostSoManyConnections) {
  Result sender = full_sender();
  sender.peer.reset();
  ASSERT_FALSE(sender.connections.empty());
  const ConnectionStats one = sender.connections.front();
  sender.connections.assign(peer_frame_connections + 500, one);
  const std::string frame = render_peer_frame(sender);
  EXPECT_EQ(frame.find('\n'), std::string::npos);
  Expected<Result> got = parse_peer_result(frame, Role::sender);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->connections.size(), peer_frame_connections);
  EXPECT_EQ(got->total_bytes, sender.total_bytes);
  ASSERT_FALSE(got->notes.empty());
  EXPECT_NE(got->notes.back().find("the first 1024 of 1524"), std::string::npos)
      << got->notes.back();
  // Few connections: the whole result, as in the file, but for TCP_INFO per interval (megabytes
  // per minute), which stays in each end's own file.
  Result few = full_sender();
  few.peer.reset();
  Expected<Result> all = parse_peer_result(render_peer_frame(few), Role::sender);
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_FALSE(few.intervals.empty());
  EXPECT_FALSE(few.intervals[0].connections.empty());
  for (const IntervalSample& interval : all->intervals) EXPECT_TRUE(interval.connections.empty());
  EXPECT_TRUE(all->watched_connections.empty());
  for (IntervalSample& interval : few.intervals) interval.connections.clear();
  few.watched_connections.clear();
  few.connections_not_watched = 0;
  expect_same(few, *all);
}

// --bidir: the other direction's result rides in the file with its own peer, and in the peer
// frame without it; it is the other role's, one level deep.
TEST(NativeJson, TheOtherDirectionRoundTripsWithItsPeerAndRidesInThePeerFrame) {
  Result sender = full_sender();
  sender.spec.workload.bidir = true;
  sender.spec.layout.one_port = true;
  Result back = test::sample_receiver();
  back.spec.workload.bidir = true;
  back.spec.layout.one_port = true;
  back.peer = std::make_shared<const Result>(test::sample_sender_verbose());
  sender.other_direction = std::make_shared<const Result>(back);
  const std::string text = render_native_json(sender);
  test::expect_golden("native-sender-bidir.json", text);
  Expected<Result> parsed = parse_native_json(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->other_direction);
  EXPECT_EQ(parsed->other_direction->role, Role::receiver);
  ASSERT_TRUE(parsed->other_direction->peer);
  EXPECT_EQ(text, render_native_json(*parsed));

  sender.peer.reset();
  Expected<Result> framed = parse_peer_result(render_peer_frame(sender), Role::sender);
  ASSERT_TRUE(framed) << framed.error().message;
  ASSERT_TRUE(framed->other_direction);
  EXPECT_EQ(framed->other_direction->total_bytes, back.total_bytes);
  EXPECT_FALSE(framed->other_direction->peer);  // a peer's result holds no peer of its own

  // The same role both ways is no other direction.
  EXPECT_TRUE(parsed->spec.workload.bidir && parsed->other_direction->spec.workload.bidir);

  Result same = full_sender();
  same.other_direction = std::make_shared<const Result>(full_sender());
  Expected<Result> refused = parse_native_json(render_native_json(same));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("other_direction"), std::string::npos)
      << refused.error().message;
}

TEST(NativeJson, SelfDescribing) {
  auto doc = nlohmann::json::parse(render_native_json(test::sample_receiver()));
  EXPECT_EQ(doc["schema"], "xttcp-result");
  EXPECT_EQ(doc["schema_version"], native_schema_version);
  EXPECT_EQ(doc["tool"]["name"], "xttcp");
  EXPECT_TRUE(doc["summary"]["throughput_bps"].is_number());
  EXPECT_NEAR(doc["summary"]["throughput_gbps"].get<double>(), 15.895, 0.001);
  EXPECT_FALSE(doc.contains("peer"));
  EXPECT_FALSE(doc.contains("interrupts"));
  EXPECT_TRUE(doc["tcp"]["average_rtt_us"].is_null());
}

// NTttcp for Windows -m mappings may name several hosts: each thread row says its own.
TEST(NativeJson, WindowsThreadsNameTheirMappingsHost) {
  Result r = test::sample_receiver();
  r.spec.role = Role::sender;
  r.spec.dialect = Dialect::windows;
  r.spec.layout.mappings = {{1, std::nullopt, "127.0.0.1"}, {2, std::nullopt, "127.0.0.2"}};
  r.threads.resize(3);
  for (uint32_t i = 0; i < 3; ++i) r.threads[i].index = i;
  auto doc = nlohmann::json::parse(render_native_json(r));
  ASSERT_EQ(doc["threads"].size(), 3u);
  EXPECT_EQ(doc["threads"][0]["host"], "127.0.0.1");
  EXPECT_EQ(doc["threads"][1]["host"], "127.0.0.2");
  EXPECT_EQ(doc["threads"][2]["host"], "127.0.0.2");
  // Re-read (a peer's result), the hosts come back from spec.layout.mappings.
  Expected<Result> parsed = parse_native_json(render_native_json(r));
  ASSERT_TRUE(parsed) << parsed.error().message;
  auto again = nlohmann::json::parse(render_native_json(*parsed));
  EXPECT_EQ(again["threads"], doc["threads"]);
  auto linux_doc = nlohmann::json::parse(render_native_json(test::sample_receiver()));
  EXPECT_FALSE(linux_doc["threads"][0].contains("host")) << "spec.address says it already";
}

TEST(NativeJson, RejectsOtherDocuments) {
  EXPECT_FALSE(parse_native_json("not json"));
  EXPECT_FALSE(parse_native_json("[]"));
  EXPECT_FALSE(parse_native_json(R"({"schema":"other","schema_version":1})"));
  auto newer = parse_native_json(R"({"schema":"xttcp-result","schema_version":2})");
  ASSERT_FALSE(newer);
  EXPECT_NE(newer.error().message.find("schema_version"), std::string::npos);
  auto wrong = parse_native_json(
      R"({"schema":"xttcp-result","schema_version":1,"summary":{"total_bytes":"12"}})");
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().message,
            "native result: summary.total_bytes: expected a non-negative integer");
}

// An interval's jitter is stored in whole nanoseconds (uint64): a value no receiver measures
// (negative, or past 2^64 ns) is refused, naming the key, never converted (that was undefined
// behaviour, found by tests/fuzz/native_json).
TEST(NativeJson, RejectsAJitterNoReceiverMeasures) {
  for (const char* jitter : {"-5", "1e300", "1.9e13"}) {
    auto read = parse_native_json(
        std::string(R"({"schema":"xttcp-result","schema_version":1,"intervals":[{"jitter_ms":)") +
        jitter + "}]}");
    ASSERT_FALSE(read) << jitter;
    EXPECT_EQ(read.error().message,
              "native result: intervals[].jitter_ms: expected milliseconds from 0 to 1.8e13")
        << jitter;
  }
  auto fine = parse_native_json(
      R"({"schema":"xttcp-result","schema_version":1,"intervals":[{"jitter_ms":0.0025}]})");
  ASSERT_TRUE(fine) << fine.error().message;
  ASSERT_EQ(fine->intervals.size(), 1u);
  EXPECT_EQ(fine->intervals[0].jitter_ns, 2500u);
}

// An NTttcp-for-Windows sender with -sam 1 over a 2 s window: the spec echoes the Windows
// options, the totals are the window's, and "samples" holds each sample's own figures.
Result windows_sender_with_samples() {
  Result r = test::windows_base(
      "-s -m 2,*,127.0.0.1 1,0,127.0.0.1 -t 2 -wu 1 -cd 1 -sam 1 -a 4 -w -rb 1m -sp -to 5000 "
      "-thr 100 -na 0 -hpt -xml out.xml",
      2.0005);
  r.spec.output.native_json_file = "out.json";
  r.cpu_mapping = "worker 0 -> cpus 0-1, worker 1 -> cpu 0";
  r.start_time = "2025-12-01T10:00:00Z";
  r.negotiated_cycle_s = 4;
  r.threads_created = 3;
  r.connections_tested = 3;
  r.total_bytes = 3000000;
  r.total_operations = 300;
  r.threads = {test::thread_row(0, 2.0005, 1000000, std::nullopt),
               test::thread_row(1, 2.0005, 1000000, std::nullopt),
               test::thread_row(2, 2.0005, 1000000, std::nullopt)};
  r.transport = TransportCounters{2100, 1050, 1};
  r.interrupts = Interrupts{"", 4000};
  r.dpcs = 900;
  test::set_cpu(r, 40.0, 3.5);
  r.tcp.retrans_segs = 2;
  for (int i = 0; i < 2; ++i) {
    Result sample = test::windows_base(
        "-s -m 2,*,127.0.0.1 1,0,127.0.0.1 -t 2 -wu 1 -cd 1 -sam 1 -a 4 -w -rb 1m -sp -to 5000 "
        "-thr 100 -na 0 -hpt -xml out.xml",
        i == 0 ? 1.0002 : 1.0003);
    sample.spec = r.spec;
    sample.start_time = i == 0 ? "2025-12-01T10:00:00Z" : "2025-12-01T10:00:01Z";
    sample.total_bytes = i == 0 ? 1400000 : 1600000;
    sample.total_operations = i == 0 ? 140 : 160;
    const uint64_t row = sample.total_bytes / 3;
    sample.threads = {
        test::thread_row(0, sample.duration_s, row, std::nullopt),
        test::thread_row(1, sample.duration_s, row, std::nullopt),
        test::thread_row(2, sample.duration_s, sample.total_bytes - 2 * row, std::nullopt)};
    sample.transport =
        TransportCounters{1000u + 100u * i, 500u + 50u * i, static_cast<uint64_t>(i)};
    sample.interrupts = Interrupts{"", 2000};
    sample.dpcs = 450;
    test::set_cpu(sample, 38.0 + 4 * i, 3.25 + 0.5 * i);
    sample.tcp.retrans_segs = static_cast<uint64_t>(1 + i);
    r.samples.push_back(sample);
  }
  return r;
}

TEST(NativeJson, WindowsDialectGolden) {
  test::expect_golden("native-windows-sender-samples.json",
                      render_native_json(windows_sender_with_samples()));
}

TEST(NativeJson, WindowsOptionsAndSamplesRoundTrip) {
  const Result original = windows_sender_with_samples();
  const std::string text = render_native_json(original);
  auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["spec"]["dialect"], "windows");
  EXPECT_EQ(doc["spec"]["windows"]["sample_s"], 1);
  EXPECT_EQ(doc["spec"]["windows"]["numa_node"], 0);
  EXPECT_EQ(doc["spec"]["windows"]["mappings"].size(), 2u);
  EXPECT_TRUE(doc["spec"]["windows"]["mappings"][0]["cpu"].is_null());
  EXPECT_EQ(doc["spec"]["windows"]["mappings"][1]["cpu"], 0);
  EXPECT_EQ(doc["spec"]["windows"]["socket_recv_buffer"], 1048576);
  EXPECT_EQ(doc["spec"]["windows"]["async_buffers"], 4);
  EXPECT_EQ(doc["transport"]["packets_sent"], 2100);
  EXPECT_EQ(doc["dpcs"], 900);
  ASSERT_EQ(doc["samples"].size(), 2u);
  EXPECT_EQ(doc["samples"][1]["index"], 1);
  EXPECT_EQ(doc["samples"][1]["summary"]["total_bytes"], 1600000);
  EXPECT_EQ(doc["samples"][1]["transport"]["errors"], 1);
  EXPECT_FALSE(doc["samples"][1].contains("connections"));

  Expected<Result> parsed = parse_native_json(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  expect_same(original, *parsed);
  ASSERT_EQ(parsed->samples.size(), 2u);
  EXPECT_EQ(parsed->samples[0].total_bytes, 1400000u);
  EXPECT_EQ(parsed->samples[1].duration_s, 1.0003);
  EXPECT_EQ(parsed->spec.layout.numa_node, std::optional<uint32_t>(0));
  EXPECT_EQ(text, render_native_json(*parsed));
}

// backend_choice: only when auto settled the backend (a named one has no reason to give).
TEST(NativeJson, BackendChoiceIsWrittenOnlyForAutoAndReadBack) {
  Result r = test::sample_receiver();
  EXPECT_FALSE(nlohmann::json::parse(render_native_json(r)).contains("backend_choice"));
  r.spec.backend_why = "epoll: the rule for this build (docs/data-paths.md)";
  const auto doc = nlohmann::json::parse(render_native_json(r));
  EXPECT_EQ(doc["backend_choice"]["asked"], "auto");
  EXPECT_EQ(doc["backend_choice"]["why"], r.spec.backend_why);
  auto parsed = parse_native_json(render_native_json(r));
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->spec.backend_why, r.spec.backend_why);
}

TEST(NativeJson, PlacementIsWrittenWhenARunRecordedItAndReadBack) {
  Result r = full_sender();
  EXPECT_FALSE(nlohmann::json::parse(render_native_json(r)).contains("placement"));
  r.placement = {"avoid-irq", "spread", "avoid-irq asked but lo has no RX queue interrupt known"};
  auto doc = nlohmann::json::parse(render_native_json(r));
  EXPECT_EQ(doc["placement"]["asked"], "avoid-irq");
  EXPECT_EQ(doc["placement"]["used"], "spread");
  Expected<Result> parsed = parse_native_json(doc.dump());
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->placement.asked, "avoid-irq");
  EXPECT_EQ(parsed->placement.used, "spread");
  EXPECT_EQ(parsed->placement.why, r.placement.why);
}

// issue 14: the source ports chosen for the receiver's RSS and the NIC's queues over the window.
Result sender_with_queues() {
  Result r = full_sender();
  SourcePortSpread spread;
  spread.spread = true;
  spread.why = "source ports chosen by the Toeplitz hash of eth1's key and 128-entry table";
  spread.nic = "eth1";
  spread.flow_type = "tcp4";
  spread.queues = 4;
  spread.flows_per_queue = {1, 1, 0, 0};
  spread.flow_queues = {0, 1};
  spread.flow_ports = {47191, 47209};
  r.source_ports = spread;
  QueueWindow w;
  w.nic = "eth1";
  w.driver = "ena";
  w.queues_source = "ethtool";
  w.queues = {{0, 90000, 135000000, 4100, 270600}, {1, 30000, 45000000, 4000, 264000}};
  w.rx_imbalance = 1.5;
  w.tx_imbalance = 1.0125;
  w.irqs = {{40, "combined", 0, {12, 3400}}, {41, "combined", 1, {1100, 7}}};
  w.net_rx_softirqs = {1300, 3500};
  w.net_tx_softirqs = {20, 30};
  // cpu1 spends 90 % in softirq: the queues' IRQ CPU is the bottleneck (docs/topology.md).
  w.cpus = {{0, 200, 0.25, 0.05, 0.1, 0, 0.1, 0}, {1, 200, 0.985, 0.02, 0.06, 0.005, 0.9, 0}};
  w.busiest_cpu = 1;
  r.queue_window = w;
  SpreadCheck check;  // as check_spread() sets it from the peer's window
  check.measure = "rx_packets";
  check.predicted_share = {0.5, 0.5, 0, 0};
  check.measured_share = {0.75, 0.25, 0, 0};
  check.widest_queue = 0;
  check.widest_gap = 0.25;
  r.spread_check = check;
  return r;
}

TEST(NativeJson, SourcePortsAndQueueWindowGoldenAndReadBack) {
  const Result r = sender_with_queues();
  const std::string text = render_native_json(r);
  test::expect_golden("native-sender-queues.json", text);
  Expected<Result> parsed = parse_native_json(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->source_ports && parsed->queue_window);
  EXPECT_EQ(parsed->source_ports->flow_ports, r.source_ports->flow_ports);
  EXPECT_EQ(parsed->queue_window->queues[1].rx_bytes, 45000000u);
  EXPECT_EQ(parsed->queue_window->queues_source, "ethtool");
  EXPECT_EQ(parsed->queue_window->irqs[0].per_cpu, r.queue_window->irqs[0].per_cpu);
  ASSERT_EQ(parsed->queue_window->cpus.size(), 2u);
  const CpuBusy& cpu1 = parsed->queue_window->cpus[1];
  EXPECT_EQ(cpu1.cpu, 1u);
  EXPECT_EQ(cpu1.ticks, 200u);
  EXPECT_EQ(cpu1.busy, 0.985);
  EXPECT_EQ(cpu1.user, 0.02);
  EXPECT_EQ(cpu1.system, 0.06);
  EXPECT_EQ(cpu1.irq, 0.005);
  EXPECT_EQ(cpu1.softirq, 0.9);
  EXPECT_EQ(cpu1.steal, 0.0);
  EXPECT_EQ(parsed->queue_window->busiest_cpu, std::optional<uint32_t>(1));
  EXPECT_EQ(parsed->queue_window->cpus_unavailable, "");
  ASSERT_TRUE(parsed->spread_check);
  EXPECT_EQ(parsed->spread_check->measured_share, r.spread_check->measured_share);
  EXPECT_EQ(parsed->spread_check->widest_gap, 0.25);
  EXPECT_EQ(text, render_native_json(*parsed));

  Result verbose = r;
  verbose.spec.output.verbose = true;
  std::string console;
  for (const std::string& line : xttcp_extra_lines(verbose)) console += line + "\n";
  test::expect_golden("console-queues-verbose.txt", console);
}

// A CPU's share outside 0..1, or more CPUs than the kernel can have, is refused by name.
TEST(NativeJson, RejectsACpuShareOutOfRange) {
  const std::string head = R"({"schema":"xttcp-result","schema_version":1,"queue_window":)";
  for (const char* share : {"1.5", "-0.1"}) {
    auto read =
        parse_native_json(head + R"({"cpus":[{"cpu":0,"ticks":10,"softirq":)" + share + "}]}}");
    ASSERT_FALSE(read) << share;
    EXPECT_EQ(read.error().message,
              "native result: queue_window.cpus[].softirq: expected a share between 0 and 1");
  }
  std::string many = head + R"({"cpus":[)";
  for (int cpu = 0; cpu <= 8192; ++cpu)
    many += (cpu ? R"(,{"cpu":)" : R"({"cpu":)") + std::to_string(cpu) + "}";
  auto read = parse_native_json(many + "]}}");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().message, "native result: queue_window.cpus: more than 8192 CPUs");
  auto absent = parse_native_json(head + R"({"nic":"eth1"}})");
  ASSERT_TRUE(absent) << absent.error().message;
  EXPECT_TRUE(absent->queue_window->cpus.empty());  // a result written before the CPUs were
  EXPECT_FALSE(absent->queue_window->busiest_cpu);
}

TEST(NativeJson, LinuxDialectHasNoWindowsKeys) {
  auto doc = nlohmann::json::parse(render_native_json(full_sender()));
  EXPECT_FALSE(doc["spec"].contains("dialect"));
  EXPECT_FALSE(doc["spec"].contains("windows"));
  EXPECT_FALSE(doc.contains("samples"));
  EXPECT_FALSE(doc.contains("transport"));
}

TEST(SpecJson, DefaultsRoundTripAndEveryFieldIsThere) {
  TestSpec defaults;
  auto j = spec_to_json(defaults);
  // One key per TestSpec field (placement has two: "placement" and "nic"): update with TestSpec.
  EXPECT_EQ(j.size(), 55u);
  EXPECT_EQ(j["ports"], 16);
  EXPECT_TRUE(j["mapping_cpu"].is_null());
  Expected<TestSpec> back = spec_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(spec_to_json(*back), j);
}

// Every field away from its default: what is written is read back (one table of fields drives
// both directions, engine/report/spec_json.cc).
TEST(SpecJson, EveryFieldRoundTrips) {
  TestSpec s;
  s.role = Role::sender;
  s.dialect = Dialect::windows;
  s.backend = "epoll";
  s.workload = {Protocol::udp, 1000, 2000, 3, 4, 5, 6, 7, 8, 9u, 10, UdpPayload::compat, true};
  s.layout.address = "10.0.0.1";
  s.layout.ipv6 = true;
  s.layout.ports = 2;
  s.layout.threads_per_port = 3;
  s.layout.conns_per_thread = 4;
  s.layout.base_port = 6001;
  s.layout.source_base_port = 7001;
  s.layout.source_address = "10.0.0.2";
  s.layout.source_addresses = {"10.0.0.2", "10.0.0.3"};
  s.layout.mapping_cpu = 1;
  s.layout.mapping_text = "2,1,10.0.0.1";
  s.layout.mappings = {{2, 1, "10.0.0.1"}, {1, std::nullopt, "10.0.0.4"}};
  s.layout.worker_threads = 2;
  s.layout.pin_workers = true;
  s.layout.numa_node = 0;
  s.layout.one_port = true;
  s.workload.reverse = true;
  s.workload.bidir = true;
  s.io = {true,    ZeroCopy::automatic,
          false,   false,
          false,   4,
          1 << 20, 0,
          true,    true,
          true,    1400,
          true,    true,
          5000,    false};
  s.defaults = Defaults::ntttcp;
  s.control = {true, true, true, true, true, true, 3, 4};
  s.output = {"a.log", "a.xml",  "a.json", "n.json", true, true, true,
              "eth0",  "virtio", 0.25,     2,        true, false};
  s.uring.sqpoll = true;
  s.dpdk = {"--no-pci", "0", "02:00:00:00:00:01"};
  s.accepted = {true, true, true};
  s.placement = {PlacementMode::avoid_irq, "eth0"};
  s.access = {{"10.0.0.0/8"}, 3};
  s.rr = {true, 8, 256u, 100};
  s.repeat = {3, 0.5};
  const nlohmann::ordered_json j = spec_to_json(s);
  Expected<TestSpec> back = spec_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(spec_to_json(*back), j);
  EXPECT_EQ(back->layout.source_addresses, s.layout.source_addresses);
  EXPECT_EQ(j["one_port"], true);
  EXPECT_EQ(j["reverse"], true);
  EXPECT_TRUE(back->layout.one_port);
  EXPECT_TRUE(back->workload.reverse);
  EXPECT_EQ(j["bidir"], true);
  EXPECT_TRUE(back->workload.bidir);
  EXPECT_EQ(back->io.outstanding, 4u);
  EXPECT_EQ(back->control.port_assignment, true);
  EXPECT_EQ(back->defaults, Defaults::ntttcp);
  EXPECT_FALSE(back->io.udp_send_batching);
}

TEST(SpecJson, PlacementAndNicRoundTripAndABadModeIsNamed) {
  TestSpec spec;
  spec.placement = {PlacementMode::irq_sibling, "eth1"};
  auto j = spec_to_json(spec);
  EXPECT_EQ(j["placement"], "irq-sibling");
  EXPECT_EQ(j["nic"], "eth1");
  Expected<TestSpec> back = spec_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->placement.mode, PlacementMode::irq_sibling);
  EXPECT_EQ(back->placement.nic, "eth1");
  auto bad = spec_from_json(nlohmann::json::parse(R"({"placement":"nearby"})"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("spec.placement"), std::string::npos) << bad.error().message;
}

TEST(SpecJson, MissingKeysKeepDefaultsAndBadTypesAreNamed) {
  auto partial = spec_from_json(nlohmann::json::parse(R"({"role":"sender","ports":2})"));
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->role, Role::sender);
  EXPECT_EQ(partial->layout.ports, 2u);
  EXPECT_EQ(partial->layout.threads_per_port, defaults::threads_per_port);

  auto bad_port = spec_from_json(nlohmann::json::parse(R"({"base_port":70000})"));
  ASSERT_FALSE(bad_port);
  EXPECT_EQ(bad_port.error().message, "spec JSON: spec.base_port: value out of range");
  auto bad_role = spec_from_json(nlohmann::json::parse(R"({"role":"both"})"));
  ASSERT_FALSE(bad_role);
  EXPECT_NE(bad_role.error().message.find("spec.role"), std::string::npos);
  EXPECT_FALSE(spec_from_json(nlohmann::json::parse("[1]")));
  auto bad_dialect = spec_from_json(nlohmann::json::parse(R"({"dialect":"mac"})"));
  ASSERT_FALSE(bad_dialect);
  EXPECT_NE(bad_dialect.error().message.find("spec.dialect"), std::string::npos);
  auto bad_buffer =
      spec_from_json(nlohmann::json::parse(R"({"windows":{"socket_send_buffer":"big"}})"));
  ASSERT_FALSE(bad_buffer);
  EXPECT_EQ(bad_buffer.error().message,
            "spec JSON: spec.windows.socket_send_buffer: expected an integer");
}

}  // namespace
}  // namespace xttcp
