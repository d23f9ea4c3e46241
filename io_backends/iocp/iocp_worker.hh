// What every iocp worker (TCP and UDP, sender and receiver) has: its completion port, the number
// of overlapped operations per connection (-a), the -lm timer, the count of operations the
// kernel holds, the teardown flags and the report. The port is a base member, so it is destroyed
// after every socket of the worker built on it.
#pragma once

#include <cstdint>
#include <string>

#include "engine/backend/data_worker.hh"
#include "engine/stats/call_timer.hh"
#include "io_backends/iocp/iocp_port.hh"
#include "io_backends/iocp/outstanding.hh"

namespace xttcp::iocp {

class ListenerSet;

class IocpWorker : public DataWorker {
 protected:
  friend class ListenerSet;  // a part of the receiving workers: their port, pending_, report

  explicit IocpWorker(const WorkerContext& context)
      : context_(context), timer_(context.latency_period) {}

  // The first step of open(): creates the port and reads -a. Error: "iocp: <reason>".
  Status open_port();
  // Counts an error; the first one is the report's first_error.
  void record_error(const std::string& message);

  const WorkerContext& context_;
  const CallTimer timer_;  // -lm: each operation from its start to its completion
  CompletionPort port_;
  uint32_t outstanding_ = default_outstanding;  // operations per connection (-a)
  uint64_t pending_ = 0;    // operations the kernel holds: a completion packet will come for each
  bool stopping_ = false;   // completions are still handled, nothing new is started
  bool shut_down_ = false;  // everything was cancelled and the port drained (bounded)
  bool leak_ = false;       // the kernel kept some operations past the drain: their memory stays
  WorkerReport report_;
};

}  // namespace xttcp::iocp
