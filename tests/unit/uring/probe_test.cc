// The probe on this machine, and XTTCP_URING_DISABLE simulating a kernel that lacks a feature:
// the backend then refuses the options that need it with a one-line reason.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "engine/plan.hh"
#include "io_backends/uring/probe.hh"
#include "io_backends/uring/uring_backend.hh"
#include "io_backends/common/zerocopy_errqueue.hh"
#include "io_backends/uring/uring_sender.hh"
#include "tests/unit/uring/machine.hh"

namespace xttcp {
namespace {

// Sets XTTCP_URING_DISABLE for one scope.
class DisableEnv {
 public:
  explicit DisableEnv(const char* list) { setenv("XTTCP_URING_DISABLE", list, 1); }
  ~DisableEnv() { unsetenv("XTTCP_URING_DISABLE"); }
};

using test::machine;

#define SKIP_WITHOUT_IO_URING() \
  if (!machine().ring) GTEST_SKIP() << "io_uring unavailable: " << machine().ring_reason

TEST(UringProbe, ThisMachineHasTheFeaturesTheReferenceMeasured) {
  SKIP_WITHOUT_IO_URING();
  const UringCapabilities& c = machine();
  EXPECT_TRUE(c.send && c.recv && c.accept);
  EXPECT_TRUE(c.multishot_recv) << c.multishot_reason;
  EXPECT_TRUE(c.multishot_accept);
  EXPECT_TRUE(c.buf_ring) << c.buf_ring_reason;
  EXPECT_TRUE(c.send_zc) << c.send_zc_reason;
  EXPECT_FALSE(c.zcrx);
  EXPECT_NE(c.zcrx_reason.find("NIC"), std::string::npos) << c.zcrx_reason;
  EXPECT_EQ(c.ring_mode, RingMode::defer_taskrun);
  const Availability a = make_uring_backend()->probe();
  EXPECT_TRUE(a.available);
  EXPECT_EQ(a.reason.rfind("multishot yes, buf_ring yes", 0), 0u) << a.reason;
  EXPECT_NE(a.reason.find("send_zc yes"), std::string::npos) << a.reason;
  EXPECT_NE(a.reason.find("zcrx no ("), std::string::npos) << a.reason;
}

TEST(UringProbe, DisableListTurnsEachFeatureOffWithAReason) {
  UringCapabilities all_on;
  all_on.ring = all_on.send = all_on.recv = all_on.accept = true;
  all_on.send_zc = all_on.multishot_accept = all_on.multishot_recv = all_on.buf_ring = true;
  all_on.bundle = all_on.sqpoll = true;
  all_on.ring_mode = RingMode::defer_taskrun;

  auto off = apply_uring_disable_list(all_on, "send_zc");
  EXPECT_FALSE(off.send_zc);
  EXPECT_EQ(off.send_zc_reason, "disabled by XTTCP_URING_DISABLE");
  EXPECT_TRUE(off.multishot_recv && off.buf_ring && off.sqpoll);

  off = apply_uring_disable_list(all_on, " multishot , buf_ring,bundle,sqpoll,defer_taskrun,bogus");
  EXPECT_FALSE(off.multishot_recv || off.multishot_accept || off.buf_ring || off.bundle ||
               off.sqpoll);
  EXPECT_FALSE(off.multishot_rx());
  EXPECT_EQ(off.ring_mode, RingMode::coop_taskrun);
  EXPECT_TRUE(off.ring && off.send_zc);
  EXPECT_EQ(off.sqpoll_reason, "disabled by XTTCP_URING_DISABLE");

  off = apply_uring_disable_list(all_on, "all");
  EXPECT_FALSE(off.ring);
  EXPECT_EQ(off.ring_reason, "disabled by XTTCP_URING_DISABLE=all");
  EXPECT_EQ(apply_uring_disable_list(all_on, "").summary(), all_on.summary());
}

TEST(UringProbe, EnvironmentForcesEachFeatureOff) {
  SKIP_WITHOUT_IO_URING();
  struct Case {
    const char* word;
    bool (*still_on)(const UringCapabilities&);
  };
  const Case cases[] = {
      {"send_zc", [](const UringCapabilities& c) { return c.send_zc; }},
      {"multishot", [](const UringCapabilities& c) { return c.multishot_recv; }},
      {"buf_ring", [](const UringCapabilities& c) { return c.buf_ring; }},
      {"bundle", [](const UringCapabilities& c) { return c.bundle; }},
      {"sqpoll", [](const UringCapabilities& c) { return c.sqpoll; }},
      {"defer_taskrun",
       [](const UringCapabilities& c) { return c.ring_mode == RingMode::defer_taskrun; }},
      {"all", [](const UringCapabilities& c) { return c.ring; }},
  };
  for (const Case& c : cases) {
    DisableEnv env(c.word);
    EXPECT_FALSE(c.still_on(probe_uring())) << c.word;
  }
  DisableEnv env("all");
  const Availability a = make_uring_backend()->probe();
  EXPECT_FALSE(a.available);
  EXPECT_EQ(a.reason, "disabled by XTTCP_URING_DISABLE=all");
}

// A spec for check() and a context for make_worker (no sockets are opened). check() runs once,
// when the backend is chosen (io_backends/registry.hh); make_worker() trusts it passed.
struct Context {
  TestSpec spec;
  WorkerPlan plan;
  WorkerContext context;
  Context(Role role, ZeroCopy zerocopy, bool sqpoll) {
    spec.role = role;
    spec.io.zerocopy = zerocopy;
    spec.uring.sqpoll = sqpoll;
    plan.flows.push_back(FlowPlan{0, 0, 5001, 0});
    context.spec = &spec;
    context.plan = &plan;
  }
};

TEST(UringBackend, RefusesZeroCopyOnWhenSendZcIsMissing) {
  SKIP_WITHOUT_IO_URING();
  DisableEnv env("send_zc");
  auto backend = make_uring_backend();  // probes now, with the variable set
  EXPECT_EQ(backend->capabilities() & cap_zerocopy_tx, 0u);
  Context on(Role::sender, ZeroCopy::on, false);
  Status refused = backend->check(on.spec);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "--zerocopy: io_uring SEND_ZC is not available: disabled by XTTCP_URING_DISABLE");

