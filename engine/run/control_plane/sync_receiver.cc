// NTTTCP-for-Linux's sync port on the receiver (SyncServer), with xttcp's native extension: a
// native sender hands in its result after its 'E' and takes ours.
#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "engine/control/sync_server.hh"
#include "engine/report/log.hh"
#include "engine/report/native_json.hh"
#include "engine/run/control_plane/receiver_control.hh"
#include "engine/run/control_plane/receivers.hh"
#include "engine/rss/receiver_rss.hh"
#include "engine/rss/rss_json.hh"
#include "engine/run/descriptor_limit.hh"
#include "engine/run/hello.hh"
#include "engine/run/reverse_roles.hh"
#include "engine/run/workload_agreement.hh"

namespace xttcp {

namespace {

// Results that native (xttcp) senders send at their end, filled on the sync thread. Each native
// sender of the test owes one; a test waits for the ones it is owed.
class PeerResults {
 public:
  // A test starts whose senders include `native_senders` xttcp senders.
  void expect(int native_senders) {
    std::lock_guard lock(mutex_);
    owed_ = native_senders;
    results_.clear();
  }
  void add(Result result) {
    {
      std::lock_guard lock(mutex_);
      results_.push_back(std::move(result));
    }
    changed_.notify_all();
  }
  // A sender's result frame could not be read: it owes nothing more.
  void unreadable() {
    {
      std::lock_guard lock(mutex_);
      if (owed_ > 0) --owed_;
    }
    changed_.notify_all();
  }
  // Every result owed by the native senders of this test (-M: several), waiting up to `timeout`
  // for them. What has not come by then is written off (that sender died), so later tests do
  // not wait for it.
  std::vector<Result> take_all(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, timeout,
                      [this] { return results_.size() >= static_cast<size_t>(owed_); });
    owed_ = 0;
    return std::exchange(results_, {});
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int owed_ = 0;
  std::vector<Result> results_;
};

// When the measured window is expected to end, so a lost sender can be told from a finished one.
// The sync thread turns it on with the light; the engine thread learns the window's end a moment
// later (on a loaded host, after a sender that connected and left at once has gone already).
class WindowWatch {
 public:
  void light_on() {
    std::lock_guard lock(mutex_);
    active_ = true;
    measure_end_.reset();
    continuous_ = false;
  }
  // nullopt: continuous mode (-t 0), where a sender leaving never ends the test.
  void begin(std::optional<SteadyClock::time_point> measure_end) {
    std::lock_guard lock(mutex_);
    measure_end_ = measure_end;
    continuous_ = !measure_end;
  }
  void end() {
    std::lock_guard lock(mutex_);
    active_ = false;
  }
  // True if "now" is well inside the measured window, or the test has only just started.
  bool well_inside() const {
    std::lock_guard lock(mutex_);
    if (!active_ || continuous_) return false;
    return !measure_end_ || SteadyClock::now() + std::chrono::milliseconds(500) < *measure_end_;
  }
  // True once the measured window is over and the test is in its cool-down.
  bool cooling_down() const {
    std::lock_guard lock(mutex_);
    return active_ && measure_end_ && SteadyClock::now() >= *measure_end_;
  }

 private:
  mutable std::mutex mutex_;
  std::optional<SteadyClock::time_point> measure_end_;
  bool active_ = false;
  bool continuous_ = false;
};

class SyncReceiver final : public ReceiverControl {
 public:
  explicit SyncReceiver(const ReceiverControlContext& context)
      : context_(context), rss_(context.spec, context.plan, context.device) {}

