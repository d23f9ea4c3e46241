// The receiver's sync port (base port - 1): what up to 16 clients send it, byte by byte, read as
// SyncServer reads it (SyncInput per connection, one ReceiverSync), without sockets. Checks the
// rules of docs/hostile-peers.md on every step. What a result frame says is peer_result's.
//
// Input: byte 0 is the receiver: bit 0 = -M, bits 1-6 = -t seconds (0: continuous), bit 7 =
// --auth-key (every connection must authenticate first; a proof of 32 'P's stands for a right
// one). --max-cycle is 0 (no limit) for an odd -t, else 100. Then records, each an op byte:
// low 4 bits = client slot, high 4 bits = what happens:
//   1: the client closes its connection;  2: the receiver's window ends (test_finished);
//   3: the listener's test budget flips (allowed <-> spent);
//   4: the listener is on one port from now (--one-port, never with -M): a new connection may
//      open with a data preamble, which hands it to the data path;
//   anything else: the client sends bytes: a 2-byte big-endian length, then that many bytes
//   (fewer at the end of the input), as one read.
// tests/fuzz/make_corpus.py writes real senders' streams in this form. Besides NTTTCP's rules,
// it checks the session rules: a test belongs to the senders that started it, none starts
// while one runs or settles or the budget is spent, a cycle never exceeds --max-cycle, and with
// --auth-key no request of an unauthenticated connection reaches ReceiverSync.
#include <algorithm>
#include <array>
#include <string>
#include <vector>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/control/receiver_sync.hh"
#include "engine/control/sync_codes.hh"
#include "engine/control/sync_input.hh"
#include "tests/fuzz/fuzz_check.hh"

namespace {

using xttcp::ReceiverSync;
using xttcp::SyncInput;
namespace code = xttcp::sync_code;

constexpr uint32_t kMaxRequests = 256;  // SyncLimits' default
constexpr size_t kSlots = 16;

struct Client {
  bool open = false;
  int id = 0;
  SyncInput input{kMaxRequests};
};

// What the listener's auth stands in for: 32 'P's are the right proof.
const std::string kRightProof(32, 'P');

class Receiver {
 public:
  Receiver(ReceiverSync::Config config, bool auth, bool one_port)
      : config_(config), auth_(auth), one_port_(one_port), sync_(config) {}

  void take_streams() { one_port_ = !config_.multi_clients; }

  void flip_budget() {
    starts_allowed_ = !starts_allowed_;
    sync_.set_starts_allowed(starts_allowed_);
  }

  void receive(size_t slot, std::string_view bytes) {
    Client& client = clients_[slot];
    if (!client.open) {  // a new connection (SyncServer numbers them the same way)
      client.open = true;
      client.id = next_id_++;
      client.input = SyncInput(kMaxRequests, auth_, one_port_);
    }
    client.input.append(bytes);
    for (;;) {
      SyncInput::Message message = client.input.next();
      switch (message.kind) {
        case SyncInput::Message::Kind::none:
          // At most one unfinished message is held: a frame and its header; on one port, while
          // undecided, no more than a preamble (data bytes are the worker's to count).
          FUZZ_CHECK(client.input.buffered() <= 4 + code::kMaxFrameBytes);
          FUZZ_CHECK(!client.input.undecided() || client.input.buffered() < 20);
          return;
        case SyncInput::Message::Kind::data_stream:
          // Only on one port, only as the first message, with the preamble and nothing more.
          FUZZ_CHECK(one_port_ && message.payload.size() == 20 && !client.input.native());
          return close(slot);  // handed to the data path: never a sync peer
        case SyncInput::Message::Kind::too_many_requests:
        case SyncInput::Message::Kind::frame_too_large: return close(slot);
        case SyncInput::Message::Kind::request:
          FUZZ_CHECK(!auth_ || client.input.is_authenticated());
          if (!request(client, message.value)) return close(slot);
          break;
        case SyncInput::Message::Kind::not_authenticated:
          FUZZ_CHECK(auth_ && !client.input.is_authenticated());
          return close(slot);
        case SyncInput::Message::Kind::auth_hello:
          FUZZ_CHECK(message.payload.size() == 32);
          if (!auth_) return close(slot);  // answered AUTH_NOT_HERE, then closed
          FUZZ_CHECK(!client.input.is_authenticated());
          client.input.challenged();
          break;
        case SyncInput::Message::Kind::auth_proof:
          FUZZ_CHECK(auth_ && !client.input.is_authenticated() && message.payload.size() == 32);
          if (message.payload != kRightProof) return close(slot);
          client.input.authenticated();
          break;
        case SyncInput::Message::Kind::hello_frame:
          FUZZ_CHECK(client.input.native());
          FUZZ_CHECK(message.payload.size() <= code::kMaxHelloBytes);
          break;  // the receiver answers with its own hello; it reads nothing in the sender's
        case SyncInput::Message::Kind::result_frame:
          // Only a native sender of the test hands in a result, once: SyncServer::handle_frame
          // closes a connection whose test is over and another has started since.
          FUZZ_CHECK(client.input.native());
          FUZZ_CHECK(message.payload.size() <= code::kMaxFrameBytes);
          if (!sync_.is_participant(client.id)) return close(slot);
          FUZZ_CHECK(!result_from_[slot]);
          result_from_[slot] = true;
          break;
      }
    }
  }

