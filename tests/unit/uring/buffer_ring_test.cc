// Provided-buffer ring accounting without a kernel: a simulated consumer takes buffers at the
// head in ring order, the receiver recycles each one; indices wrap (16-bit tail, masked slots).
#include <gtest/gtest.h>

#include <deque>

#include "io_backends/uring/buffer_ring.hh"
#include "io_backends/uring/send_ring.hh"

namespace xttcp {
namespace {

TEST(UringBufferRing, EntriesForAreAPowerOfTwoCoveringFourMiB) {
  EXPECT_EQ(BufferRing::entries_for(64 * 1024), 64u);
  EXPECT_EQ(BufferRing::entries_for(4 * 1024), 1024u);
  EXPECT_EQ(BufferRing::entries_for(1), 4096u);       // capped
  EXPECT_EQ(BufferRing::entries_for(16u << 20), 8u);  // at least 8
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
  uint16_t head = 0;          // the kernel's consumer index
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

// Bundles: the kernel takes consecutive ring positions and reports only the first bid; the
// receiver gives back as many buffers as the byte count covers. Positions and bids stay equal
// mod entries, so a bundle's buffers are always consecutive bids (what the kernel reports).
TEST(UringBufferRing, InOrderRecyclingKeepsBundlesConsecutive) {
  constexpr uint32_t entries = 16, size = 1000;
  BufferRing ring;
  ASSERT_TRUE(ring.init(entries, size));
  ring.publish();
  io_uring_buf_ring* br = ring.raw();
  uint16_t head = 0;
  for (int round = 0; round < 5000; ++round) {
    const uint16_t published = static_cast<uint16_t>(br->tail - head);
    ASSERT_EQ(published, entries) << "round " << round;
    // A bundle of 1..entries buffers, the last one filled in part.
    const uint32_t take = 1 + static_cast<uint32_t>(round) % entries;
    const int32_t res = static_cast<int32_t>((take - 1) * size + 1 + round % size);
    const uint16_t first_bid = br->bufs[head & (entries - 1)].bid;
    for (uint32_t i = 0; i < take; ++i)
      ASSERT_EQ(br->bufs[(head + i) & (entries - 1)].bid, (first_bid + i) % entries);
    head = static_cast<uint16_t>(head + take);
    ASSERT_EQ(ring.buffers_used(res), take);
    ring.recycle_in_order(ring.buffers_used(res));
    ring.publish();
  }
  EXPECT_EQ(ring.buffers_used(0), 0u);
  EXPECT_EQ(ring.buffers_used(-105), 0u);
}

TEST(UringSendRing, EntriesCoverAboutOneMiBWithinTheKernelsBundleLimit) {
  EXPECT_EQ(SendRing::entries_for(4096), 256u);
  EXPECT_EQ(SendRing::entries_for(131072), 8u);
  EXPECT_EQ(SendRing::entries_for(64000), 32u);  // 32 x 64000 > 1 MiB > 16 x 64000
  EXPECT_EQ(SendRing::entries_for(1), 256u);     // the kernel takes at most 256 per bundle
  EXPECT_EQ(SendRing::entries_for(4u << 20), 2u);
}

TEST(UringSendRing, BundlesInFlightHideAtMostTheBudgetFromTheCounters) {
  // Few connections: ~1 MiB bundles, as without a count.
  EXPECT_EQ(SendRing::entries_for(131072, 1), 8u);
  EXPECT_EQ(SendRing::entries_for(131072, 64), 8u);  // 64 x 1 MiB = the 64 MiB budget
  EXPECT_EQ(SendRing::entries_for(131072, 65), 4u);
  EXPECT_EQ(SendRing::entries_for(131072, 256), 2u);
  // Past that a bundle would be under two writes: one write per send instead.
  EXPECT_EQ(SendRing::entries_for(131072, 257), 0u);
  EXPECT_EQ(SendRing::entries_for(131072, 10000), 0u);
  EXPECT_EQ(SendRing::entries_for(4096, 10000), 0u);  // 6.7 KB each: one 4 KiB slot fits
  EXPECT_EQ(SendRing::entries_for(1024, 10000), 4u);
  EXPECT_EQ(SendRing::entries_for(131072, 0), 8u);
  for (size_t connections : {1u, 3u, 64u, 100u, 500u, 5000u}) {
    const uint32_t entries = SendRing::entries_for(65536, connections);
    EXPECT_LE(uint64_t{entries} * 65536 * connections, SendRing::hidden_bytes_budget)
        << connections;
  }
}

TEST(UringSendRing, EverySlotPointsAtTheOneBufferAndRefillsWrap) {
  static const unsigned char data[4096] = {'A'};
  SendRing ring;
  ASSERT_TRUE(ring.init(8, data, sizeof data));
  io_uring_buf_ring* br = ring.raw();
  EXPECT_EQ(br->tail, 8u);  // published at once: there is nothing to fill
  uint16_t head = 0;
  for (int round = 0; round < 20000; ++round) {
    const uint32_t take = 1 + static_cast<uint32_t>(round) % 8;
    for (uint32_t i = 0; i < take; ++i) {
      const io_uring_buf& b = br->bufs[(head + i) & 7];
      ASSERT_EQ(b.addr, reinterpret_cast<uintptr_t>(data));
      ASSERT_EQ(b.len, sizeof data);
    }
    head = static_cast<uint16_t>(head + take);
    // A short send that ended inside the last slot still consumed it.
    const int32_t res = static_cast<int32_t>((take - 1) * sizeof data + 17);
    ring.refill(SendRing::slots_consumed(res, sizeof data));
    ASSERT_EQ(static_cast<uint16_t>(br->tail - head), 8u) << "round " << round;
  }
  EXPECT_EQ(SendRing::slots_consumed(0, 4096), 0u);
  EXPECT_EQ(SendRing::slots_consumed(-11, 4096), 0u);
  EXPECT_EQ(SendRing::slots_consumed(4096, 4096), 1u);
  EXPECT_EQ(SendRing::slots_consumed(4097, 4096), 2u);
}

}  // namespace
}  // namespace xttcp