  Status open() override {
    const TestSpec& spec = context_.spec;
    SyncServerHooks hooks;
    udp::FlowAdmission* flows =
        spec.workload.protocol == Protocol::udp ? context_.flow_admission : nullptr;
    // Until a test's senders declare their flows, no native datagram is a test's.
    if (flows != nullptr) flows->require_declarations();
    if (Status loaded = rss_.load(); !loaded) return loaded;
    hooks.native_hello =
        [this, &spec, flows](
            int peer, const std::string& sender_hello,
            const std::optional<SocketAddress>& reached_at) -> Expected<std::string> {
      // Two xttcp peers agree on the workload before it runs: what the sender asks for that
      // this receiver cannot serve is refused now, naming both settings.
      auto sender = spec_in_hello(sender_hello);
      if (!sender) return sender.error();
      if (auto mismatch = workload_mismatch(*sender, spec)) return fail(*mismatch);
      // TCP: its connections must fit below the descriptors kept for the sync port, or the
      // reserve would close some at once and the test would not be the one it asked for.
      if (sender->workload.protocol == Protocol::tcp && context_.admission != nullptr)
        if (auto no_room = connections_do_not_fit(
                connections_made(*sender), context_.admission->open_files_limit(),
                context_.admission->kept_for_control(), open_files_in_use()))
          return fail(*no_room);
      {
        std::lock_guard lock(phases_mutex_);
        phases_[peer] = phases_of(*sender);
        if (receiver_sends(*sender)) reversed_[peer] = ReverseTest{*sender, peer};
        // One port: its data connections, at most as many as it makes each way it asked.
        const uint64_t made = sender->sender_connections();
        streams_left_[peer] = {sender->workload.reverse ? 0 : made,
                               receiver_sends(*sender) ? made : 0};
      }
      if (flows != nullptr) {
        // A UDP test's native sender declares its flows; one whose hello breaks the rules is
        // refused, and leaves the other senders' flows as they were.
        // One whose datagrams carry no token (NTttcp's payload) declares none, rightly: its
        // test then counts every flow, as NTttcp's data names none.
        auto declared = declared_udp_flows(sender_hello);
        if (!declared) return declared.error();
        declared_[peer] = *declared;
      }
      // --reverse, --bidir: this end would send its workload; what it may not ask is refused
      // now.
      if (receiver_sends(*sender))
        if (auto sending = reverse_sending_spec(spec, *sender); !sending) return sending.error();
      // One port without the key: the cookie this sender's data connections must open with.
      std::optional<sync_auth::Cookie> stream_cookie;
      if (spec.layout.one_port && spec.control.auth_key_file.empty()) {
        auto fresh = new_stream_cookie();
        if (!fresh) return fresh.error();
        stream_cookie = *fresh;
        if (context_.admission != nullptr) context_.admission->session_opened(peer, *fresh);
      }
      return hello_json(spec, std::nullopt,
                        reached_at ? rss_.hello_part(*reached_at)
                                   : rss_to_json(fail("the sync connection's address is unknown")),
                        stream_cookie);
    };
    if (context_.streams != nullptr)  // one port, TCP
      hooks.stream = [this](UniqueSocket socket, const SocketAddress& peer,
                            const sync_auth::Opening& opening) {
        // A cookie no open sync connection was handed (or proved) is a stranger's, and one
        // of a connection that is not the running test's sender would join its test: closed,
        // counted for the result's note.
        PeerAdmission* admission = context_.admission;
        if (admission == nullptr) return;  // never: one port requires sessions
        // The descriptors kept for the sync port are no data connection's, as on data ports.
        if (!admission->within_data_descriptors(socket.get())) {
          (void)admission->count_over_descriptor_reserve();
          return;
        }
        const std::optional<int> session = admission->admit_stream(
            peer, opening.cookie,
            [this, &opening](int id) { return takes_stream(id, opening.direction); });
        if (!session) return;
        context_.streams->hand_over(std::move(socket), *session,
                                    opening.direction == sync_auth::Direction::to_sender);
      };
    hooks.start = [this, flows, &spec](uint32_t cycle_s, const std::vector<int>& native_senders) {
      if (flows != nullptr) flows->declare(flows_of(native_senders));
      {
        // Without -M a test is its one sender's: a native sender's phases are the test's.
        std::lock_guard lock(phases_mutex_);
        test_phases_.reset();
        test_reversed_.reset();
        if (native_senders.size() == 1)
          if (auto found = reversed_.find(native_senders.front()); found != reversed_.end())
            test_reversed_ = found->second;
        // Only when the cycle is the one its phases make: a sender that proposed none (or
        // one --max-cycle cut) runs the cycle it was answered, with this receiver's phases.
        if (!spec.control.multi_clients && native_senders.size() == 1)
          if (auto found = phases_.find(native_senders.front());
              found != phases_.end() && cycle_of(found->second) == cycle_s)
            test_phases_ = found->second;
      }
      peers_.expect(static_cast<int>(native_senders.size()));
      // One port: nobody else's data connections stay for the test.
      if (context_.streams != nullptr) context_.streams->test_starts_with(native_senders);
      watch_.light_on();
      context_.gate.open(cycle_s);
    };
    hooks.early_exit = [this] {
      context_.clock.cancel(StopCause::sender_stopped,
                            "test exited because sender side was interrupted");
    };
    hooks.peer_result = [this](const std::string& frame) {
      // A --reverse sender received: its result is a receiver's (with --bidir, its sending
      // result, its receiving one inside).
      const std::optional<ReverseTest> reversed = reverse_test();
      const bool only_back = reversed && !reversed->asked.workload.bidir;
      auto result = parse_peer_result(frame, only_back ? Role::receiver : Role::sender);
      if (!result) {
        context_.log.error("sync: the sender's result is ignored: " + result.error().message);
        return peers_.unreadable();
      }
      peers_.add(std::move(*result));
    };
    hooks.peer_closed = [this](ReceiverSync::Departure departure) {
      declared_.erase(departure.peer);
      {
        std::lock_guard lock(phases_mutex_);
        phases_.erase(departure.peer);
        reversed_.erase(departure.peer);
        streams_left_.erase(departure.peer);
      }
      if (context_.admission != nullptr) context_.admission->session_closed(departure.peer);
      if (context_.streams != nullptr) context_.streams->session_closed(departure.peer);
      if (!departure.left_running_test) return;
      if (watch_.well_inside())
        context_.clock.cancel(StopCause::sender_left,
                              "the sender closed its sync connection during the test");
      else if (departure.no_sender_left && watch_.cooling_down())
        context_.clock.finish(StopCause::senders_gone, "every sender has left: cool-down ended");
    };
    hooks.log = [this](std::string_view line, bool is_error) {
      is_error ? context_.log.error(line) : context_.log.info(line);
    };
    if (PeerAdmission* admission = context_.admission; admission != nullptr && !admission->open())
      hooks.admit = [admission](const SocketAddress& peer) {
        return admission->admit_connection(peer, PeerAdmission::Door::control);
      };
    std::optional<sync_auth::Key> key;
    if (!spec.control.auth_key_file.empty()) {
      auto loaded = sync_auth::load_key(spec.control.auth_key_file);
      if (!loaded) return loaded.error();
      key = std::move(*loaded);
      if (PeerAdmission* admission = context_.admission; admission != nullptr) {
        hooks.authenticated = [admission](int peer, const sync_auth::Cookie& cookie) {
          admission->session_opened(peer, cookie);
        };
        hooks.unauthenticated = [admission] { admission->count_unauthenticated_control(); };
      }
    }
    SocketAddress address = context_.locals.front();
    address.set_port(spec.sync_port());
    auto listening = SyncServer::listen(
        address,
        {spec.control.multi_clients, spec.workload.duration_s, spec.cycle_s(), spec.max_cycle()},
        std::move(hooks), {}, std::move(key));
    if (!listening) return listening.error();
    server_ = std::move(*listening);
    server_->start();
    return ok();
  }

