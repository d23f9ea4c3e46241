// What the running kernel's io_uring offers, found once at run time (control path). The data path
// decides from this struct only, so a test can force any answer (XTTCP_URING_DISABLE below).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace xttcp {

// How the worker rings are created, best first.
enum class RingMode {
  defer_taskrun,  // IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN (Linux 6.1)
  coop_taskrun,   // IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG (Linux 5.19)
  plain,
};

struct UringCapabilities {
  // A ring can be created at all (false: the backend is unavailable, `ring_reason` says why).
  bool ring = false;
  RingMode ring_mode = RingMode::plain;
  bool send = false, recv = false, accept = false;  // the basic opcodes
  bool send_zc = false;                             // IORING_OP_SEND_ZC with usage reports
  bool multishot_accept = false;
  bool multishot_recv = false;
  bool buf_ring = false;  // provided-buffer rings (io_uring_register_buf_ring)
  bool bundle = false;    // IORING_FEAT_RECVSEND_BUNDLE
  bool sqpoll = false;    // IORING_SETUP_SQPOLL allowed for this process
  bool zcrx = false;      // zero-copy receive (never found without a suitable NIC)

  // Why each missing feature is missing ("" when present).
  std::string ring_reason, send_zc_reason, multishot_reason, buf_ring_reason, bundle_reason,
      sqpoll_reason, zcrx_reason;

  // Multishot receive into a provided-buffer ring needs both.
  bool multishot_rx() const { return multishot_recv && buf_ring; }
  // "multishot yes, buf_ring yes, bundles yes, send_zc yes, sqpoll yes, zcrx no (...)"
  std::string summary() const;
};

// Probes the kernel. Honours the environment variable XTTCP_URING_DISABLE, read on each call:
// a comma list of send_zc, multishot, buf_ring, bundle, sqpoll, defer_taskrun, or all ("all" =
// the backend is unavailable), so a test can simulate a kernel lacking a feature. Unknown words
// are ignored. Costs a few ring creations (one with an SQPOLL thread): call it once per process.
UringCapabilities probe_uring();

// Applies an XTTCP_URING_DISABLE list to a probe result (pure; exposed for tests).
UringCapabilities apply_uring_disable_list(UringCapabilities caps, std::string_view list);

}  // namespace xttcp
