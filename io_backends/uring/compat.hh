// io_uring constants newer than Debian 12's liburing 2.3 headers. Each is the kernel ABI value
// (include/uapi/linux/io_uring.h) and is only defined when the installed headers lack it; whether
// the running kernel supports it is decided at run time (probe.hh), never from these defines.
#pragma once

#include <liburing.h>

#include <cstdint>

// sqe->ioprio of SEND_ZC: the notification's res reports whether the kernel copied. Linux 6.2.
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#endif

// Notification cqe->res with IORING_SEND_ZC_REPORT_USAGE: the data was copied. Linux 6.2.
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif

// sqe->ioprio of SEND/RECV: take (or fill) several provided buffers in one request. Linux 6.10.
#ifndef IORING_RECVSEND_BUNDLE
#define IORING_RECVSEND_BUNDLE (1U << 4)
#endif

// io_uring_params.features: the kernel supports IORING_RECVSEND_BUNDLE. Linux 6.10.
#ifndef IORING_FEAT_RECVSEND_BUNDLE
#define IORING_FEAT_RECVSEND_BUNDLE (1U << 14)
#endif

// cqe->flags: an incrementally consumed buffer (IOU_PBUF_RING_INC) has room left. Linux 6.12.
#ifndef IORING_CQE_F_BUF_MORE
#define IORING_CQE_F_BUF_MORE (1U << 4)
#endif

// Setup flags we ask for. COOP_TASKRUN and TASKRUN_FLAG: Linux 5.19; SINGLE_ISSUER: 6.0;
// DEFER_TASKRUN: 6.1 (liburing 2.3 has them; the guards keep older headers building).
#ifndef IORING_SETUP_COOP_TASKRUN
#define IORING_SETUP_COOP_TASKRUN (1U << 8)
#endif
#ifndef IORING_SETUP_TASKRUN_FLAG
#define IORING_SETUP_TASKRUN_FLAG (1U << 9)
#endif
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif

// io_uring_register_buf_ring flags: the kernel allocates the ring memory (Linux 6.4) and
// buffers may be consumed incrementally (Linux 6.12). liburing 2.3 has neither enumerator.
namespace xttcp::uring_compat {
inline constexpr unsigned pbuf_ring_mmap = 1;  // IOU_PBUF_RING_MMAP
inline constexpr unsigned pbuf_ring_inc = 2;   // IOU_PBUF_RING_INC
// io_uring_register(2) opcode for a zero-copy receive interface queue. Linux 6.15.
inline constexpr unsigned register_zcrx_ifq = 32;  // IORING_REGISTER_ZCRX_IFQ
// io_uring_register(2) opcode for NAPI busy poll settings (Linux 6.9), and its argument: the
// busy poll time in µs and whether to prefer busy polling; the rest 0 (on 6.13+ that is the
// register operation with dynamic NAPI id tracking).
inline constexpr unsigned register_napi = 27;  // IORING_REGISTER_NAPI
struct Napi {
  uint32_t busy_poll_to = 0;
  uint8_t prefer_busy_poll = 0;
  uint8_t rest[3] = {};
  uint64_t resv = 0;
};
static_assert(sizeof(Napi) == 16);
// Opcodes past liburing 2.3's enum. RECV_ZC: Linux 6.15.
inline constexpr unsigned op_recv_zc = 58;  // IORING_OP_RECV_ZC
}  // namespace xttcp::uring_compat
