#include "io_backends/iocp/iocp_worker.hh"

namespace xttcp::iocp {

Status IocpWorker::open_port() {
  auto port = CompletionPort::create();
  if (!port) return fail("iocp: " + port.error().message);
  port_ = std::move(*port);
  outstanding_ = outstanding_buffers(*context_.spec);
  return ok();
}

void IocpWorker::record_error(const std::string& message) {
  if (report_.errors++ == 0) report_.first_error = message;
}

}  // namespace xttcp::iocp
