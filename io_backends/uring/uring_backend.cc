#include "io_backends/uring/uring_backend.hh"

#include <mutex>
#include <optional>

#include "io_backends/uring/uring_receiver.hh"
#include "io_backends/uring/uring_rr_requester.hh"
#include "io_backends/uring/uring_rr_responder.hh"
#include "io_backends/uring/uring_sender.hh"
#include "io_backends/uring/uring_udp_receiver.hh"
#include "io_backends/uring/uring_udp_sender.hh"

namespace xttcp {

namespace {

class UringBackend final : public Backend {
 public:
  UringBackend() = default;
  explicit UringBackend(const UringCapabilities& caps) : caps_(caps) {}

  std::string_view name() const override { return "io_uring"; }
  std::string_view description() const override {
    return "kernel sockets, one io_uring per worker";
  }
  Availability probe() const override {
    const UringCapabilities& c = caps();
    if (!c.ring) return {false, c.ring_reason};
    return {true, c.summary()};
  }
  uint32_t capabilities() const override {
    const UringCapabilities& c = caps();
    if (!c.ring) return 0;
    // -d, -wa and -lm are not here: they need the copying receive of the epoll backend (io_uring
    // receives into rings) and a call per buffer (its receives are multishot, its submissions
    // batched).
    uint32_t flags = cap_tcp | cap_udp | cap_socket_buffers | cap_thread_rate | cap_several_hosts |
                     cap_udp_unconnected | cap_count_mode |
                     cap_udp_receive_coalescing |  // -uro: UDP_GRO (common/udp_flows.cc)
                     cap_peer_filter | cap_count_reads | cap_adopted_connections;
    if (c.send_zc) flags |= cap_zerocopy_tx;
    if (c.multishot_rx()) flags |= cap_multishot_rx;
    return flags;
  }
  Status check(const TestSpec& spec) const override {
    const UringCapabilities& c = caps();
    if (!c.ring) return fail("--backend io_uring: not available: " + c.ring_reason);
    // --rr -u: every flow keeps its requests in flight in slots of its own.
    if (spec.rr.on && spec.workload.protocol == Protocol::udp &&
        uint64_t{spec.workload.send_buffer} * spec.rr.depth > (uint64_t{64} << 20))
      return fail(
          "--rr-depth: with -u, io_uring keeps --rr-depth x -b bytes per flow; at most "
          "64 MiB (lower one of them)");
    if (spec.workload.protocol == Protocol::udp && spec.role != Role::sender && !spec.rr.on &&
        !c.multishot_rx())
      return fail("--backend io_uring: UDP receive needs multishot RECVMSG and buffer rings: " +
                  (c.multishot_recv ? c.buf_ring_reason : c.multishot_reason));
    if (spec.uring.sqpoll && !c.sqpoll)
      return fail("--sqpoll: io_uring SQPOLL is not available: " + c.sqpoll_reason);
    if (spec.io.zerocopy == ZeroCopy::on && !c.send_zc && spec.role != Role::receiver)
      return fail("--zerocopy: io_uring SEND_ZC is not available: " + c.send_zc_reason);
    // -uc: the receiver's sockets are bound, never connected (recvmsg names the source); the
    // sender's linked SENDs need connected sockets.
    if (spec.io.udp_unconnected && spec.role == Role::sender)
      return fail(
          "-uc: the io_uring backend sends on connected UDP sockets only "
          "(use --backend epoll)");
    return ok();
  }
  std::string_view instead() const override { return "use --backend epoll"; }
  // Auto ranks epoll first (backend_table_linux.cc: measured as fast or faster, bench/README.md)
  // and comes here only when epoll refused an option (--sqpoll). Without send bundles or
  // multishot receive io_uring loses at small writes: not taken then.
  std::string auto_refusal(const TestSpec& spec) const override {
    const UringCapabilities& c = caps();
    if (!c.ring) return c.ring_reason;
    if (spec.workload.protocol == Protocol::tcp && !c.bundle)
      return "no send bundles: " + c.bundle_reason;
    if (!c.multishot_rx()) return "no multishot receive: " + c.multishot_reason + c.buf_ring_reason;
    return {};
  }
  Expected<std::unique_ptr<DataWorker>> make_worker(const WorkerContext& context) override {
    const UringCapabilities& c = caps();
    const TestSpec& spec = *context.spec;
    if (spec.rr.on) {
      if (spec.role == Role::sender)
        return std::unique_ptr<DataWorker>(std::make_unique<UringRrRequester>(context, c));
      return std::unique_ptr<DataWorker>(std::make_unique<UringRrResponder>(context, c));
    }
    if (spec.workload.protocol == Protocol::udp) {
      if (spec.role == Role::sender)
        return std::unique_ptr<DataWorker>(std::make_unique<UringUdpSender>(context, c));
      return std::unique_ptr<DataWorker>(std::make_unique<UringUdpReceiver>(context, c));
    }
    if (spec.role != Role::sender)
      return std::unique_ptr<DataWorker>(std::make_unique<UringReceiver>(context, c));

    UringSendMode mode = UringSendMode::plain;
    std::vector<std::string> notes;
    if (spec.io.zerocopy == ZeroCopy::on) {
      mode = UringSendMode::zerocopy;
    } else if (spec.io.zerocopy == ZeroCopy::automatic) {
      if (c.send_zc)
        mode = UringSendMode::zerocopy_auto;
      else
        notes.push_back("zero-copy: io_uring SEND_ZC is not available (" + c.send_zc_reason +
                        "); using plain send");
    }
    return std::unique_ptr<DataWorker>(
        std::make_unique<UringSender>(context, c, mode, std::move(notes)));
  }

 private:
  const UringCapabilities& caps() const {
    std::call_once(once_, [this] {
      if (!caps_) caps_ = probe_uring();
    });
    return *caps_;
  }

  mutable std::once_flag once_;
  mutable std::optional<UringCapabilities> caps_;
};

}  // namespace

std::unique_ptr<Backend> make_uring_backend() { return std::make_unique<UringBackend>(); }

std::unique_ptr<Backend> make_uring_backend(const UringCapabilities& caps) {
  return std::make_unique<UringBackend>(caps);
}

}  // namespace xttcp