  uint32_t threads() const override { return 1; }

  std::optional<SteadyClock::time_point> test_started(
      SteadyClock::time_point, std::optional<SteadyClock::time_point> measure_end) override {
    // Continuous mode (-t 0) has no window: a sender leaving never ends it (Ctrl+C does).
    watch_.begin(measure_end);
    // Its sender may have come and gone before this thread began the test (its leaving then
    // cancelled the last test's clock, not this one's).
    if (measure_end && !server_->senders_present())
      context_.clock.cancel(StopCause::sender_left,
                            "the sender closed its sync connection as the test began");
    return std::nullopt;
  }

  void test_finished() override {
    watch_.end();
    server_->test_finished();
  }

  void test_ran_its_course() override { server_->test_ran_its_course(); }

  bool starts_on_request() const override { return true; }
  std::optional<TestPhases> test_phases() const override {
    std::lock_guard lock(phases_mutex_);
    return test_phases_;
  }
  std::optional<ReverseTest> reverse_test() const override {
    std::lock_guard lock(phases_mutex_);
    return test_reversed_;
  }
  bool exchanges_results() const override { return true; }
  std::vector<Result> sender_results(std::chrono::milliseconds timeout) override {
    return peers_.take_all(timeout);
  }
  void publish(const Result& result) override {
    server_->publish_result(render_peer_frame(result));
  }
  void test_was_empty() override { server_->hurry_settle(std::chrono::seconds(5)); }

