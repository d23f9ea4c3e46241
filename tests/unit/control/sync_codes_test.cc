#include "engine/control/sync_codes.hh"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <string>

namespace xttcp {
namespace {

TEST(SyncCodes, WireValuesMatchNtttcp) {
  EXPECT_EQ(sync_code::kQueryState, 88);
  EXPECT_EQ(sync_code::kStart, 82);
  EXPECT_EQ(sync_code::kLastClientStart, 76);
  EXPECT_EQ(sync_code::kEarlyExit, 69);
  EXPECT_EQ(sync_code::kPleaseWait, 87);
  EXPECT_EQ(sync_code::kStateNotStarted, 11);
  EXPECT_EQ(sync_code::kStateRunning, 12);
  EXPECT_EQ(sync_code::kStateFinished, 13);
  EXPECT_LT(sync_code::kHello, 0);  // NTTTCP-for-Linux answers a negative proposal with its -t
  EXPECT_EQ(static_cast<uint32_t>(sync_code::kHello), 0xC0DE7801u);
  EXPECT_EQ(static_cast<uint32_t>(sync_code::kHelloAck), 0xC0DE7802u);
}

TEST(SafeCycleProposal, EveryValueFrom68To90IsSafe) {
  const std::set<uint32_t> reserved = {69, 76, 82, 87, 88};
  for (uint32_t cycle = 68; cycle <= 90; ++cycle) {
    std::string note;
    const uint32_t proposal = safe_cycle_proposal(cycle, &note);
    EXPECT_FALSE(reserved.count(proposal)) << cycle;
    EXPECT_GE(proposal, cycle);
    if (reserved.count(cycle)) {
      EXPECT_FALSE(note.empty()) << cycle;
      // The next safe value, nothing larger.
      for (uint32_t between = cycle; between < proposal; ++between)
        EXPECT_TRUE(reserved.count(between)) << cycle;
    } else {
      EXPECT_EQ(proposal, cycle);
      EXPECT_TRUE(note.empty()) << cycle;
    }
  }
}

TEST(SafeCycleProposal, ReservedValuesAndNotes) {
  std::string note;
  EXPECT_EQ(safe_cycle_proposal(69, &note), 70u);
  EXPECT_EQ(note, "test cycle of 69 s collides with NTTTCP's 'E' command; proposing 70 s");
  EXPECT_EQ(safe_cycle_proposal(76, &note), 77u);
  EXPECT_EQ(note, "test cycle of 76 s collides with NTTTCP's 'L' command; proposing 77 s");
  EXPECT_EQ(safe_cycle_proposal(82, &note), 83u);
  EXPECT_EQ(note, "test cycle of 82 s collides with NTTTCP's 'R' command; proposing 83 s");
  EXPECT_EQ(safe_cycle_proposal(87, &note), 89u);
  EXPECT_EQ(note, "test cycle of 87 s collides with NTTTCP's 'W' reply; proposing 89 s");
  EXPECT_EQ(safe_cycle_proposal(88, &note), 89u);
  EXPECT_EQ(note, "test cycle of 88 s collides with NTTTCP's 'X' command; proposing 89 s");
  EXPECT_EQ(safe_cycle_proposal(88, nullptr), 89u);  // the note is optional
}

TEST(SafeCycleProposal, OrdinaryValuesPassUnchanged) {
  std::string note;
  EXPECT_EQ(safe_cycle_proposal(0, &note), 0u);  // continuous mode
  EXPECT_EQ(safe_cycle_proposal(5, &note), 5u);
  EXPECT_EQ(safe_cycle_proposal(60, &note), 60u);
  EXPECT_TRUE(note.empty());
}

TEST(SafeCycleProposal, NeverNegativeOnTheWire) {
  std::string note;
  const uint32_t proposal = safe_cycle_proposal(0xC0DE7801u, &note);
  EXPECT_EQ(proposal, static_cast<uint32_t>(std::numeric_limits<int32_t>::max()));
  EXPECT_GE(static_cast<int32_t>(proposal), 0);
  EXPECT_FALSE(note.empty());
}

}  // namespace
}  // namespace xttcp
