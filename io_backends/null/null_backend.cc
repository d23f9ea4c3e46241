#include "io_backends/null/null_backend.hh"

#include <thread>

namespace xttcp {

namespace {

class NullWorker final : public DataWorker {
 public:
  explicit NullWorker(const WorkerContext& context) : context_(context) {}

  Status open() override { return ok(); }

  void run(const std::atomic<bool>& stop) override {
    const auto& flows = context_.plan->flows;
    if (context_.spec->role != Role::sender || flows.empty()) {
      while (!stop.load(std::memory_order_relaxed))
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return;
    }
    const uint64_t buffer = context_.spec->workload.send_buffer;
    FlowCounter* counters = context_.counters;
    // Same shape as a real sender loop: round-robin over the worker's flows.
    while (!stop.load(std::memory_order_relaxed))
      for (const FlowPlan& flow : flows) counters[flow.slot].add(buffer);
  }

  WorkerReport finish() override {
    WorkerReport report;
    report.connections = context_.spec->role == Role::sender
                             ? static_cast<uint32_t>(context_.plan->flows.size())
                             : 0;
    return report;
  }

 private:
  const WorkerContext& context_;
};

class NullBackend final : public Backend {
 public:
  std::string_view name() const override { return "null"; }
  std::string_view description() const override {
    return "no I/O: measures the engine's own overhead";
  }
  Availability probe() const override { return {true, ""}; }
  // No sockets: none of the socket options (so no hosts to tell apart either).
  uint32_t capabilities() const override { return cap_tcp | cap_several_hosts; }
  std::string_view instead() const override {
    return "it opens no sockets; use a kernel-socket backend";
  }
  Status check(const TestSpec& spec) const override {
    if (spec.rr.on)
      return fail("--rr: the null backend has no peer to answer (use --backend epoll)");
    return ok();
  }
  Expected<std::unique_ptr<DataWorker>> make_worker(const WorkerContext& context) override {
    return std::unique_ptr<DataWorker>(std::make_unique<NullWorker>(context));
  }
};

}  // namespace

std::unique_ptr<Backend> make_null_backend() { return std::make_unique<NullBackend>(); }

}  // namespace xttcp
