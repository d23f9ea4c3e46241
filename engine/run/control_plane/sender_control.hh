// The sender's control plane: agreeing on the test with the receiver, starting it, noticing the
// receiver leave, telling it we stopped, exchanging results; behind one interface chosen once
// per run (make_sender_control). Three implementations:
//   sync_sender.cc     NTTTCP-for-Linux's sync connection, with xttcp's native results on top;
//   windows_sender.cc  NTttcp for Windows: the -sp port hand-out, then the token handshake;
//   in this file       -N/-ns: nothing to agree on; the sender starts once connected.
// The run (sender_run.cc) never asks which one it has.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/net/address.hh"
#include "engine/plan.hh"
#include "engine/result.hh"
#include "engine/rss/rss_json.hh"
#include "engine/stop_reason.hh"
#include "engine/udp/flow_admission.hh"
#include "engine/spec.hh"
#include "base/status.hh"

namespace xttcp {

class Log;

// What a control plane works with; everything outlives it.
struct SenderControlContext {
  const TestSpec& spec;
  const Plan& plan;
  // Every host the flows go to (plan.hosts resolved, ports unset); the first is the one the
  // control plane talks to (sync).
  const std::vector<SocketAddress>& receivers;
  const std::optional<SocketAddress>& source;  // -a
  const std::atomic<bool>& interrupted;        // Ctrl+C: every wait gives up
  Log& log;
  // UDP: the flows this sender will send, declared in the native hello (hello.hh).
  std::optional<udp::DeclaredFlows> udp_flows = std::nullopt;
};

// What the sender and the receiver agreed on before the data connections.
struct Agreement {
  uint32_t cycle_s = 0;  // W + t + C as negotiated (the receiver may lengthen it)
  bool native = false;   // the receiver is xttcp: results are exchanged at the end
  // A native receiver's RSS, from its hello, and the control connection's local address: what
  // the sender chooses its source ports by (engine/rss/spread_flows.hh).
  std::optional<PeerRss> peer_rss;
  std::optional<SocketAddress> control_local;
  // --auth-key, --one-port: what every TCP data connection opens with (sync_auth.hh); empty
  // without. The return preamble opens those the receiver sends on (--reverse, --bidir).
  std::vector<unsigned char> connection_preamble;
  std::vector<unsigned char> return_preamble;
};

class SenderControl {
 public:
  virtual ~SenderControl() = default;

  // Mandatory. Before the data connections: the cycle, and whether the receiver is xttcp (sync);
  // the data ports (-sp).
  virtual Expected<Agreement> agree() = 0;
  // Mandatory. Every data connection is up: start the test ('R'/'L', or the token handshake).
  // Returns once the receiver has started (a -M sender is parked until the -L one comes).
  virtual Status start() = 0;
  // NULL if the receiver cannot be watched (the default: never). Asked at every interval of the
  // window: the receiver has gone (its sync connection hung up).
  virtual std::optional<StopReason> receiver_gone() { return std::nullopt; }
  // NULL if nothing blocks (the default): Ctrl+C; ends a wait in start() or the exchanges.
  virtual void interrupt() {}
  // Mandatory. The window and cool-down are over after `elapsed_s`; `receiver_lost`: it went
  // away. Tells the receiver we stopped when it must know ('E'). An error is logged by the run.
  virtual Status stopped(double elapsed_s, bool receiver_lost) = 0;
  // NULL if the receiver shares no result (the default: none). Hands it ours and takes its own,
  // parsed and checked; an error when it owed one.
  virtual Expected<std::optional<Result>> exchange_results(const Result& own) {
    (void)own;
    return std::optional<Result>();
  }
};

// The control plane `context.spec` asks for: sync (the default), -N/-ns, or Windows tokens.
std::unique_ptr<SenderControl> make_sender_control(const SenderControlContext& context);

}  // namespace xttcp
