// Provided-buffer ring accounting without a kernel: a simulated consumer takes buffers at the
// head in ring order, the receiver recycles each one; indices wrap (16-bit tail, masked slots).
#include <gtest/gtest.h>

#include <deque>

#include "io_backends/uring/buffer_ring.hh"

namespace xttcp {
namespace {

TEST(UringBufferRing, EntriesForAreAPowerOfTwoCoveringFourMiB) {
  EXPECT_EQ(BufferRing::entries_for(64 * 1024), 64u);
  EXPECT_EQ(BufferRing::entries_for(4 * 1024), 1024u);
  EXPECT_EQ(BufferRing::entries_for(1), 4096u);              // capped
  EXPECT_EQ(BufferRing::entries_for(16u << 20), 8u);         // at least 8
  for (uint32_t size : {1000u, 65536u, 131072u, 3000000u}) {
    const uint32_t n = BufferRing::entries_for(size);
    EXPECT_EQ(n & (n - 1), 0u) << size;
  }
}

TEST(UringBufferRing, RejectsSizesThatAreNotPowersOfTwo) {
  BufferRing ring;
  EXPECT_FALSE(ring.init(48, 4096));
  EXPECT_FALSE(ring.init(0, 4096));
}

TEST(UringBufferRing, InitialFillIsPublishedOnlyOnRegistration) {
  BufferRing ring;
  ASSERT_TRUE(ring.init(8, 256));
  EXPECT_EQ(ring.raw()->tail, 0u);  // added, not yet visible
  ring.publish();
  EXPECT_EQ(ring.raw()->tail, 8u);
  for (uint16_t slot = 0; slot < 8; ++slot) {
    const io_uring_buf& b = ring.raw()->bufs[slot];
    EXPECT_EQ(b.bid, slot);
    EXPECT_EQ(b.len, 256u);
    EXPECT_EQ(b.addr, reinterpret_cast<uintptr_t>(ring.buffer(slot)));
  }
}

TEST(UringBufferRing, ConsumeAndRecycleWrapsCorrectly) {
  constexpr uint32_t entries = 16, size = 512;
  BufferRing ring;
  ASSERT_TRUE(ring.init(entries, size));
  ring.publish();
  io_uring_buf_ring* br = ring.raw();
  uint16_t head = 0;  // the kernel's consumer index
  std::deque<uint16_t> held;  // taken by the "kernel", not yet completed
  // 5000 rounds move the 16-bit tail past 65535 several times.
  for (int round = 0; round < 5000; ++round) {
    // The kernel takes 1..entries buffers (never more than published).
    const int take = 1 + round % static_cast<int>(entries);
    for (int i = 0; i < take; ++i) {
      ASSERT_NE(head, br->tail) << "ring ran dry at round " << round;
      const io_uring_buf& b = br->bufs[head & (entries - 1)];
      ASSERT_LT(b.bid, entries);
      ASSERT_EQ(b.addr, reinterpret_cast<uintptr_t>(ring.buffer(b.bid)));
      ASSERT_EQ(b.len, size);
      held.push_back(b.bid);
      ++head;
    }
    // Completions come back in any order; each buffer is recycled once.
    while (!held.empty()) {
      const uint16_t bid = (round % 2) ? held.back() : held.front();
      (round % 2) ? held.pop_back() : held.pop_front();
      ring.recycle(bid);
    }
    ring.publish();
    EXPECT_EQ(static_cast<uint16_t>(br->tail - head), entries) << "round " << round;
  }
  // Every buffer is in the ring exactly once.
  std::vector<int> seen(entries, 0);
  for (uint16_t i = head; i != br->tail; ++i) ++seen[br->bufs[i & (entries - 1)].bid];
  for (uint32_t bid = 0; bid < entries; ++bid) EXPECT_EQ(seen[bid], 1) << "bid " << bid;
}

}  // namespace
}  // namespace xttcp
