#include "io_backends/iocp/iocp_backend.hh"

#include "io_backends/iocp/iocp_port.hh"
#include "io_backends/iocp/rr_requester.hh"
#include "io_backends/iocp/rr_responder.hh"
#include "io_backends/iocp/tcp_receiver.hh"
#include "io_backends/iocp/tcp_sender.hh"
#include "io_backends/iocp/udp_receiver.hh"
#include "io_backends/iocp/udp_sender.hh"

namespace xttcp {

namespace {

class IocpBackend final : public Backend {
 public:
  std::string_view name() const override { return "iocp"; }
  std::string_view description() const override {
    return "Winsock overlapped I/O on a completion port, N buffers outstanding per connection";
  }
  Availability probe() const override {
    if (Status started = start_sockets(); !started) return {false, started.error().message};
    auto port = iocp::CompletionPort::create();
    if (!port) return {false, port.error().message};
    return {true, ""};
  }
  uint32_t capabilities() const override {
    return cap_tcp | cap_udp | cap_socket_buffers | cap_verify_data | cap_wait_all |
           cap_thread_rate | cap_udp_unconnected | cap_call_timing | cap_several_hosts |
           cap_count_mode |  // count mode, TCP and UDP (end markers)
           cap_count_reads;
  }
  // The data path of Windows builds: --backend auto takes it for TCP and UDP alike.
  std::string auto_refusal(const TestSpec&) const override { return {}; }
  Status check(const TestSpec& spec) const override {
    if (spec.uring.sqpoll)
      return fail("--sqpoll: the iocp backend has no submission queue (io_uring only, Linux)");
    if (spec.io.zerocopy == ZeroCopy::on)
      return fail("--zerocopy: the iocp backend has no zero-copy sends (Linux epoll and io_uring)");
    if (spec.io.busy_poll_us > 0)
      return fail(
          "--busy-poll: the iocp backend cannot busy-poll (SO_BUSY_POLL is Linux's; "
          "Windows has no such socket option)");
    if (!spec.io.congestion.empty())
      return fail(
          "--congestion: the iocp backend cannot choose a connection's congestion "
          "control (Windows sets it for the whole system: netsh int tcp set supplemental)");
    if (spec.layout.source_addresses.size() > 1)
      return fail(
          "--source-addresses: the iocp backend binds every connection to one source "
          "address (give one, or -a)");
    if (spec.dialect == Dialect::iperf2 && spec.workload.protocol == Protocol::udp)
      return fail(
          "the iperf2 dialect's UDP (-u): the iocp backend does not write or read iperf 2's "
          "datagram heads yet (Linux epoll and io_uring do; TCP works)");
    return ok();
  }
  Expected<std::unique_ptr<DataWorker>> make_worker(const WorkerContext& context) override {
    const bool sender = context.spec->role == Role::sender;
    if (context.spec->rr.on) {  // TCP and UDP alike
      if (sender) return std::unique_ptr<DataWorker>(std::make_unique<iocp::RrRequester>(context));
      return std::unique_ptr<DataWorker>(std::make_unique<iocp::RrResponder>(context));
    }
    if (context.spec->workload.protocol == Protocol::udp) {
      if (sender) return std::unique_ptr<DataWorker>(std::make_unique<iocp::UdpSender>(context));
      return std::unique_ptr<DataWorker>(std::make_unique<iocp::UdpReceiver>(context));
    }
    if (sender) return std::unique_ptr<DataWorker>(std::make_unique<iocp::TcpSender>(context));
    return std::unique_ptr<DataWorker>(std::make_unique<iocp::TcpReceiver>(context));
  }
};

}  // namespace

std::unique_ptr<Backend> make_iocp_backend() { return std::make_unique<IocpBackend>(); }

}  // namespace xttcp
