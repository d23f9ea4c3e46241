// NTttcp for Windows' start handshake (docs/architecture.md), the pure parts: which ports it uses
// and what the -sp port hand-out looks like on the wire. The sockets are token_exchange.cc and
// port_assignment.cc.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/status.hh"
#include "engine/net/socket_setup.hh"
#include "engine/plan.hh"
#include "engine/spec.hh"
#include "engine/udp/flow_admission.hh"

namespace xttcp::windows_token {

// Each thread's token connection goes to its data port + 1000 (the original's
// MAX_NUM_CONNECTIONS); each side sends this one byte, then reads one (whatever it is).
inline constexpr uint32_t port_offset = 1000;
inline constexpr char token = 'X';
// A sender's connects (token and -sp) are retried this long after a refusal, like the
// original's (which tries 100 times: at least 10 s).
inline constexpr std::chrono::milliseconds connect_retry_pause = refused_connect_retry_pause;

// The receiver's deadlines on its control ports (docs/hostile-peers.md), each far above what a
// real sender needs: NTttcp for Windows sends its 'X' as soon as its token connect returns, and
// connects its data port as soon as it has read its -sp port.
// A token connection must send its byte, and be one the thread's sender may have made (below),
// within this of being accepted; else it is closed and the port listens on.
inline constexpr std::chrono::seconds token_wait{10};
// A thread's token counts only from a host whose data connection on the thread's data port the
// receiver saw (TCP); the worker that accepted it may report it this late after the token
// connection was accepted. A token connection from that host accepted earlier than this before
// the data connection was seen is not the sender's (it connects its data port first).
inline constexpr std::chrono::seconds data_report_slack{2};
// Once one thread's token counted, every other thread's must follow within this (the original's
// threads send theirs together, each retrying its connect for at least 10 s); else the exchange
// starts over: the threads counted so far belong to a sender that failed.
inline constexpr std::chrono::seconds rest_of_tokens_wait{60};
// Connections one token port holds at once before its sender's token came; the next one closes
// the oldest (one that has not sent its byte first).
inline constexpr std::size_t candidates_per_port = 4;
// -sp: a data port handed out and not claimed within this (no data connection from the host it
// went to, TCP; no token from it, UDP) may go to the next connection that asks.
inline constexpr std::chrono::seconds handout_claim_wait{10};
// -sp: connections waiting at once for a port to free; the next one is closed at once.
inline constexpr std::size_t handout_waiters = 64;

// True when a run speaks the token handshake: the Windows dialect without -ns.
bool uses_tokens(const TestSpec& spec);

// The first data port: the base port, or base + 1 with -sp (the base port then hands out the
// data ports).
uint16_t first_data_port(const TestSpec& spec);

// One thread's token connection: its host (index into Plan::hosts; the sender connects there,
// the receiver listens there) and its token port, the thread's data port + 1000.
struct TokenTarget {
  uint16_t host = 0;
  uint16_t port = 0;
  bool operator==(const TokenTarget&) const = default;
};

// Every thread's token target in thread order, from the plan's flows (the Windows dialect has
// one flow per thread). The CLI has checked the ports fit below 65536.
std::vector<TokenTarget> token_targets(const Plan& plan);

// Every thread's flow slot, in thread order (as token_targets).
std::vector<uint32_t> token_slots(const Plan& plan);

// How many threads address each of plan.hosts (-sp: what each receiver hands out).
std::vector<uint32_t> threads_per_host(const Plan& plan);

// -sp: the receiver sends each sender thread its data port as a 4-byte native-endian `long`
// (32 bits, little-endian on every Windows NTttcp runs on).
std::array<char, 4> encode_assigned_port(uint32_t port);
uint32_t decode_assigned_port(const std::array<char, 4>& bytes);

// -sp sender: the ports the receiver handed out, checked to be the data ports this run
// expects (base + 1 .. base + threads, in any order). Error:
// "-sp: the receiver handed out port 7000; expected ports 5002..5005".
Status check_assigned_ports(std::vector<uint32_t> assigned, uint16_t base_port, uint32_t threads);

// UDP: after the token exchange, an xttcp sender declares the thread's flow on the token
// connection (its flow id and the token its datagrams carry, udp/flow_admission.hh), so the
// receiver can tell its datagrams from a spray. 10 bytes, big-endian: "XTFD", flow id (u32),
// token (u16). The sender sends it only once it has read the receiver's token: NTttcp for
// Windows reads one byte and closes, so it never looks at what follows; an NTttcp sender
// closes after the tokens without one, and its threads' flows all count, as before.
inline constexpr std::size_t flow_declaration_size = 10;
struct FlowDeclaration {
  uint32_t flow_id = 0;
  uint16_t token = 0;
  bool operator==(const FlowDeclaration&) const = default;
};
std::array<char, flow_declaration_size> encode_flow_declaration(const FlowDeclaration& flow);
// nullopt: not a declaration (another magic, or a flow id no sender uses).
std::optional<FlowDeclaration> decode_flow_declaration(
    const std::array<char, flow_declaration_size>& bytes);
// The receiver's test flows from what each thread's token connection declared: nullopt (every
// flow counts) when one of them declared nothing.
std::optional<std::vector<udp::DeclaredFlows>> declared_flows(
    const std::vector<std::optional<FlowDeclaration>>& threads);

}  // namespace xttcp::windows_token
