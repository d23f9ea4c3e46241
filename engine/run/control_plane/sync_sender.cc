// NTTTCP-for-Linux's sync connection on the sender (SyncClient): busy check, cycle negotiation,
// start, 'E' at the end; with an xttcp receiver (native hello) both results are exchanged.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "engine/control/sync_client.hh"
#include "engine/control/sync_codes.hh"
#include "engine/net/socket_io.hh"
#include "engine/report/linux_console.hh"
#include "engine/report/log.hh"
#include "engine/report/native_json.hh"
#include "engine/run/control_plane/sender_control.hh"
#include "engine/run/control_plane/senders.hh"
#include "engine/run/hello.hh"
#include "engine/run/workload_agreement.hh"

namespace xttcp {

namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class SyncSender final : public SenderControl {
 public:
  explicit SyncSender(const SenderControlContext& context)
      : context_(context), timeout_(seconds(context.spec.control.connect_timeout_s)) {}

  // How long a busy receiver is asked again: only one whose hello said its busy spell passes
  // by itself (its last test's senders still leaving: a sweep's or --repeat's next test comes
  // at once); a running test or a refusal is said at once, as NTTTCP does.
  std::chrono::milliseconds busy_patience() const {
    if (!receiver_busy_ || !receiver_busy_->passing) return milliseconds(0);
    return std::min<std::chrono::milliseconds>(timeout_, seconds(5));
  }

  // The state a busy check gets, asked again every 100 ms while it is "running", for
  // busy_patience() and at most 50 asks (a receiver closes a connection past 256 requests).
  Expected<int32_t> busy_check(SyncClient& sync) {
    const auto give_up = std::chrono::steady_clock::now() + busy_patience();
    auto state = sync.exchange(sync_code::kQueryState, timeout_);
    for (int asked = 1; state && *state == sync_code::kStateRunning && asked < 50; ++asked) {
      if (context_.interrupted.load() || std::chrono::steady_clock::now() >= give_up) break;
      std::this_thread::sleep_for(milliseconds(100));
      state = sync.exchange(sync_code::kQueryState, timeout_);
    }
    return state;
  }

  Expected<Agreement> agree() override {
    const TestSpec& spec = context_.spec;
    Log& log = context_.log;
    SocketAddress address = context_.receivers.front();
    address.set_port(spec.sync_port());
    SyncWatch watch;
    watch.interrupted = &context_.interrupted;
    watch.on_first_refusal = [&log](const std::string& line) { log.info(line); };
    auto sync = SyncClient::connect(address, context_.source, timeout_, std::move(watch));
    if (!sync) return sync.error();
    auto local = local_address_of(sync->fd());
    log.debug(linux_connection_line(SenderSocket::sync, local ? local->port() : uint16_t{0},
                                    static_cast<int64_t>(sync->fd()), address.host(),
                                    address.port()));

    if (!spec.control.auth_key_file.empty()) {
      auto key = sync_auth::load_key(spec.control.auth_key_file);
      if (!key) return key.error();
      auto cookie = sync->authenticate(*key, timeout_);
      if (!cookie) return cookie.error();
      set_preambles(*cookie);
      log.debug("sync: --auth-key: both ends proved the key");
    }
    auto native = sync->try_native_hello(timeout_);
    // On one port the sync goes to PORT itself: a receiver not on one port has a data port
    // there, which takes the hello as data and never answers.
    if (!native && spec.layout.one_port)
      return fail(native.error().message +
                  fmt::format(" (--one-port: is the receiver running with --one-port on port {}?)",
                              address.port()));
    if (!native) return native.error();
    agreement_.native = *native;
    if (spec.layout.one_port && !agreement_.native)
      return fail(fmt::format(
          "--one-port: the receiver at {} is not xttcp (it answered the sync protocol without "
          "xttcp's hello); only xttcp serves one port",
          address.to_string()));
    if (agreement_.native) {
      if (Status sent = sync->send_frame(hello_json(spec, context_.udp_flows)); !sent)
        return sent.error();
      auto peer_hello = sync->read_frame(timeout_, sync_code::kMaxHelloBytes);
      if (!peer_hello) return peer_hello.error();
      if (auto refusal = refusal_in_hello(*peer_hello))
        return fail("sync: the receiver refused this test: " + *refusal);
      // A receiver whose hello breaks the rules is not one to run a test with.
      auto rss = read_peer_rss(*peer_hello);
      if (!rss) return fail("sync: the receiver's hello is refused: " + rss.error().message);
      agreement_.peer_rss = std::move(*rss);
      // Both ends check the workload: a receiver older than the rule does not.
      auto receiver = spec_in_hello(*peer_hello);
      if (!receiver)
        return fail("sync: the receiver's hello is refused: " + receiver.error().message);
      if (auto mismatch = workload_mismatch(spec, *receiver))
        return fail("sync: this test cannot run: " + *mismatch);
      if (spec.layout.one_port)
        if (Status tied = take_stream_cookie(*peer_hello); !tied) return tied.error();
      receiver_spec_ = std::move(*receiver);
      receiver_busy_ = busy_in_hello(*peer_hello);
      if (local) agreement_.control_local = *local;
      log.debug("receiver is xttcp: results will be exchanged at the end");
    }

    const auto asked_from = std::chrono::steady_clock::now();
    auto state = busy_check(*sync);
    if (!state) return state.error();
    if (*state == sync_code::kStateRunning) {
      if (receiver_busy_ && !receiver_busy_->passing)
        return fail("sender: receiver is busy: " + receiver_busy_->why);
      if (receiver_busy_) {
        // Its hello's reason, and how long it stayed busy after it (the reason may have moved
        // on: a new test of someone else's).
        const double waited =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - asked_from).count();
        return fail(fmt::format("sender: receiver is busy ({}; still busy {:.1f} s later{})",
                                receiver_busy_->why, waited,
                                context_.interrupted.load() ? ", when interrupted" : ""));
      }
      return fail("sender: receiver is busy with another test");
    }

    std::string note;
    const uint32_t proposal = safe_cycle_proposal(spec.cycle_s(), &note);
    if (!note.empty()) log.info(note);
    auto cycle = sync->exchange(static_cast<int32_t>(proposal), timeout_);
    if (!cycle) return cycle.error();
    if (*cycle < 0 || static_cast<uint32_t>(*cycle) > sync_code::kMaxCycleSeconds)
      return fail(fmt::format("sync: receiver answered an invalid test cycle ({} s; at most {})",
                              *cycle, sync_code::kMaxCycleSeconds));
    if (static_cast<uint32_t>(*cycle) != spec.workload.duration_s) {
      if (*cycle == 0)
        log.info("test is negotiated to run with continuous mode");
      else
        log.info(fmt::format("Test cycle time negotiated is: {} seconds", *cycle));
    }
    // An NTTTCP receiver's longer -t wins (its rule), but only as far as this sender allows:
    // a receiver's word never keeps it sending for years.
    const uint32_t longest = spec.max_cycle();
    if (longest != 0 && (*cycle == 0 || static_cast<uint32_t>(*cycle) > longest) &&
        static_cast<uint32_t>(*cycle) != proposal)
      return fail(fmt::format(
          "sync: the receiver answered a test cycle of {} s{} and this sender runs at most {} s "
          "(--max-cycle): give this sender --max-cycle {}, or the receiver a shorter -t",
          *cycle, *cycle == 0 ? " (continuous)" : "", longest, *cycle == 0 ? 0 : *cycle));
    if (receiver_spec_)
      if (auto differs =
              cycle_disagreement(proposal, static_cast<uint32_t>(*cycle), *receiver_spec_))
        return fail("sync: " + *differs);
    agreement_.cycle_s = static_cast<uint32_t>(*cycle);
    sync_ = std::move(*sync);
    return agreement_;
  }

