// The receiver's control plane: how a test starts and ends and how results travel, behind one
// interface chosen once per run (make_receiver_control). Three implementations:
//   sync_receiver.cc     NTTTCP-for-Linux's sync port, with xttcp's native results on top;
//   windows_receiver.cc  NTttcp for Windows: the -sp port hand-out, then the token handshake or,
//                        with -ns, every thread's first connection;
//   accept_receiver.cc   -N: the first data connection starts the test;
//   iperf2_receiver.cc   the iperf2 dialect: a test is its client's streams, first to last.
// The run (receiver_run.cc) never asks which one it has.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/net/address.hh"
#include "engine/net/unique_socket.hh"
#include "engine/net/peer_admission.hh"
#include "engine/plan.hh"
#include "engine/result.hh"
#include "engine/run/phase_clock.hh"
#include "engine/run/start_gate.hh"
#include "engine/run/workload_agreement.hh"
#include "engine/spec.hh"
#include "engine/udp/flow_admission.hh"
#include "base/status.hh"

namespace xttcp {

class Log;

// What a control plane works with; everything outlives it.
struct ReceiverControlContext {
  const TestSpec& spec;
  const Plan& plan;
  // Every address the flows listen on (plan.hosts resolved); the first serves the control plane.
  const std::vector<SocketAddress>& locals;
  StartGate& gate;    // opened when a test starts
  PhaseClock& clock;  // cancelled when a sender stops or leaves the test
  Log& log;
  // Who is served (--allow, --max-clients); null = everyone. Outlives the control plane.
  PeerAdmission* admission = nullptr;
  // UDP: where a control plane that knows its senders' flows declares them when a test
  // starts (udp/flow_admission.hh); null = it never does. Outlives the control plane.
  udp::FlowAdmission* flow_admission = nullptr;
  // What the backend's own device (dpdk: its port) says of itself, asked when a native hello is
  // answered (after the workers opened it): its RSS then describes where the data arrives. Empty
  // function, or nullopt: the backend drives no device of its own (the kernel's NIC is asked).
  std::function<std::optional<DeviceDescription>()> device = {};
  // One port (layout.one_port): where the data connections the sync listener admitted go.
  // Null otherwise. Outlives the control plane.
  class StreamDesk* streams = nullptr;
};

// One port: where the data connections the sync listener admitted go, each with its session
// (its sender's sync connection), and how they follow their sessions (receiver_run.cc keeps
// them in the workers' inboxes, or a --reverse test's). Called on the control plane's thread.
class StreamDesk {
 public:
  virtual ~StreamDesk() = default;
  // `reverse`: its preamble says this end sends on it (--reverse, --bidir).
  virtual void hand_over(UniqueSocket socket, int session, bool reverse) = 0;
  // The session's sync connection closed: its data connections close.
  virtual void session_closed(int session) = 0;
  // A test starts with these sessions as its senders: every other's data connections close.
  virtual void test_starts_with(const std::vector<int>& sessions) = 0;
};

// A --reverse or --bidir test: what its sender asked (its hello's spec: workload.bidir says
// which) and its sync connection.
struct ReverseTest {
  TestSpec asked;
  int session = 0;
};

class ReceiverControl {
 public:
  virtual ~ReceiverControl() = default;

  // NULL if the data path need not report (empty function): called by a worker for each data
  // connection it accepts (UDP: each new flow), on that worker's thread.
  virtual std::function<void()> accept_hook() { return {}; }
  // NULL if the data path need not report (empty function): called by a TCP worker for each data
  // connection it accepts and serves, with the peer and the local (data) port, on that worker's
  // thread (the Windows dialect's token ports take a thread's token only from its data
  // connection's host).
  virtual std::function<void(const SocketAddress& peer, uint16_t port)> data_connection_hook() {
    return {};
  }
  // NULL if the data path need not report (empty function): called by a worker each time a
  // data connection ends (closed in order, reset or failed; UDP: each flow's end), on that
  // worker's thread. Count mode has its own.
  virtual std::function<void()> flow_done_hook() { return {}; }
  // Mandatory. Listens (a busy port is reported here, before anything starts) and serves: a
  // start opens the context's gate. Called once the data ports listen.
  virtual Status open() = 0;
  // Mandatory. Threads of its own, for the console's "N threads created".
  virtual uint32_t threads() const = 0;
  // Mandatory. A test began at `start`; `measure_end` is when its window closes (nullopt:
  // continuous, -t 0). Returns when the test's first data came if that was before `start`
  // (NTttcp -ns: the first thread's data comes before the last one connects), for count mode.
  virtual std::optional<SteadyClock::time_point> test_started(
      SteadyClock::time_point start, std::optional<SteadyClock::time_point> measure_end) = 0;
  // Mandatory. The test's window and cool-down are over; a sender may now hand in its result.
  virtual void test_finished() = 0;
  // After test_finished(): the test ran its whole window. A control plane that bounds the tests
  // started per period counts only those that did not (the default: nothing to do).
  virtual void test_ran_its_course() {}
  // The streams the test under way has had so far, when the control plane counts them (the
  // iperf2 dialect's server: its live lines show one stream's id or [SUM]); nullopt otherwise.
  virtual std::optional<uint32_t> streams() const { return std::nullopt; }
  // NULL if the receiver's own phases always apply (the default). The phases (W, t, C) of the
  // test that just started, when its one native sender asked for them in its hello: the
  // receiver runs those (workload_agreement.hh). Asked once the gate has opened.
  virtual std::optional<TestPhases> test_phases() const { return std::nullopt; }
  // NULL if no test runs reversed (the default). The test that just started, when its one
  // native sender asked --reverse: this end sends, on the connections handed over with
  // `reverse` and its session. Asked once the gate has opened.
  virtual std::optional<ReverseTest> reverse_test() const { return std::nullopt; }
  // True when a peer's message, not its data, starts a test (the sync port's 'R', a token):
  // such a test that sees no data at its start is ended (receiver_run.cc). The default: the
  // data starts it (-N, the iperf2 dialect).
  virtual bool starts_on_request() const { return false; }
  // NULL if no sender hands in a result (the default: none).
  virtual bool exchanges_results() const { return false; }
  // NULL if no sender hands in a result (the default: none). The results the test's senders
  // owe, waited for up to `timeout` (what has not come by then is written off).
  virtual std::vector<Result> sender_results(std::chrono::milliseconds timeout) {
    (void)timeout;
    return {};
  }
  // NULL if no sender takes one (the default): offers our result to the test's senders.
  virtual void publish(const Result& result) { (void)result; }
  // NULL if nothing waits for the senders after a test (the default). The test carried no
  // data: no result needs protecting, so its senders get only a short while to leave.
  virtual void test_was_empty() {}
  // True once the control plane failed for good (its error was logged): the run fails.
  virtual bool failed() const { return false; }
  // Mandatory. Stops serving; idempotent.
  virtual void stop() = 0;
};

// The control plane `spec` asks for: sync (the default), -N, or the Windows dialect's.
std::unique_ptr<ReceiverControl> make_receiver_control(const ReceiverControlContext& context);

}  // namespace xttcp
