// -N (NTTTCP-for-Linux): no control connection; the first data connection (UDP: the first
// datagram) starts the test, for the receiver's own cycle.
#include "engine/report/log.hh"
#include "engine/run/control_plane/receiver_control.hh"
#include "engine/run/control_plane/receivers.hh"

namespace xttcp {

namespace {

class AcceptReceiver final : public ReceiverControl {
 public:
  explicit AcceptReceiver(const ReceiverControlContext& context) : context_(context) {}

  std::function<void()> accept_hook() override {
    return [&gate = context_.gate, cycle = context_.spec.cycle_s()] { gate.open(cycle); };
  }
  Status open() override { return ok(); }
  uint32_t threads() const override { return 0; }
  std::optional<SteadyClock::time_point> test_started(
      SteadyClock::time_point, std::optional<SteadyClock::time_point>) override {
    context_.log.info("Network activity progressing...");
    return std::nullopt;
  }
  void test_finished() override {}
  void stop() override {}

 private:
  ReceiverControlContext context_;
};

}  // namespace

std::unique_ptr<ReceiverControl> make_accept_receiver(const ReceiverControlContext& context) {
  return std::make_unique<AcceptReceiver>(context);
}

}  // namespace xttcp