  // One port: what the data connections open with, the session's cookie preamble (with
  // --auth-key it is set already, from the proof; else the receiver's hello hands it out).
  Status take_stream_cookie(const std::string& receiver_hello) {
    auto cookie = stream_cookie_in_hello(receiver_hello);
    if (!cookie) return fail("sync: the receiver's hello is refused: " + cookie.error().message);
    if (!agreement_.connection_preamble.empty()) return ok();
    if (!*cookie)
      return fail(
          "--one-port: the receiver handed out no cookie for the data connections (is it "
          "running with --one-port?)");
    set_preambles(**cookie);
    return ok();
  }

  // What the session's data connections open with, each way (sync_auth.hh).
  void set_preambles(const sync_auth::Cookie& cookie) {
    const sync_auth::Preamble to_receiver = sync_auth::data_preamble(cookie);
    const sync_auth::Preamble to_sender =
        sync_auth::data_preamble(cookie, sync_auth::Direction::to_sender);
    agreement_.connection_preamble.assign(to_receiver.begin(), to_receiver.end());
    agreement_.return_preamble.assign(to_sender.begin(), to_sender.end());
  }

  Status start() override {
    const TestSpec& spec = context_.spec;
    starting_ = true;
    struct Started {
      std::atomic<bool>& flag;
      ~Started() { flag = false; }
    } started{starting_};
    auto reply = sync_->exchange(
        spec.control.last_client ? sync_code::kLastClientStart : sync_code::kStart, timeout_);
    if (!reply) return reply.error();
    if (*reply == sync_code::kPleaseWait) {
      // -M: parked until the -L sender arrives; bounded by --wait-timeout (default 10 minutes).
      const uint32_t wait_s = spec.control.wait_timeout_s > 0 ? spec.control.wait_timeout_s : 600;
      context_.log.info(fmt::format(
          "waiting for the last client to join the test (the -L sender; up to {} s)", wait_s));
      reply = sync_->read_int(seconds(wait_s));
      if (!reply) return reply.error();
    }
    if (*reply != sync_code::kStart)
      return fail(fmt::format("sender: receiver refused to start the test (replied {})", *reply));
    sync_->stop_watching_interrupt();
    return ok();
  }

