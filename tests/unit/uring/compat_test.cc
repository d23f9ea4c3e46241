// The compat constants carry the kernel ABI values (include/uapi/linux/io_uring.h).
#include <gtest/gtest.h>

#include "io_backends/uring/compat.hh"

namespace xttcp {
namespace {

TEST(UringCompat, ConstantsHaveTheKernelAbiValues) {
  EXPECT_EQ(IORING_SEND_ZC_REPORT_USAGE, 1U << 3);
  EXPECT_EQ(IORING_NOTIF_USAGE_ZC_COPIED, 1U << 31);
  EXPECT_EQ(IORING_RECVSEND_BUNDLE, 1U << 4);
  EXPECT_EQ(IORING_FEAT_RECVSEND_BUNDLE, 1U << 14);
  EXPECT_EQ(IORING_CQE_F_BUF_MORE, 1U << 4);
  EXPECT_EQ(IORING_SETUP_COOP_TASKRUN, 1U << 8);
  EXPECT_EQ(IORING_SETUP_TASKRUN_FLAG, 1U << 9);
  EXPECT_EQ(IORING_SETUP_SINGLE_ISSUER, 1U << 12);
  EXPECT_EQ(IORING_SETUP_DEFER_TASKRUN, 1U << 13);
  EXPECT_EQ(uring_compat::pbuf_ring_mmap, 1U);
  EXPECT_EQ(uring_compat::pbuf_ring_inc, 2U);
  EXPECT_EQ(uring_compat::register_zcrx_ifq, 32U);
  EXPECT_EQ(uring_compat::op_recv_zc, 58U);
}

TEST(UringCompat, FlagsDoNotCollideWithTheOnesLiburingHas) {
  // ioprio bits of send/recv: POLL_FIRST 0, RECV_MULTISHOT 1, FIXED_BUF 2, then ours.
  EXPECT_EQ(IORING_SEND_ZC_REPORT_USAGE &
                (IORING_RECVSEND_POLL_FIRST | IORING_RECV_MULTISHOT | IORING_RECVSEND_FIXED_BUF),
            0U);
  // cqe->flags: BUFFER 0, MORE 1, SOCK_NONEMPTY 2, NOTIF 3, then BUF_MORE.
  EXPECT_EQ(IORING_CQE_F_BUF_MORE & (IORING_CQE_F_BUFFER | IORING_CQE_F_MORE |
                                     IORING_CQE_F_SOCK_NONEMPTY | IORING_CQE_F_NOTIF),
            0U);
}

}  // namespace
}  // namespace xttcp
