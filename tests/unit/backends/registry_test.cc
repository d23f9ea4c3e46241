// io_backends/registry: the one choice of a run's backend (choose_backend). Named backends are
// found and checked against the spec; auto takes the first backend in preference order that asks
// for the spec and accepts it, and its note names the ones it passed over for an option.
#include "io_backends/registry.hh"

#include "engine/backend/option_check.hh"

#include <gtest/gtest.h>

#include <string>

namespace xttcp {
namespace {

TEST(ChooseBackend, ANamedBackendIsTakenAsIs) {
  TestSpec spec;
  spec.backend = "null";
  auto choice = choose_backend(spec);
  ASSERT_TRUE(choice) << choice.error().message;
  EXPECT_EQ(choice->backend.name(), "null");
  EXPECT_EQ(choice->auto_note, "");
}

TEST(ChooseBackend, AnUnknownNameIsRefusedWithTheKnownOnes) {
  TestSpec spec;
  spec.backend = "nope";
  auto choice = choose_backend(spec);
  ASSERT_FALSE(choice);
  const std::string expected = "--backend: unknown backend 'nope' (this build has: auto, ";
  EXPECT_EQ(choice.error().message.rfind(expected, 0), 0u) << choice.error().message;
}

TEST(ChooseBackend, ANamedBackendThatRefusesTheSpecSaysWhy) {
  TestSpec spec;
  spec.backend = "null";
  spec.dialect = Dialect::windows;
  spec.io.socket_recv_buffer = 65536;
  auto choice = choose_backend(spec);
  ASSERT_FALSE(choice);
  EXPECT_EQ(choice.error().message,
            "-rb: the null backend does not set SO_RCVBUF (it opens no sockets; use a "
            "kernel-socket backend)");
}

// --auth-key ties TCP data connections to the session; a backend that cannot (it turns no peer
// away: null here, iocp on Windows) refuses it in one line. UDP's tie needs no backend help.
TEST(ChooseBackend, ABackendThatCannotTieConnectionsToTheSessionRefusesAuthKey) {
  TestSpec spec;
  spec.backend = "null";
  spec.control.auth_key_file = "key";
  auto choice = choose_backend(spec);
  ASSERT_FALSE(choice);
  EXPECT_EQ(choice.error().message,
            "--auth-key: the null backend cannot tie TCP data connections to the session (epoll "
            "and io_uring can)");
  spec.backend = "epoll";
  EXPECT_TRUE(choose_backend(spec));
}

// The first backend in preference order that is available, asks for the spec and accepts it.
const Backend* first_auto_candidate(const TestSpec& spec) {
  for (const auto& backend : all_backends())
    if (backend->probe().available && backend->auto_refusal(spec).empty() && backend->check(spec))
      return backend.get();
  return nullptr;
}

TEST(ChooseBackend, AutoTakesTheFirstThatAsksAndAccepts) {
  for (Protocol protocol : {Protocol::tcp, Protocol::udp}) {
    TestSpec spec;
    spec.workload.protocol = protocol;
    auto choice = choose_backend(spec);
    ASSERT_TRUE(choice) << choice.error().message;
    const Backend* expected = first_auto_candidate(spec);
    ASSERT_NE(expected, nullptr);
    EXPECT_EQ(&choice->backend, expected) << choice->backend.name();
    EXPECT_EQ(choice->auto_note, "");
  }
}

// Auto prefers epoll; --sqpoll is io_uring's alone: epoll refuses it, so auto takes io_uring and
// says why it passed over epoll.
TEST(ChooseBackend, AutoNamesWhatItPassedOverForAnOption) {
  TestSpec plain;
  auto preferred = choose_backend(plain);
  ASSERT_TRUE(preferred) << preferred.error().message;
  EXPECT_EQ(preferred->backend.name(), "epoll");
  EXPECT_EQ(preferred->auto_note, "");
  auto uring = find_backend("io_uring");
  if (!uring) GTEST_SKIP() << uring.error().message;
  TestSpec polled;
  polled.uring.sqpoll = true;
  if (Status takes = accepts(**uring, polled); !takes || !(*uring)->auto_refusal(polled).empty())
    GTEST_SKIP() << "io_uring here does not take --sqpoll: "
                 << (takes ? (*uring)->auto_refusal(polled) : takes.error().message);
  auto choice = choose_backend(polled);
  ASSERT_TRUE(choice) << choice.error().message;
  EXPECT_EQ(choice->backend.name(), "io_uring");
  EXPECT_EQ(choice->auto_note,
            "--backend auto runs io_uring: --sqpoll: the epoll backend has no submission queue "
            "(use --backend io_uring)");
}

// What calibrate measured fastest here goes first for auto, when it is available and takes the
// spec; otherwise the preference order decides, and the choice says it was not measured.
TEST(ChooseBackend, AutoTakesTheMeasuredBackendFirst) {
  auto uring = find_backend("io_uring");
  if (!uring) GTEST_SKIP() << uring.error().message;
  TestSpec spec;
  auto choice = choose_backend(spec, "io_uring");
  ASSERT_TRUE(choice) << choice.error().message;
  EXPECT_EQ(choice->backend.name(), "io_uring");
  EXPECT_TRUE(choice->measured);
  auto ruled = choose_backend(spec);
  ASSERT_TRUE(ruled) << ruled.error().message;
  EXPECT_EQ(ruled->backend.name(), fallback_backend());
  EXPECT_FALSE(ruled->measured);
}

TEST(ChooseBackend, AMeasuredBackendThatRefusesTheSpecIsPassedOver) {
  auto uring = find_backend("io_uring");
  if (!uring) GTEST_SKIP() << uring.error().message;
  TestSpec verified;
  verified.workload.verify_data = true;  // -d: epoll checks the bytes, io_uring does not
  ASSERT_FALSE(accepts(**uring, verified));
  auto choice = choose_backend(verified, "io_uring");
  ASSERT_TRUE(choice) << choice.error().message;
  EXPECT_EQ(choice->backend.name(), "epoll");
  EXPECT_FALSE(choice->measured);
}

TEST(ChooseBackend, AMeasuredNameThisBuildLacksIsIgnored) {
  TestSpec spec;
  auto choice = choose_backend(spec, "nope");
  ASSERT_TRUE(choice) << choice.error().message;
  EXPECT_FALSE(choice->measured);
  TestSpec named;
  named.backend = "null";  // a named backend is never overridden by a measurement
  auto kept = choose_backend(named, "epoll");
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ(kept->backend.name(), "null");
  EXPECT_FALSE(kept->measured);
}

}  // namespace
}  // namespace xttcp