  void close(size_t slot) {
    Client& client = clients_[slot];
    if (!client.open) return;
    const ReceiverSync::Departure departure = sync_.on_peer_closed(client.id);
    FUZZ_CHECK(!departure.no_sender_left || departure.left_running_test);
    FUZZ_CHECK(!sync_.is_engaged(client.id));
    client.open = false;
    result_from_[slot] = false;
    check_state();
  }

  void test_finished() {
    sync_.test_finished();
    FUZZ_CHECK(sync_.parked_peers() == 0);
    check_state();
  }

 private:
  bool request(Client& client, int32_t value) {
    const int32_t state_before = sync_.state();
    const bool settling_before = sync_.settling();
    const bool participant_before = sync_.is_participant(client.id);
    const std::vector<int> participants_before = sync_.participants();
    const ReceiverSync::Outcome outcome = sync_.on_request(client.id, value);
    for (const ReceiverSync::Reply& reply : outcome.replies) FUZZ_CHECK(is_open(reply.peer));
    if (outcome.start) {
      // A test starts only when none runs or settles and the budget allows.
      FUZZ_CHECK(state_before != code::kStateRunning);
      FUZZ_CHECK(!settling_before);
      FUZZ_CHECK(starts_allowed_);
      FUZZ_CHECK(sync_.state() == code::kStateRunning);
      result_from_.fill(false);  // a new test: each sender owes a result again
    }
    if (state_before == code::kStateRunning && !participant_before) {
      // A stranger to the running test changes nothing of it.
      FUZZ_CHECK(sync_.state() == code::kStateRunning);
      FUZZ_CHECK(sync_.participants() == participants_before);
      FUZZ_CHECK(!outcome.stop_early && !outcome.result_may_follow);
    }
    if (outcome.stop_early) {
      FUZZ_CHECK(state_before == code::kStateRunning);
      FUZZ_CHECK(sync_.is_participant(client.id));
    }
    if (outcome.result_may_follow) FUZZ_CHECK(sync_.is_participant(client.id));
    if (outcome.negotiated_cycle_s) {
      const uint32_t cycle = *outcome.negotiated_cycle_s;
      FUZZ_CHECK(cycle <= code::kMaxCycleSeconds);
      // Never longer than --max-cycle allows (or the receiver's own -t), never continuous
      // unless the receiver allows it.
      if (config_.max_cycle_s != 0)
        FUZZ_CHECK(cycle <= std::max(config_.max_cycle_s, config_.duration_s));
      if (cycle == 0) FUZZ_CHECK(config_.max_cycle_s == 0 || config_.duration_s == 0);
    }
    check_state();
    return client.input.on_outcome(outcome);
  }

  bool is_open(int id) const {
    for (const Client& client : clients_)
      if (client.open && client.id == id) return true;
    return false;
  }

  void check_state() const {
    const int32_t state = sync_.state();
    FUZZ_CHECK(state == code::kStateNotStarted || state == code::kStateRunning ||
               state == code::kStateFinished);
    // NTTTCP's bound: 8 senders per test, 7 of them parked for the '-L' one; without -M a
    // test is its one sender's.
    FUZZ_CHECK(sync_.participants().size() <= (config_.multi_clients ? 8u : 1u));
    FUZZ_CHECK(sync_.parked_peers() <= 7);
    for (int id : sync_.participants()) FUZZ_CHECK(is_open(id));
  }

  ReceiverSync::Config config_;
  bool auth_;
  bool one_port_;  // connections may open with a data preamble (--one-port)
  bool starts_allowed_ = true;
  ReceiverSync sync_;
  std::array<Client, kSlots> clients_{};
  std::array<bool, kSlots> result_from_{};
  int next_id_ = 1;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  ReceiverSync::Config config;
  config.multi_clients = (data[0] & 1) != 0;
  config.duration_s = (data[0] >> 1) & 63;
  config.own_cycle_s = config.duration_s + 2;  // -W 1 -C 1
  config.max_cycle_s = config.duration_s % 2 != 0 ? 0 : 100;
  Receiver receiver(config, (data[0] & 0x80) != 0, false);
  size_t at = 1;
  while (at < size) {
    const uint8_t op = data[at++];
    const size_t slot = op & 0x0f;
    switch (op >> 4) {
      case 1: receiver.close(slot); break;
      case 2: receiver.test_finished(); break;
      case 3: receiver.flip_budget(); break;
      case 4: receiver.take_streams(); break;
      default: {
        size_t length = 0;
        for (int i = 0; i < 2 && at < size; ++i) length = length << 8 | data[at++];
        if (length > size - at) length = size - at;
        receiver.receive(slot, std::string_view(reinterpret_cast<const char*>(data + at), length));
        at += length;
      }
    }
  }
  return 0;
}
