#include "io_backends/uring/probe.hh"

#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "base/unique_fd.hh"
#include "io_backends/uring/compat.hh"

namespace xttcp {

namespace {

constexpr const char* disabled_by_env = "disabled by XTTCP_URING_DISABLE";

std::string errno_text(int err) { return std::strerror(err); }

// A throw-away ring for probing; torn down on scope exit.
struct ProbeRing {
  io_uring ring{};
  io_uring_params params{};
  int error = 0;  // errno of io_uring_queue_init_params, 0 = created

  explicit ProbeRing(unsigned flags) {
    params.flags = flags;
    if (flags & IORING_SETUP_SQPOLL) params.sq_thread_idle = 1;  // ms
    const int r = io_uring_queue_init_params(8, &ring, &params);
    error = r < 0 ? -r : 0;
  }
  ~ProbeRing() {
    if (error == 0) io_uring_queue_exit(&ring);
  }
  bool created() const { return error == 0; }
};

// Waits (bounded) for the CQE with `user_data`; false on timeout.
bool wait_for(io_uring& ring, uint64_t user_data, io_uring_cqe& out) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    __kernel_timespec ts{0, 50'000'000};
    io_uring_cqe* cqe = nullptr;
    const int r = io_uring_submit_and_wait_timeout(&ring, &cqe, 1, &ts, nullptr);
    if (r < 0 && r != -ETIME && r != -EINTR) return false;
    unsigned head, seen = 0;
    bool found = false;
    io_uring_for_each_cqe(&ring, head, cqe) {
      ++seen;
      if (!found && cqe->user_data == user_data && !(cqe->flags & IORING_CQE_F_NOTIF)) {
        out = *cqe;
        found = true;
      }
    }
    io_uring_cq_advance(&ring, seen);
    if (found) return true;
  }
  return false;
}

// Registers a two-entry buffer ring, then tries a multishot recv from it and a SEND_ZC with
// usage reports, both on an AF_UNIX socket pair (no network needed).
void probe_buffers_and_sends(io_uring& ring, const io_uring_probe* ops, UringCapabilities& c) {
  constexpr uint16_t group = 0;
  constexpr unsigned entries = 2;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* memory = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    c.buf_ring_reason = "mmap: " + errno_text(errno);
    return;
  }
  auto* br = static_cast<io_uring_buf_ring*>(memory);
  io_uring_buf_ring_init(br);
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<uintptr_t>(br);
  reg.ring_entries = entries;
  reg.bgid = group;
  if (const int r = io_uring_register_buf_ring(&ring, &reg, 0); r < 0) {
    c.buf_ring_reason = "kernel lacks provided-buffer rings (Linux 5.19): " + errno_text(-r);
    c.multishot_reason = "needs provided-buffer rings";
    munmap(memory, page);
    return;
  }
  c.buf_ring = true;

  char byte_buffers[entries][64];
  for (unsigned i = 0; i < entries; ++i)
    io_uring_buf_ring_add(br, byte_buffers[i], sizeof byte_buffers[i], static_cast<uint16_t>(i),
                          io_uring_buf_ring_mask(entries), static_cast<int>(i));
  io_uring_buf_ring_advance(br, entries);

  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    c.multishot_reason = "socketpair: " + errno_text(errno);
  } else {
    UniqueFd left(pair[0]), right(pair[1]);
    // Multishot recv: a kernel without it rejects IORING_RECV_MULTISHOT with -EINVAL.
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    io_uring_prep_recv_multishot(sqe, left.get(), nullptr, 0, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = group;
    sqe->user_data = 1;
    const char one = 'A';
    if (::write(right.get(), &one, 1) != 1) c.multishot_reason = "write: " + errno_text(errno);
    io_uring_cqe cqe{};
    if (!wait_for(ring, 1, cqe)) {
      c.multishot_reason = "no completion from a multishot recv";
    } else if (cqe.res == 1 && (cqe.flags & IORING_CQE_F_MORE)) {
      c.multishot_recv = true;
    } else {
      c.multishot_reason = "kernel lacks multishot recv (Linux 6.0): " +
                           (cqe.res < 0 ? errno_text(-cqe.res) : std::string("ended at once"));
    }

    // SEND_ZC with IORING_SEND_ZC_REPORT_USAGE: AF_UNIX has no zero copy, so a kernel that
    // knows the flag fails the send with EOPNOTSUPP; one that does not rejects it with EINVAL.
    if (!io_uring_opcode_supported(ops, IORING_OP_SEND_ZC)) {
      c.send_zc_reason = "kernel lacks IORING_OP_SEND_ZC (Linux 6.0)";
    } else {
      sqe = io_uring_get_sqe(&ring);
      io_uring_prep_send_zc(sqe, right.get(), &one, 1, MSG_NOSIGNAL, IORING_SEND_ZC_REPORT_USAGE);
      sqe->user_data = 2;
      if (!wait_for(ring, 2, cqe)) {
        c.send_zc_reason = "no completion from SEND_ZC";
      } else if (cqe.res == -EINVAL) {
        c.send_zc_reason = "kernel lacks IORING_SEND_ZC_REPORT_USAGE (Linux 6.2)";
      } else {
        c.send_zc = true;
      }
    }
    // The multishot recv is still armed: end it while its buffers exist.
    sqe = io_uring_get_sqe(&ring);
    io_uring_prep_cancel64(sqe, 1, 0);
    sqe->user_data = 3;
    wait_for(ring, 3, cqe);
  }
  // Tears the probe ring's requests down before the buffers go away.
  io_uring_unregister_buf_ring(&ring, group);
  munmap(memory, page);
}