  // auto: plain sends, said in a note.
  Context automatic(Role::sender, ZeroCopy::automatic, false);
  EXPECT_TRUE(backend->check(automatic.spec));
  auto fallback = backend->make_worker(automatic.context);
  ASSERT_TRUE(fallback);
  const WorkerReport report = (*fallback)->finish();
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_EQ(report.notes[0],
            "zero-copy: io_uring SEND_ZC is not available (disabled by XTTCP_URING_DISABLE); "
            "using plain send");

  // The receiver ignores --zerocopy (a sender option).
  Context receiver(Role::receiver, ZeroCopy::on, false);
  EXPECT_TRUE(backend->check(receiver.spec));
  EXPECT_TRUE(backend->make_worker(receiver.context));
}

TEST(UringBackend, RefusesSqpollWhenMissing) {
  SKIP_WITHOUT_IO_URING();
  DisableEnv env("sqpoll");
  auto backend = make_uring_backend();
  Context sq(Role::receiver, ZeroCopy::off, true);
  Status refused = backend->check(sq.spec);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "--sqpoll: io_uring SQPOLL is not available: disabled by XTTCP_URING_DISABLE");
}

TEST(UringBackend, CapabilitiesFollowTheProbe) {
  SKIP_WITHOUT_IO_URING();
  // The options it honours on any ring; -d, -wa, -lm and -uso are not among them. It serves
  // connections made on the control port (one port: adopted or handed over).
  const uint32_t options = cap_socket_buffers | cap_thread_rate | cap_several_hosts |
                           cap_udp_unconnected | cap_count_mode | cap_udp_receive_coalescing |
                           cap_count_reads | cap_adopted_connections;
  EXPECT_EQ(
      make_uring_backend(machine())->capabilities(),
      uint32_t{cap_tcp | cap_udp | cap_zerocopy_tx | cap_multishot_rx | options | cap_peer_filter});
  // A UDP receiver needs multishot RECVMSG; a kernel without it gets the documented refusal.
  TestSpec udp_receiver;
  udp_receiver.workload.protocol = Protocol::udp;
  EXPECT_TRUE(make_uring_backend(machine())->check(udp_receiver));
  Status refused =
      make_uring_backend(apply_uring_disable_list(machine(), "multishot"))->check(udp_receiver);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "--backend io_uring: UDP receive needs multishot RECVMSG and buffer rings: disabled "
            "by XTTCP_URING_DISABLE");
  EXPECT_EQ(make_uring_backend(apply_uring_disable_list(machine(), "buf_ring"))->capabilities() &
                cap_multishot_rx,
            0u);
  auto none = make_uring_backend(apply_uring_disable_list(machine(), "all"));
  EXPECT_EQ(none->capabilities(), 0u);
  EXPECT_FALSE(none->probe().available);
  Context any(Role::receiver, ZeroCopy::off, false);
  Status unavailable = none->check(any.spec);
  ASSERT_FALSE(unavailable);
  EXPECT_EQ(unavailable.error().message,
            "--backend io_uring: not available: disabled by XTTCP_URING_DISABLE=all");
}

TEST(UringBackend, AutoFallbackRule) {
  EXPECT_FALSE(mostly_copied({}));
  EXPECT_TRUE(mostly_copied({1000, 1000, 950, false}));
  EXPECT_FALSE(mostly_copied({1000, 1000, 949, false}));
  EXPECT_FALSE(mostly_copied({1000, 1000, 0, false}));
}

}  // namespace
}  // namespace xttcp
