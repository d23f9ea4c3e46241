// NTttcp for Windows on the receiver: with -sp the data-port hand-out on the base port (its own
// thread, until the test starts), and the token handshake (each thread's token on its data port
// + 1000, on its mapping's host; its own thread); the test starts once every thread's token
// counted. With -ns there are no tokens: it starts once every thread has its data connection.
// Who may speak for a thread, and every deadline, is docs/hostile-peers.md: the data
// connections the workers report, the hand-outs and the counted tokens are its evidence.
#include <atomic>
#include <thread>

#include "engine/control/port_assignment.hh"
#include "engine/control/sender_evidence.hh"
#include "engine/control/token_server.hh"
#include "engine/control/windows_token.hh"
#include "engine/net/socket_setup.hh"
#include "engine/report/log.hh"
#include "engine/run/control_plane/receiver_control.hh"
#include "engine/run/control_plane/receivers.hh"

namespace xttcp {

namespace {

class WindowsReceiver final : public ReceiverControl {
 public:
  explicit WindowsReceiver(const ReceiverControlContext& context) : context_(context) {}
  ~WindowsReceiver() override { stop(); }

  std::function<void()> accept_hook() override {
    if (!context_.spec.control.no_sync) return {};
    // -ns: the clock starts once every thread has its connection; the first one's time is
    // where a count-mode window begins.
    return [this, threads = context_.spec.layout.ports, cycle = context_.spec.cycle_s()] {
      SteadyClock::rep none = 0;
      first_accept_.compare_exchange_strong(none, SteadyClock::now().time_since_epoch().count());
      if (accepted_.fetch_add(1) + 1 == threads) context_.gate.open(cycle);
    };
  }

  std::function<void(const SocketAddress&, uint16_t)> data_connection_hook() override {
    // The tokens and -sp's claims are judged by who connected to the data ports (TCP).
    if (!windows_token::uses_tokens(context_.spec) && !context_.spec.control.port_assignment)
      return {};
    return [this](const SocketAddress& peer, uint16_t port) {
      evidence_.data_connection(port, peer.host(), SenderEvidence::Clock::now());
    };
  }

  Status open() override {
    const TestSpec& spec = context_.spec;
    if (spec.control.port_assignment) {
      // One host (check_windows_dialect_supported): the original hands out every port there.
      SocketAddress base = context_.locals.front();
      base.set_port(spec.layout.base_port);
      auto listener = listen_tcp(base, static_cast<int>(spec.layout.ports));
      if (!listener) return fail("-sp: " + listener.error().message);
      port_listener_ = std::move(*listener);
    }
    if (windows_token::uses_tokens(spec)) {
      std::vector<SocketAddress> endpoints;
      for (const windows_token::TokenTarget& target : windows_token::token_targets(context_.plan)) {
        endpoints.push_back(context_.locals[target.host]);
        endpoints.back().set_port(target.port);
      }
      auto listeners = listen_token_ports(endpoints);
      if (!listeners) return listeners.error();
      token_listeners_ = std::move(*listeners);
    }
    if (port_listener_.valid()) handout_thread_ = std::thread([this] { hand_out_ports(); });
    if (!token_listeners_.empty()) token_thread_ = std::thread([this] { exchange_tokens(); });
    return ok();
  }

  uint32_t threads() const override { return 0; }

  std::optional<SteadyClock::time_point> test_started(
      SteadyClock::time_point, std::optional<SteadyClock::time_point>) override {
    handouts_over_ = true;  // -sp hands out no port once the test runs
    context_.log.info("Network activity progressing...");
    if (const SteadyClock::rep first = first_accept_.exchange(0); first != 0)
      return SteadyClock::time_point(SteadyClock::duration(first));
    return std::nullopt;
  }
  void test_finished() override {}
  bool failed() const override { return failed_.load(); }

  void stop() override {
    stop_ = true;
    handouts_over_ = true;
    if (token_thread_.joinable()) token_thread_.join();
    if (handout_thread_.joinable()) handout_thread_.join();
  }

 private:
  // --allow / --max-clients: the -sp and token ports are control connections, as the sync
  // port is in the Linux dialect; what a peer makes them say is rate-limited by their door.
  ControlPortHooks hooks() {
    ControlPortHooks door;
    if (PeerAdmission* admission = context_.admission; admission != nullptr && !admission->open())
      door.admit = [admission](const SocketAddress& peer) {
        return admission->admit_connection(peer, PeerAdmission::Door::control);
      };
    door.log = [this](std::string_view line, bool is_error) {
      is_error ? context_.log.error(line) : context_.log.info(line);
    };
    return door;
  }

  void hand_out_ports() {
    serve_assigned_ports(std::move(port_listener_), windows_token::first_data_port(context_.spec),
                         context_.spec.layout.ports, handouts_over_, hooks(), evidence_);
  }

  void exchange_tokens() {
    const TestSpec& spec = context_.spec;
    // UDP: each thread's sender may declare its flow after the tokens (an xttcp sender does);
    // then only those flows are the test's, as with a sync receiver's native hello.
    udp::FlowAdmission* admission =
        spec.workload.protocol == Protocol::udp ? context_.flow_admission : nullptr;
    std::vector<std::optional<windows_token::FlowDeclaration>> flows;
    const TokenServing serving{spec.workload.protocol == Protocol::tcp,
                               spec.control.port_assignment, &evidence_};
    Status exchanged = serve_tokens(std::move(token_listeners_), stop_, hooks(), serving,
                                    admission != nullptr ? &flows : nullptr);
    if (!exchanged) return give_up(exchanged);
    handouts_over_ = true;
    if (admission != nullptr) admission->declare(windows_token::declared_flows(flows));
    context_.gate.open(spec.cycle_s());
  }
  void give_up(const Status& why) {
    if (stop_) return;  // stopped on purpose: nothing failed
    context_.log.error(why.error().message);
    failed_ = true;
    context_.gate.interrupt();
  }

  ReceiverControlContext context_;
  SenderEvidence evidence_;
  std::atomic<uint32_t> accepted_{0};
  std::atomic<SteadyClock::rep> first_accept_{0};
  UniqueSocket port_listener_;
  std::vector<UniqueSocket> token_listeners_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> handouts_over_{false};
  std::atomic<bool> failed_{false};
  std::thread handout_thread_;
  std::thread token_thread_;
};

}  // namespace

std::unique_ptr<ReceiverControl> make_windows_receiver(const ReceiverControlContext& context) {
  return std::make_unique<WindowsReceiver>(context);
}

}  // namespace xttcp