void probe_kernel(UringCapabilities& c) {
  ProbeRing base(0);
  if (!base.created()) {
    c.ring_reason = "io_uring_setup: " + errno_text(base.error);
    if (base.error == EPERM)
      c.ring_reason += " (disabled by the kernel.io_uring_disabled sysctl or a seccomp filter)";
    if (base.error == ENOSYS) c.ring_reason += " (kernel built without io_uring)";
    return;
  }
  io_uring_probe* ops = io_uring_get_probe_ring(&base.ring);
  if (ops == nullptr) {
    c.ring_reason = "io_uring_get_probe failed (kernel older than 5.6)";
    return;
  }
  c.send = io_uring_opcode_supported(ops, IORING_OP_SEND);
  c.recv = io_uring_opcode_supported(ops, IORING_OP_RECV);
  c.accept = io_uring_opcode_supported(ops, IORING_OP_ACCEPT);
  if (!c.send || !c.recv || !c.accept) {
    c.ring_reason = "kernel lacks IORING_OP_SEND/RECV/ACCEPT (Linux 5.6)";
    io_uring_free_probe(ops);
    return;
  }
  c.ring = true;

  if (ProbeRing(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN).created())
    c.ring_mode = RingMode::defer_taskrun;
  else if (ProbeRing(IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG).created())
    c.ring_mode = RingMode::coop_taskrun;

  // Multishot accept came with IORING_OP_SOCKET (Linux 5.19); no cheaper way to tell.
  c.multishot_accept = io_uring_opcode_supported(ops, IORING_OP_SOCKET);
  probe_buffers_and_sends(base.ring, ops, c);

  if (base.params.features & IORING_FEAT_RECVSEND_BUNDLE)
    c.bundle = true;
  else
    c.bundle_reason = "kernel lacks IORING_FEAT_RECVSEND_BUNDLE (Linux 6.10)";

  if (ProbeRing sq(IORING_SETUP_SQPOLL); sq.created())
    c.sqpoll = true;
  else
    c.sqpoll_reason = "IORING_SETUP_SQPOLL: " + errno_text(sq.error) +
                      (sq.error == EPERM ? " (needs CAP_SYS_NICE before Linux 5.11)" : "");

  c.zcrx_reason = io_uring_opcode_supported(ops, uring_compat::op_recv_zc)
                      ? "needs a NIC with header/data split and flow steering, not lo/veth/virtio"
                      : "kernel lacks IORING_OP_RECV_ZC (Linux 6.15)";
  io_uring_free_probe(ops);
}

}  // namespace

std::string UringCapabilities::summary() const {
  if (!ring) return ring_reason;
  auto item = [](const char* name, bool yes, const std::string& reason) {
    std::string text = std::string(name) + (yes ? " yes" : " no");
    if (!yes && !reason.empty()) text += " (" + reason + ")";
    return text;
  };
  return item("multishot", multishot_recv, multishot_reason) + ", " +
         item("buf_ring", buf_ring, buf_ring_reason) + ", " +
         item("bundles", bundle, bundle_reason) + ", " + item("send_zc", send_zc, send_zc_reason) +
         ", " + item("sqpoll", sqpoll, sqpoll_reason) + ", " + item("zcrx", zcrx, zcrx_reason);
}

UringCapabilities apply_uring_disable_list(UringCapabilities c, std::string_view list) {
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view word = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    while (!word.empty() && word.front() == ' ') word.remove_prefix(1);
    while (!word.empty() && word.back() == ' ') word.remove_suffix(1);
    if (word == "all") {
      c.ring = false;
      c.ring_reason = std::string(disabled_by_env) + "=all";
    } else if (word == "send_zc") {
      c.send_zc = false;
      c.send_zc_reason = disabled_by_env;
    } else if (word == "multishot") {
      c.multishot_recv = c.multishot_accept = false;
      c.multishot_reason = disabled_by_env;
    } else if (word == "buf_ring") {
      c.buf_ring = false;
      c.buf_ring_reason = disabled_by_env;
    } else if (word == "bundle") {
      c.bundle = false;
      c.bundle_reason = disabled_by_env;
    } else if (word == "sqpoll") {
      c.sqpoll = false;
      c.sqpoll_reason = disabled_by_env;
    } else if (word == "defer_taskrun" && c.ring_mode == RingMode::defer_taskrun) {
      c.ring_mode = RingMode::coop_taskrun;
    }
  }
  return c;
}

UringCapabilities probe_uring() {
  UringCapabilities c;
  probe_kernel(c);
  const char* disable = std::getenv("XTTCP_URING_DISABLE");
  return apply_uring_disable_list(std::move(c), disable != nullptr ? disable : "");
}

}  // namespace xttcp
