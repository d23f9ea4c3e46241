// The iperf2 dialect's server: iperf 2 has no control connection, so a test is its streams. The
// first stream's connection (UDP: its first datagram) starts the test; it ends once every stream
// accepted has ended (an iperf 2 client closes each TCP stream after -t, and ends each UDP stream
// with a FIN datagram; a stream also ends on a reset, and a UDP stream after iperf2_silence_ns
// without a datagram or when newer sources push it out of the flow table: docs/hostile-peers.md).
#include <atomic>

#include "engine/report/log.hh"
#include "engine/run/control_plane/receiver_control.hh"
#include "engine/run/control_plane/receivers.hh"

namespace xttcp {

namespace {

class Iperf2Receiver final : public ReceiverControl {
 public:
  explicit Iperf2Receiver(const ReceiverControlContext& context) : context_(context) {}

  std::function<void()> accept_hook() override {
    return [this] {
      accepted_.fetch_add(1);
      context_.gate.open(context_.spec.cycle_s());
    };
  }
  std::function<void()> flow_done_hook() override {
    return [this] {
      // Counted after the accept it pairs with (the same worker thread), so equal means every
      // stream accepted so far has ended, however it ended.
      if (closed_.fetch_add(1) + 1 == accepted_.load())
        context_.clock.finish(StopCause::flows_done, "the client closed every stream");
    };
  }
  Status open() override { return ok(); }
  uint32_t threads() const override { return 0; }
  std::optional<SteadyClock::time_point> test_started(
      SteadyClock::time_point, std::optional<SteadyClock::time_point>) override {
    return std::nullopt;
  }
  void test_finished() override { test_base_.store(accepted_.load()); }
  std::optional<uint32_t> streams() const override { return accepted_.load() - test_base_.load(); }
  void stop() override {}

 private:
  ReceiverControlContext context_;
  std::atomic<uint32_t> accepted_{0};
  std::atomic<uint32_t> closed_{0};
  std::atomic<uint32_t> test_base_{0};  // streams accepted before the test under way
};

}  // namespace

std::unique_ptr<ReceiverControl> make_iperf2_receiver(const ReceiverControlContext& context) {
  return std::make_unique<Iperf2Receiver>(context);
}

}  // namespace xttcp
