#include "io_backends/epoll/epoll_backend.hh"

#include <sys/epoll.h>
#include <unistd.h>

#include "io_backends/epoll/epoll_receiver.hh"
#include "io_backends/epoll/epoll_sender.hh"
#include "io_backends/epoll/rr_requester.hh"
#include "io_backends/epoll/rr_responder.hh"
#include "io_backends/epoll/udp_receiver.hh"
#include "io_backends/epoll/udp_sender.hh"

namespace xttcp {

namespace {

class EpollBackend final : public Backend {
 public:
  std::string_view name() const override { return "epoll"; }
  std::string_view description() const override {
    return "kernel sockets, non-blocking, many connections per thread (epoll)";
  }
  Availability probe() const override {
    int fd = epoll_create1(EPOLL_CLOEXEC);
    if (fd < 0) return {false, "epoll_create1 failed"};
    ::close(fd);
    return {true, ""};
  }
  uint32_t capabilities() const override {
    return cap_tcp | cap_udp | cap_zerocopy_tx | cap_socket_buffers | cap_verify_data |
           cap_wait_all | cap_thread_rate | cap_call_timing | cap_count_mode | cap_several_hosts |
           cap_udp_unconnected |  // -uc: sendto/sendmmsg with the address; receivers never connect
           cap_udp_receive_coalescing |  // -uro: UDP_GRO (common/udp_flows.cc)
           cap_peer_filter | cap_count_reads | cap_adopted_connections;
  }
  std::string_view instead() const override { return "use --backend iocp (Windows)"; }
  // The fallback of --backend auto, for TCP and UDP alike.
  std::string auto_refusal(const TestSpec&) const override { return {}; }
  Status check(const TestSpec& spec) const override {
    if (spec.uring.sqpoll)
      return fail("--sqpoll: the epoll backend has no submission queue (use --backend io_uring)");
    const bool tcp = spec.workload.protocol == Protocol::tcp;
    if (!tcp && spec.workload.verify_data && spec.role != Role::sender)
      return fail("-d: the epoll backend verifies TCP data only (drop -d or -u)");
    if (!tcp && spec.io.wait_all && spec.role != Role::sender)
      return fail("-wa: MSG_WAITALL is a TCP receive flag (drop -wa or -u)");
    return ok();
  }
  Expected<std::unique_ptr<DataWorker>> make_worker(const WorkerContext& context) override {
    const bool sender = context.spec->role == Role::sender;
    if (context.spec->rr.on) {
      if (sender) return std::unique_ptr<DataWorker>(std::make_unique<EpollRrRequester>(context));
      return std::unique_ptr<DataWorker>(std::make_unique<EpollRrResponder>(context));
    }
    if (context.spec->workload.protocol == Protocol::udp) {
      if (sender) return std::unique_ptr<DataWorker>(std::make_unique<EpollUdpSender>(context));
      return std::unique_ptr<DataWorker>(std::make_unique<EpollUdpReceiver>(context));
    }
    if (sender) return std::unique_ptr<DataWorker>(std::make_unique<EpollSender>(context));
    return std::unique_ptr<DataWorker>(std::make_unique<EpollReceiver>(context));
  }
};

}  // namespace

std::unique_ptr<Backend> make_epoll_backend() { return std::make_unique<EpollBackend>(); }

}  // namespace xttcp
