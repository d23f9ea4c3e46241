// Which NTttcp-for-Windows command lines run (engine/run/windows_dialect_support): the engine
// refuses what xttcp does not do by name with what to use instead; a backend is held to the
// data-path options its capabilities list (engine/backend/option_check.hh).
#include "engine/run/windows_dialect_support.hh"

#include <gtest/gtest.h>

#include "engine/count_mode.hh"
#include "io_backends/registry.hh"
#include "engine/backend/option_check.hh"

#include "tests/unit/cli/cli_test_util.hh"

namespace xttcp {
namespace {

Status check(const std::string& line) {
  auto command = parse_windows_dialect(test::words(line), test::test_cpu_count);
  EXPECT_TRUE(command.has_value()) << line << ": " << command.error().message;
  if (!command) return fail("parse");
  return check_windows_dialect_supported(command->spec);
}

std::string refusal(const std::string& line) {
  Status status = check(line);
  return status ? "ok" : status.error().message;
}

TEST(WindowsSupport, TokenHandshakeAndSpRun) {
  EXPECT_EQ(refusal("-s -m 2,*,127.0.0.1 -t 2"), "ok");
  EXPECT_EQ(refusal("-r -m 2,*,127.0.0.1 -t 2 -sp"), "ok");
  EXPECT_EQ(refusal("-s -m 2,*,127.0.0.1 -ns -t 2 -sp"), "ok");
}

// NTttcp for Windows' start proves no key: a receiver that asked for one could never start a
// test (its data connections are tied to no proven session), so the option is refused.
TEST(WindowsSupport, AuthKeyIsRefused) {
  for (const char* line : {"-r -m 1,*,127.0.0.1 -t 2 --auth-key key.txt",
                           "-s -m 1,*,127.0.0.1 -ns -t 2 --auth-key key.txt"})
    EXPECT_EQ(refusal(line),
              "--auth-key: NTttcp for Windows' start (its tokens, -sp or -ns) proves no key; the "
              "key is for xttcp's own sync connection (--dialect linux), so drop one of them")
        << line;
}

TEST(WindowsSupport, NoSyncTimedTcpRuns) {
  EXPECT_EQ(refusal("-s -m 2,*,127.0.0.1 -ns -t 2"), "ok");
  EXPECT_EQ(refusal("-r -m 2,*,127.0.0.1 -ns -t 2 -p 6000 -l 32k -ndl -wu 1 -cd 1 -hpt -xml"),
            "ok");
  EXPECT_EQ(refusal("-s -m 1,0,10.0.0.1 1,0,10.0.0.1 -ns -t 5 -nic 10.0.0.2 -v -6"), "ok");
}

// Mappings towards several hosts run; a -sp receiver hands out ports on one host only (as the
// original, which listens for the hand-out on its first mapping's host).
TEST(WindowsSupport, MappingsTowardsSeveralHostsRun) {
  EXPECT_EQ(refusal("-s -m 1,*,h 1,*,g -ns -t 5"), "ok");
  EXPECT_EQ(refusal("-s -m 1,*,h 1,*,g -t 5"), "ok");
  EXPECT_EQ(refusal("-s -m 1,*,h 1,*,g -t 5 -sp"), "ok");
  EXPECT_EQ(refusal("-r -m 1,*,h 1,*,g -t 5"), "ok");
  EXPECT_EQ(refusal("-r -m 1,*,h 2,*,h -t 5 -sp"), "ok");
  EXPECT_EQ(refusal("-r -m 1,*,h 1,*,g -t 5 -sp"),
            "-sp: the receiver hands out the data ports on one host only; with mappings on "
            "different hosts run one receiver per host (or drop -sp)");
}

TEST(WindowsSupport, LinuxDialectSpecsAlwaysPass) {
  auto command = test::parse("-s 127.0.0.1 -t 5");
  ASSERT_TRUE(command.has_value());
  EXPECT_TRUE(check_windows_dialect_supported(command->spec));
}

TEST(WindowsSupport, DataPathOptionsPassTheEngine) {
  for (const char* line :
       {"-s -m 1,*,h -ns -t 5 -a 4", "-s -m 1,*,h -ns -t 5 -a 4 -w", "-r -m 1,*,h -ns -t 5 -rb 1m",
        "-s -m 1,*,h -ns -t 5 -sb 0", "-r -m 1,*,h -ns -t 5 -d", "-r -m 1,*,h -ns -t 5 -wa",
        "-s -m 1,*,h -ns -t 5 -thr 100", "-s -u -m 1,*,h -ns -t 5", "-s -u -uc -m 1,*,h -ns -t 5",
        "-s -m 1,*,h -ns -n 100", "-r -m 1,*,h -ns", "-s -m 2,*,h -n 10 -t 5",
        "-s -m 2,*,h -ns -t 5 -lm", "-r -u -m 1,*,h -ns -t 5 -lm"})
    EXPECT_EQ(refusal(line), "ok") << line;
}

// -sam splits the window into result blocks; -na keeps unpinned threads on a NUMA node (a node
// that does not exist is the plan's refusal: engine/numa_placement).
TEST(WindowsSupport, SamplesAndNumaNodeRun) {
  EXPECT_EQ(refusal("-s -m 1,*,h -ns -t 5 -sam 1"), "ok");
  EXPECT_EQ(refusal("-r -u -m 2,*,h -t 3 -sam 2 -xml"), "ok");
  EXPECT_EQ(refusal("-s -m 1,*,h -ns -t 5 -na 0"), "ok");
  EXPECT_EQ(refusal("-r -m 1,*,h 1,0,h -t 5 -na 3"), "ok");
}

TEST(WindowsSupport, RefusesWhatXttcpDoesNotDoWithWhatToUseInstead) {
  EXPECT_EQ(refusal("-s -m 1,0,h 1,1,h -ns -t 5"), "ok");
  EXPECT_TRUE(refusal("-s -m 1,0,h 1,1,h -ns -t 5 --threads 4").starts_with("--threads: mappings"));
  EXPECT_EQ(refusal("-s -m 1,*,h -t 5 -sp -6"),
            "-sp with -6: NTttcp for Windows hands out the data ports over IPv4 only (drop one of "
            "them)");
}

// Count mode: each sender flow's budget is -n x -l bytes; receivers and timed runs have none.
uint64_t budget(const std::string& line) {
  auto command = parse_windows_dialect(test::words(line), test::test_cpu_count);
  EXPECT_TRUE(command.has_value()) << line;
  return command ? flow_send_budget(command->spec) : 0;
}

TEST(CountMode, FlowBudgetIsBuffersTimesLength) {
  EXPECT_EQ(budget("-s -m 2,*,h -n 100 -l 1k"), 100u * 1024u);
  EXPECT_EQ(budget("-s -m 2,*,h -n 100 -l 1k -t 9"), 100u * 1024u);  // -t only bounds it
  EXPECT_EQ(budget("-s -m 1,*,h"), uint64_t{20480} * 65536u);        // no -t: 20 K buffers
  EXPECT_EQ(budget("-s -m 1,*,h -t 5"), 0u);                         // timed
  EXPECT_EQ(budget("-r -m 1,*,h -n 100"), 0u);                       // receivers send nothing
  auto command =
      parse_windows_dialect(test::words("-r -m 1,*,h -n 100 -t 9"), test::test_cpu_count);
  ASSERT_TRUE(command.has_value());
  EXPECT_TRUE(count_mode(command->spec));
  EXPECT_EQ(command->spec.workload.duration_s, 9u);  // the longest the run may take
  auto linux_spec = test::parse("-s 127.0.0.1 -t 5");
  ASSERT_TRUE(linux_spec.has_value());
  EXPECT_FALSE(count_mode(linux_spec->spec));
}

// A backend that declares `caps` and nothing else.
class DemoBackend final : public Backend {
 public:
  DemoBackend(uint32_t caps, std::string_view instead) : caps_(caps), instead_(instead) {}
  std::string_view name() const override { return "demo"; }
  std::string_view description() const override { return "test"; }
  Availability probe() const override { return {true, "available"}; }
  uint32_t capabilities() const override { return caps_; }
  std::string_view instead() const override { return instead_; }
  Expected<std::unique_ptr<DataWorker>> make_worker(const WorkerContext&) override {
    return fail("demo");
  }

