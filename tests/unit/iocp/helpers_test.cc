// Pure pieces of the iocp backend: Winsock error texts, the pacer's arithmetic, the backend
// table of the Windows build.
#include <gtest/gtest.h>

#include <chrono>

#include "engine/backend/option_check.hh"
#include "engine/net/os_socket.hh"
#include "io_backends/iocp/send_pacer.hh"
#include "io_backends/iocp/winsock_error.hh"
#include "io_backends/registry.hh"

namespace xttcp::iocp {
namespace {

TEST(IocpWinsockError, CommonCodesHaveTextAndName) {
  EXPECT_EQ(wsa_error_text(WSAEADDRINUSE), "address in use (WSAEADDRINUSE)");
  EXPECT_EQ(wsa_failure("bind", WSAECONNREFUSED), "bind: connection refused (WSAECONNREFUSED)");
  EXPECT_NE(wsa_error_text(wine_closed_while_pending).find("(Wine)"), std::string::npos);
}

TEST(IocpWinsockError, OtherCodesAreOneLineWithTheirNumber) {
  const std::string text = wsa_error_text(987654);
  EXPECT_NE(text.find("987654"), std::string::npos) << text;
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
}

TEST(IocpWinsockError, CancellationAndPeerGoneAreTold) {
  EXPECT_TRUE(is_cancellation(WSA_OPERATION_ABORTED));
  EXPECT_TRUE(is_cancellation(wine_closed_while_pending));
  EXPECT_FALSE(is_cancellation(WSAECONNRESET));
  EXPECT_TRUE(is_peer_gone(WSAECONNRESET));
  EXPECT_TRUE(is_peer_gone(ERROR_NETNAME_DELETED));
  EXPECT_FALSE(is_peer_gone(WSAEADDRINUSE));
}

// Out of sockets or buffers, a listener rests and comes back (it used to stop for good);
// only a broken listener gives up. The rest itself is ListenerRest (unit-net).
TEST(IocpWinsockError, ASocketShortageRestsTheListenerABrokenOneEndsIt) {
  for (int code : {WSAEMFILE, WSAENOBUFS}) {
    EXPECT_TRUE(accept_shortage(code)) << code;
    EXPECT_FALSE(accept_failure_ends_listener(code)) << code;
  }
  for (int code : {WSAEINVAL, WSAENOTSOCK, WSAEOPNOTSUPP}) {
    EXPECT_FALSE(accept_shortage(code)) << code;
    EXPECT_TRUE(accept_failure_ends_listener(code)) << code;
  }
  EXPECT_FALSE(accept_shortage(WSAECONNRESET));
  EXPECT_FALSE(accept_failure_ends_listener(WSAECONNRESET));
}

TEST(IocpSendPacer, BuffersAreDueAtTheRate) {
  SendPacer pacer(1000.0);  // bytes/s
  pacer.start();
  const auto t0 = SendPacer::Clock::now();
  EXPECT_TRUE(pacer.due(t0));  // the first buffer goes at once
  pacer.started(500);          // due at 0.5 s
  EXPECT_FALSE(pacer.due(t0));
  EXPECT_TRUE(pacer.due(t0 + std::chrono::milliseconds(600)));
  EXPECT_EQ(pacer.wait_ms(t0 + std::chrono::milliseconds(600), 100), 1u);  // never 0
  EXPECT_EQ(pacer.wait_ms(t0 - std::chrono::seconds(1), 100), 100u);       // capped
  EXPECT_FALSE(SendPacer().paced());
}

TEST(IocpSendPacer, WorkerRateSplitsDashBAndMultipliesThr) {
  TestSpec spec;
  spec.layout.ports = 2;
  spec.layout.threads_per_port = 2;
  spec.layout.conns_per_thread = 1;  // 4 connections in the run
  EXPECT_EQ(worker_rate(spec, 2), 0.0);
  spec.workload.rate_limit_bps = 8'000'000;  // 1 MB/s over 4 connections
  EXPECT_DOUBLE_EQ(worker_rate(spec, 2), 500'000.0);
  spec.workload.thread_rate_kBps = 100;  // 102400 B/s per connection: the lower wins
  EXPECT_DOUBLE_EQ(worker_rate(spec, 2), 204'800.0);
  spec.workload.rate_limit_bps = 0;
  EXPECT_DOUBLE_EQ(worker_rate(spec, 3), 307'200.0);
}

TEST(IocpBackendTable, IocpIsFirstAvailableAndAutoTakesIt) {
  ASSERT_FALSE(all_backends().empty());
  EXPECT_EQ(all_backends().front()->name(), "iocp");
  EXPECT_TRUE(absent_backends().empty());
  EXPECT_EQ(fallback_backend(), "iocp");
  auto found = find_backend("iocp");
  ASSERT_TRUE(found) << found.error().message;
  // The Windows options it honours; -uso and -uro are not among them.
  const uint32_t options = cap_socket_buffers | cap_verify_data | cap_wait_all | cap_thread_rate |
                           cap_udp_unconnected | cap_call_timing | cap_several_hosts |
                           cap_count_mode | cap_count_reads;
  EXPECT_EQ((*found)->capabilities(), uint32_t{cap_tcp | cap_udp | options});
  TestSpec spec;
  for (Protocol protocol : {Protocol::tcp, Protocol::udp}) {
    spec.workload.protocol = protocol;
    auto chosen = choose_backend(spec);
    ASSERT_TRUE(chosen) << chosen.error().message;
    EXPECT_EQ(chosen->backend.name(), "iocp");
    EXPECT_EQ(chosen->auto_note, "");
  }
}

TEST(IocpBackendTable, RefusesWhatItCannotDo) {
  auto found = find_backend("iocp");
  ASSERT_TRUE(found) << found.error().message;
  TestSpec spec;
  spec.io.zerocopy = ZeroCopy::on;
  Status refused = (*found)->check(spec);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message.rfind("--zerocopy: ", 0), 0u);
  spec.io.zerocopy = ZeroCopy::off;
  spec.role = Role::sender;
  spec.io.udp_send_offload = 1400;
  refused = accepts(**found, spec);  // an option its capabilities lack
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message.rfind("-uso: ", 0), 0u);
  spec.io.udp_send_offload = 0;
  // Windows has no SO_BUSY_POLL, and no per-socket congestion control: refused, not ignored.
  spec.io.busy_poll_us = 50;
  refused = (*found)->check(spec);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message.rfind("--busy-poll: the iocp backend ", 0), 0u);
  spec.io.busy_poll_us = 0;
  spec.io.congestion = "bbr";
  refused = (*found)->check(spec);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message.rfind("--congestion: the iocp backend ", 0), 0u);
  EXPECT_EQ(refused.error().message.find('\n'), std::string::npos);
  spec.io.congestion.clear();
  EXPECT_TRUE(accepts(**found, spec));
}

// --rr runs on iocp, TCP and UDP, both roles.
TEST(IocpBackendTable, RunsRequestResponse) {
  auto found = find_backend("iocp");
  ASSERT_TRUE(found) << found.error().message;
  TestSpec spec;
  spec.rr.on = true;
  for (Role role : {Role::sender, Role::receiver})
    for (Protocol protocol : {Protocol::tcp, Protocol::udp}) {
      spec.role = role;
      spec.workload.protocol = protocol;
      Status accepted = accepts(**found, spec);
      EXPECT_TRUE(accepted) << (accepted ? "" : accepted.error().message);
      auto chosen = choose_backend(spec);
      ASSERT_TRUE(chosen) << chosen.error().message;
      EXPECT_EQ(chosen->backend.name(), "iocp");
    }
}

}  // namespace
}  // namespace xttcp::iocp