  void stop() override {
    if (server_) server_->stop();
  }

 private:
  // The UDP flows the test's native senders declared; nullopt when there is none or one of them
  // rightly declared none (its datagrams carry no token: then every flow is the test's).
  std::optional<std::vector<udp::DeclaredFlows>> flows_of(const std::vector<int>& senders) const {
    // Only NTTTCP senders (no hello): nothing declared, every flow is the test's.
    if (senders.empty()) return std::nullopt;
    std::vector<udp::DeclaredFlows> flows;
    for (int id : senders) {
      auto found = declared_.find(id);
      if (found == declared_.end()) continue;
      if (!found->second) return std::nullopt;
      flows.push_back(*found->second);
    }
    return flows;
  }

  // One port: whether session `id` may add a data connection going `direction` now
  // (SyncServer's rule, no more than it makes, and only the way its test sends); if so it is
  // counted.
  bool takes_stream(int id, sync_auth::Direction direction) {
    if (!server_->takes_streams_from(id)) return false;
    std::lock_guard lock(phases_mutex_);
    auto left = streams_left_.find(id);
    if (left == streams_left_.end()) return false;
    uint64_t& way =
        direction == sync_auth::Direction::to_sender ? left->second.back : left->second.forward;
    if (way == 0) return false;
    --way;
    return true;
  }

  // One port: a cookie nobody can guess, for one sender's data connections.
  static Expected<sync_auth::Cookie> new_stream_cookie() {
    auto nonce = sync_auth::new_nonce();
    if (!nonce) return nonce.error();
    sync_auth::Cookie cookie{};
    std::copy_n(nonce->begin(), cookie.size(), cookie.begin());
    return cookie;
  }

  ReceiverControlContext context_;
  ReceiverRss rss_;  // the hello's RSS description, on the sync thread
  // By sync connection, while it is open (sync thread only): what its hello declared.
  std::unordered_map<int, std::optional<udp::DeclaredFlows>> declared_;
  // By connection, what each native sender's hello asked for; the running test's (sync thread
  // writes, the engine's reads once the gate opened).
  mutable std::mutex phases_mutex_;
  std::unordered_map<int, TestPhases> phases_;
  std::optional<TestPhases> test_phases_;
  // Likewise, the specs of the senders that asked --reverse, and the running test's if it did.
  std::unordered_map<int, ReverseTest> reversed_;
  std::optional<ReverseTest> test_reversed_;
  // One port: each session's data connections still to come, each way (a way its test does
  // not go has none).
  struct StreamsLeft {
    uint64_t forward = 0;  // to this end
    uint64_t back = 0;     // for this end to send on (--reverse, --bidir)
  };
  std::unordered_map<int, StreamsLeft> streams_left_;
  PeerResults peers_;
  WindowWatch watch_;
  std::unique_ptr<SyncServer> server_;
};

}  // namespace

std::unique_ptr<ReceiverControl> make_sync_receiver(const ReceiverControlContext& context) {
  return std::make_unique<SyncReceiver>(context);
}

}  // namespace xttcp