 private:
  uint32_t caps_;
  std::string_view instead_;
};

// check_backend_options' verdict on `line`, parsed as `command`: "ok", or its one line.
template <class Parsed>
std::string options_verdict(const Parsed& command, const std::string& line,
                            const Backend& backend) {
  EXPECT_TRUE(command.has_value()) << line;
  if (!command) return "parse";
  Status status = check_backend_options(command->spec, backend);
  return status ? "ok" : status.error().message;
}

// check_backend_options: what a backend's capabilities do not list is refused, naming option
// and backend.
std::string backend_refusal(const std::string& line, const DemoBackend& backend) {
  return options_verdict(parse_windows_dialect(test::words(line), test::test_cpu_count), line,
                         backend);
}

TEST(WindowsOptionCheck, RefusesWhatTheBackendDoesNotListNamingBoth) {
  const DemoBackend none(cap_tcp | cap_udp, "use --backend x");
  EXPECT_EQ(backend_refusal("-r -m 1,*,h -ns -t 5 -rb 0", none),
            "-rb: the demo backend does not set SO_RCVBUF (use --backend x)");
  EXPECT_EQ(backend_refusal("-s -m 1,*,h -ns -t 5 -sb 64k", none),
            "-sb: the demo backend does not set SO_SNDBUF (use --backend x)");
  EXPECT_EQ(backend_refusal("-r -m 1,*,h -ns -t 5 -d", none),
            "-d: the demo backend does not verify the received bytes (use --backend x)");
  EXPECT_EQ(backend_refusal("-r -m 1,*,h -ns -t 5 -wa", none),
            "-wa: the demo backend has no MSG_WAITALL receives (use --backend x)");
  EXPECT_EQ(backend_refusal("-s -m 1,*,h -ns -t 5 -thr 10", none),
            "-thr: the demo backend does not throttle per thread (use --backend x)");
  EXPECT_EQ(backend_refusal("-s -u -uc -m 1,*,h -ns -t 5", none),
            "-uc: the demo backend has no unconnected UDP sockets (use --backend x)");
  EXPECT_TRUE(backend_refusal("-s -m 1,*,h -ns -n 10", none).starts_with("-n: the demo backend"));
  EXPECT_EQ(backend_refusal("-r -m 1,*,h -ns -t 5 -lm", none),
            "-lm: the demo backend does not time each send/recv call (use --backend x)");
  // Receive-side options on a sender, and the -sb 0 that -a implies, ask nothing of it.
  EXPECT_EQ(backend_refusal("-s -m 1,*,h -ns -t 5 -d -wa", none), "ok");
  EXPECT_EQ(backend_refusal("-s -m 1,*,h -ns -t 5 -a 4", none), "ok");
  EXPECT_EQ(backend_refusal("-s -m 1,*,h -ns -t 5", none), "ok");
  EXPECT_EQ(backend_refusal("-s -m 1,*,h 1,*,g -ns -t 5", none),
            "-m: the demo backend has one peer per run, not mappings towards different hosts (use "
            "--backend x)");
  EXPECT_EQ(backend_refusal("-r -m 1,*,h 1,*,h -ns -t 5", none), "ok");  // one host, twice
  const DemoBackend all(cap_tcp | cap_socket_buffers | cap_verify_data | cap_wait_all |
                            cap_thread_rate | cap_udp_unconnected | cap_count_mode |
                            cap_several_hosts | cap_call_timing,
                        "");
  EXPECT_EQ(backend_refusal("-r -m 1,*,h -ns -t 5 -rb 0 -sb 0 -d -wa -lm", all), "ok");
  EXPECT_EQ(backend_refusal("-s -m 1,*,h 1,*,g -ns -t 5", all), "ok");
}

TEST(WindowsOptionCheck, LinuxDialectSpecsAlwaysPass) {
  auto command = test::parse("-s 127.0.0.1 -t 5");
  ASSERT_TRUE(command.has_value());
  EXPECT_TRUE(check_backend_options(command->spec, DemoBackend(0, "")));
}

// One port: the ends that serve connections the control plane made (a receiver, a --reverse or
// --bidir sender, the iperf3 dialect) need a backend that adopts them; a forward sender connects
// as always.
std::string one_port_refusal(const std::string& line, const Backend& backend) {
  return options_verdict(test::parse(line), line, backend);
}

TEST(BackendOptionCheck, OnePortNeedsABackendThatAdoptsConnections) {
  const DemoBackend lacks(cap_tcp | cap_udp, "use --backend x");
  const std::string refused =
      "--one-port: the demo backend does not serve connections made on the control port (use "
      "--backend x)";
  EXPECT_EQ(one_port_refusal("-r --one-port -t 5", lacks), refused);
  EXPECT_EQ(one_port_refusal("-s 127.0.0.1 --reverse -t 5", lacks), refused);
  EXPECT_EQ(one_port_refusal("-s 127.0.0.1 --bidir -t 5", lacks), refused);
  EXPECT_EQ(one_port_refusal("-s 127.0.0.1 --one-port -t 5", lacks), "ok");
  const DemoBackend adopts(cap_tcp | cap_udp | cap_adopted_connections, "");
  for (const char* line : {"-r --one-port -t 5", "-r --one-port -u -t 5",
                           "-s 127.0.0.1 --reverse -t 5", "-s 127.0.0.1 --bidir -t 5"})
    EXPECT_EQ(one_port_refusal(line, adopts), "ok") << line;
#ifndef _WIN32
  // Both Linux kernel-socket backends adopt (epoll_receiver.cc, uring_receiver.cc).
  for (const auto& backend : all_backends()) {
    if ((backend->name() == "epoll" || backend->name() == "io_uring") &&
        backend->probe().available) {
      EXPECT_TRUE(backend->capabilities() & cap_adopted_connections) << backend->name();
    }
  }
#endif
}

TEST(WindowsOptionCheck, ImpliedSendBufferIsMarked) {
  auto implied = parse_windows_dialect(test::words("-s -m 1,*,h -t 5 -a 4"), test::test_cpu_count);
  ASSERT_TRUE(implied.has_value());
  EXPECT_EQ(implied->spec.io.socket_send_buffer, 0);
  EXPECT_TRUE(implied->spec.io.send_buffer_implied);
  auto given =
      parse_windows_dialect(test::words("-s -m 1,*,h -t 5 -sb 0 -a 4"), test::test_cpu_count);
  ASSERT_TRUE(given.has_value());
  EXPECT_FALSE(given->spec.io.send_buffer_implied);
}

// The backends of this build: what each refuses, in one line naming the option and itself.
const Backend* backend_named(std::string_view name) {
  for (const auto& backend : all_backends())
    if (backend->name() == name) return backend.get();
  return nullptr;
}

std::string refusal_by(std::string_view backend_name, const std::string& line) {
  const Backend* backend = backend_named(backend_name);
  if (backend == nullptr) return "absent";
  auto command = parse_windows_dialect(test::words(line), test::test_cpu_count);
  EXPECT_TRUE(command.has_value()) << line;
  if (!command) return "parse";
  Status status = accepts(*backend, command->spec);
  return status ? "ok" : status.error().message;
}

TEST(WindowsOptionCheck, EachBackendRefusesWhatItCannotHonour) {
#ifdef _WIN32
  for (const char* line :
       {"-r -m 1,*,h -ns -t 5 -rb 0 -sb 0 -d -wa", "-s -m 1,*,h -ns -t 5 -a 4 -w -thr 10",
        "-s -u -uc -m 1,*,h -ns -t 5", "-s -m 2,*,h -ns -n 10 -a 4",
        "-r -m 1,*,h -ns -t 5 -lm -a 4", "-s -u -m 1,*,h -ns -t 5 -lm", "-s -u -m 2,*,h -ns -n 10",
        "-r -u -m 2,*,h -ns -n 10", "-s -u -uc -m 1,*,h -ns"})
    EXPECT_EQ(refusal_by("iocp", line), "ok") << line;
  EXPECT_EQ(refusal_by("iocp", "-s -u -m 1,*,h 1,*,g -ns -t 5"), "ok");
#else
  for (const char* line : {"-r -m 1,*,h -ns -t 5 -rb 0 -sb 0 -d -wa", "-s -m 1,*,h -ns -t 5 -a 4",
                           "-s -m 1,*,h -ns -t 5 -thr 10", "-s -u -m 1,*,h -ns -t 5 -rb 1m",
                           "-s -m 1,*,h -ns -t 5 -lm", "-r -u -m 1,*,h -ns -t 5 -lm"})
    EXPECT_EQ(refusal_by("epoll", line), "ok") << line;
  EXPECT_EQ(refusal_by("epoll", "-s -u -uc -m 1,*,h -ns -t 5"), "ok");
  EXPECT_EQ(refusal_by("epoll", "-r -u -uc -m 1,*,h -ns -t 5"), "ok");
  EXPECT_EQ(refusal_by("epoll", "-s -m 2,*,h -ns -n 100"), "ok");
  EXPECT_EQ(refusal_by("epoll", "-s -m 1,*,h 1,*,g -ns -t 5"), "ok");
  EXPECT_EQ(refusal_by("epoll", "-r -u -m 1,*,h 1,*,g -ns -t 5"), "ok");
  if (backend_named("dpdk") != nullptr) {
    EXPECT_EQ(refusal_by("dpdk", "-s -u -m 1,*,h 1,*,g -ns -t 5"),
              "-m: the dpdk backend has one peer per run, not mappings towards different hosts "
              "(use --backend epoll)");
  }
  EXPECT_EQ(refusal_by("epoll", "-r -m 2,*,h -ns -n 100"), "ok");
  EXPECT_EQ(refusal_by("epoll", "-s -u -m 1,*,h -ns -n 100"), "ok");  // UDP count mode
  EXPECT_EQ(refusal_by("epoll", "-r -u -m 1,*,h -ns -n 100"), "ok");
  EXPECT_EQ(refusal_by("epoll", "-s -u -m 1,*,h -ns"), "ok");  // no -t: count mode, 20 K
  // -uro is UDP_GRO, which both Linux kernel-socket backends use; no backend does -uso.
  EXPECT_EQ(refusal_by("epoll", "-r -u -m 1,*,h -ns -t 5 -uro"), "ok");
  EXPECT_EQ(refusal_by("epoll", "-s -u -m 1,*,h -ns -t 5 -uso 1400"),
            "-uso: the epoll backend does not split a send into datagrams of another size (drop "
            "-uso; --udp-gso sends -l-byte datagrams with UDP_SEGMENT)");
  EXPECT_EQ(refusal_by("epoll", "-r -u -m 1,*,h -ns -t 5 -d"),
            "-d: the epoll backend verifies TCP data only (drop -d or -u)");
  if (const Backend* uring = backend_named("io_uring"); uring && uring->probe().available) {
    EXPECT_EQ(refusal_by("io_uring", "-r -m 1,*,h -ns -t 5 -d"),
              "-d: the io_uring backend does not verify the received bytes (use --backend epoll)");
    EXPECT_TRUE(
        refusal_by("io_uring", "-r -m 1,*,h -ns -t 5 -wa").starts_with("-wa: the io_uring"));
    EXPECT_EQ(refusal_by("io_uring", "-s -m 1,*,h -ns -t 5 -a 8 -thr 10 -sb 0 -rb 0"), "ok");
    EXPECT_EQ(refusal_by("io_uring", "-s -m 1,*,h 1,*,g -ns -t 5"), "ok");
    EXPECT_EQ(refusal_by("io_uring", "-s -m 1,*,h -ns -n 10"), "ok");
    EXPECT_EQ(refusal_by("io_uring", "-r -m 1,*,h -ns -n 10"), "ok");
    EXPECT_EQ(refusal_by("io_uring", "-s -u -m 1,*,h -ns -n 10"), "ok");
    EXPECT_EQ(refusal_by("io_uring", "-r -u -uc -m 1,*,h -ns -n 10"), "ok");
    EXPECT_EQ(refusal_by("io_uring", "-s -u -uc -m 1,*,h -ns -t 5"),
              "-uc: the io_uring backend sends on connected UDP sockets only (use --backend "
              "epoll)");
    EXPECT_EQ(refusal_by("io_uring", "-r -u -m 1,*,h -ns -t 5 -uro"), "ok");
    EXPECT_TRUE(refusal_by("io_uring", "-s -u -m 1,*,h -ns -t 5 -uso 1400")
                    .starts_with("-uso: the io_uring backend does not split a send"));
    EXPECT_EQ(refusal_by("io_uring", "-r -m 1,*,h -ns -t 5 -lm"),
              "-lm: the io_uring backend does not time each send/recv call (use --backend epoll)");
  }
  if (backend_named("dpdk") != nullptr) {
    EXPECT_EQ(refusal_by("dpdk", "-s -u -m 1,*,h -ns -n 10"), "ok");  // count mode, UDP
    EXPECT_EQ(refusal_by("dpdk", "-r -u -m 1,*,h -ns -n 10"), "ok");
    EXPECT_EQ(refusal_by("dpdk", "-s -u -m 1,*,h -ns -t 5 -lm"),
              "-lm: the dpdk backend does not time each send/recv call (use --backend epoll)");
  }
#endif
  EXPECT_EQ(refusal_by("null", "-r -m 1,*,h -ns -t 5 -rb 0"),
            "-rb: the null backend does not set SO_RCVBUF (it opens no sockets; use a "
            "kernel-socket backend)");
  EXPECT_EQ(refusal_by("null", "-s -m 1,*,h 1,*,g -ns -t 5"), "ok");  // it opens no sockets
  EXPECT_TRUE(refusal_by("null", "-s -m 1,*,h -ns -t 5 -lm").starts_with("-lm: the null backend"));
  EXPECT_EQ(refusal_by("null", "-r -u -m 1,*,h -ns -t 5 -uro"),
            "-uro: the null backend does not do UDP receive coalescing (it opens no sockets; use "
            "a kernel-socket backend)");
}

}  // namespace
}  // namespace xttcp
