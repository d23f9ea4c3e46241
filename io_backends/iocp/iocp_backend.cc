#include "io_backends/iocp/iocp_backend.hh"

#include "io_backends/iocp/iocp_port.hh"
#include "io_backends/iocp/tcp_receiver.hh"
#include "io_backends/iocp/tcp_sender.hh"
#include "io_backends/iocp/udp_receiver.hh"
#include "io_backends/iocp/udp_sender.hh"
#include "io_backends/windows_option_check.hh"

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
    return {true, "available"};
  }
  uint32_t capabilities() const override { return cap_tcp | cap_udp; }
  // The data path of Windows builds: --backend auto takes it for TCP and UDP alike.
  std::string auto_refusal(const TestSpec&) const override { return {}; }
  Status check(const TestSpec& spec) const override {
    if (spec.rr.on)
      return fail("--rr: the iocp backend has no request/response mode yet");
    if (spec.sqpoll)
      return fail("--sqpoll: the iocp backend has no submission queue (io_uring only, Linux)");
    if (spec.zerocopy == ZeroCopy::on)
      return fail("--zerocopy: the iocp backend has no zero-copy sends (Linux epoll and io_uring)");
    if (spec.source_addresses.size() > 1)
      return fail("--source-addresses: the iocp backend binds every connection to one source "
                  "address (give one, or -a)");
    if (spec.windows.udp_send_offload > 0)
      return fail("-uso: the iocp backend does not do UDP send segmentation offload");
    if (spec.windows.udp_receive_coalescing)
      return fail("-uro: the iocp backend does not do UDP receive coalescing");
    WindowsOptionSupport does;
    does.socket_buffers = does.verify_data = does.wait_all = does.throttle = true;
    does.udp_unconnected = true;
    does.latency = true;
    does.buffer_count = true;  // count mode, TCP and UDP (end markers)
    does.several_hosts = true;
    does.instead = "";
    return check_windows_options(spec, name(), does);
  }
  Expected<std::unique_ptr<DataWorker>> make_worker(const WorkerContext& context) override {
    const bool sender = context.spec->role == Role::sender;
    if (context.spec->protocol == Protocol::udp) {
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