  std::optional<StopReason> receiver_gone() override {
    if (!peer_hung_up(sync_->fd())) return std::nullopt;
    return StopReason{StopCause::receiver_left, "the receiver closed the sync connection"};
  }

  // Only a wait to start is cut off: once the test runs, Ctrl+C ends its window and stopped()
  // still tells the receiver ('E') and the results are exchanged, flagged as cut short.
  void interrupt() override {
    if (sync_ && starting_) shutdown_socket(sync_->fd());
  }

  // NTTTCP-for-Linux tells the receiver when it stopped before the agreed cycle; a native peer
  // always hears it, since it then waits for our result.
  Status stopped(double elapsed_s, bool receiver_lost) override {
    receiver_lost_ = receiver_lost;
    if (receiver_lost || (!agreement_.native && elapsed_s >= agreement_.cycle_s)) return ok();
    auto state = sync_->exchange(sync_code::kEarlyExit, timeout_);
    if (state) {
      // The original's words for the receiver's "finished" answer, when it would have asked:
      // its measured time (without warm-up and cool-down) is below the cycle. LISA's sample
      // output shows the line after "Test cycle finished.".
      const Workload& work = context_.spec.workload;
      const bool original_asks =
          work.warmup_s + work.cooldown_s > 0 || elapsed_s < agreement_.cycle_s;
      if (*state == sync_code::kStateFinished && original_asks)
        context_.log.info("receiver exited from current test");
      return ok();
    }
    // NTTTCP-for-Linux closes its sync connection as soon as its own window ends; only a native
    // peer, which still owes us its result, must be there (unless Ctrl+C stopped both ends, as
    // it does to a continuous -t 0 run).
    if (agreement_.native && !context_.interrupted.load()) return state.error();
    context_.log.debug("the receiver had already closed the sync connection: " +
                       state.error().message);
    return ok();
  }

  Expected<std::optional<Result>> exchange_results(const Result& own) override {
    if (!agreement_.native || receiver_lost_) return std::optional<Result>();
    if (Status sent = sync_->send_frame(render_peer_frame(own)); !sent) return sent.error();
    auto frame = sync_->read_frame(timeout_ + seconds(context_.spec.workload.cooldown_s + 5));
    if (!frame) return fail("no result from the receiver: " + frame.error().message);
    // --reverse: the receiver sent, so its result is a sender's.
    auto peer =
        parse_peer_result(*frame, context_.spec.workload.reverse ? Role::sender : Role::receiver);
    if (!peer) return fail("the receiver's result is unreadable: " + peer.error().message);
    return std::optional<Result>(std::move(*peer));
  }

 private:
  SenderControlContext context_;
  milliseconds timeout_;
  Agreement agreement_;
  std::optional<SyncClient> sync_;
  std::optional<TestSpec> receiver_spec_;      // a native receiver's, from its hello
  std::optional<ReceiverBusy> receiver_busy_;  // what its hello said, when it was busy
  std::atomic<bool> starting_{false};
  bool receiver_lost_ = false;
};

}  // namespace

std::unique_ptr<SenderControl> make_sync_sender(const SenderControlContext& context) {
  return std::make_unique<SyncSender>(context);
}

}  // namespace xttcp
