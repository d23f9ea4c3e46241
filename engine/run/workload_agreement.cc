#include "engine/run/workload_agreement.hh"

#include <fmt/format.h>

#include "engine/control/sync_codes.hh"
#include "engine/report/bounded_json.hh"
#include "engine/report/spec_json.hh"

namespace xttcp {

namespace {

const char* protocol_words(const TestSpec& spec) {
  return spec.workload.protocol == Protocol::udp ? "UDP (-u)" : "TCP (no -u)";
}

}  // namespace

std::optional<std::string> workload_mismatch(const TestSpec& sender, const TestSpec& receiver) {
  if (sender.workload.protocol != receiver.workload.protocol)
    return fmt::format(
        "the sender sends {} but the receiver listens for {}: give both ends -u, or neither",
        protocol_words(sender), protocol_words(receiver));
  if (sender.rr.on != receiver.rr.on)
    return fmt::format(
        "the {} runs request/response (--rr) and the {} does not: give both ends --rr, or "
        "neither",
        sender.rr.on ? "sender" : "receiver", sender.rr.on ? "receiver" : "sender");
  if (sender.rr.on) {
    const uint32_t asks = sender.workload.send_buffer, takes = receiver.workload.send_buffer;
    if (asks != takes)
      return fmt::format(
          "--rr: the sender's requests are {} bytes and the receiver's {} (-b): give both ends "
          "the same -b",
          asks, takes);
    const uint32_t expects = sender.rr.response_bytes(asks);
    const uint32_t answers = receiver.rr.response_bytes(takes);
    if (expects != answers)
      return fmt::format(
          "--rr: the sender expects {}-byte responses and the receiver answers {} "
          "(--response-size): give both ends the same",
          expects, answers);
  }
  if (sender.layout.one_port != receiver.layout.one_port)
    return fmt::format(
        "the {} runs on one port (--one-port) and the {} does not: give both ends --one-port, or "
        "neither",
        sender.layout.one_port ? "sender" : "receiver",
        sender.layout.one_port ? "receiver" : "sender");
  // On one port the receiver serves every connection there, however many (its -P spreads them
  // over its threads).
  if (sender.layout.one_port) return std::nullopt;
  const uint64_t last_asked = uint64_t{sender.layout.base_port} + sender.layout.ports - 1;
  const uint64_t last_served = uint64_t{receiver.layout.base_port} + receiver.layout.ports - 1;
  if (sender.layout.base_port != receiver.layout.base_port)
    return fmt::format(
        "the sender connects to ports from {} (-p {}) but the receiver listens from {} (-p {}): "
        "give both ends the same -p",
        sender.layout.base_port, sender.layout.base_port, receiver.layout.base_port,
        receiver.layout.base_port);
  if (last_asked > last_served)
    return fmt::format(
        "the sender connects to ports {}-{} (-p {} -P {}) but the receiver listens on {}-{} "
        "(-p {} -P {}): give the receiver -P {} or more",
        sender.layout.base_port, last_asked, sender.layout.base_port, sender.layout.ports,
        receiver.layout.base_port, last_served, receiver.layout.base_port, receiver.layout.ports,
        last_asked - receiver.layout.base_port + 1);
  return std::nullopt;
}

Expected<TestSpec> spec_in_hello(const std::string& hello) {
  auto doc = parse_bounded_json(hello, {sync_code::kMaxHelloBytes, 16}, "hello");
  if (!doc) return doc.error();
  if (!doc->is_object()) return fail("the hello is not a JSON object");
  const auto spec = doc->find("spec");
  if (spec == doc->end() || !spec->is_object()) return fail("the hello carries no spec");
  auto read = spec_from_json(*spec);
  if (!read) return fail("the hello's spec: " + read.error().message);
  return read;
}

namespace {

// A line of the receiver's, bounded and printable before it reaches our console.
std::string printable_line(const std::string& text) {
  std::string line = text.substr(0, 400);
  for (char& c : line)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return line;
}

}  // namespace

std::optional<std::string> refusal_in_hello(const std::string& hello) {
  auto doc = parse_bounded_json(hello, {sync_code::kMaxHelloBytes, 16}, "hello");
  if (!doc || !doc->is_object()) return std::nullopt;
  const auto refused = doc->find("refused");
  if (refused == doc->end()) return std::nullopt;
  if (!refused->is_string()) return std::string("(no reason given)");
  return printable_line(refused->get<std::string>());
}

std::optional<ReceiverBusy> busy_in_hello(const std::string& hello) {
  auto doc = parse_bounded_json(hello, {sync_code::kMaxHelloBytes, 16}, "hello");
  if (!doc || !doc->is_object()) return std::nullopt;
  const auto busy = doc->find("busy");
  if (busy == doc->end() || !busy->is_object()) return std::nullopt;
  ReceiverBusy said{"(no reason given)", false};
  if (auto why = busy->find("why"); why != busy->end() && why->is_string())
    said.why = printable_line(why->get<std::string>());
  if (auto passing = busy->find("passing"); passing != busy->end() && passing->is_boolean())
    said.passing = passing->get<bool>();
  return said;
}

std::optional<std::string> cycle_disagreement(uint32_t proposed_s, uint32_t answered_s,
                                              const TestSpec& receiver) {
  if (proposed_s == answered_s) return std::nullopt;
  if (receiver.control.multi_clients)
    return fmt::format(
        "the receiver runs every -M test for its own cycle of {} s and this sender asked for "
        "{} s (with -M the receiver's -t wins): give this sender -t {}, or the receiver -t {}",
        answered_s, proposed_s, answered_s, proposed_s);
  if (proposed_s == 0)
    return fmt::format(
        "the receiver allows no continuous test (-t 0) and answered {} s (--max-cycle {}): "
        "give this sender -t, or the receiver --max-cycle 0",
        answered_s, receiver.max_cycle());
  return fmt::format(
      "this test takes {} s and the receiver allows at most {} s (its --max-cycle wins): give "
      "this sender a shorter -W/-t/-C, or the receiver --max-cycle {}",
      proposed_s, answered_s, proposed_s);
}

TestPhases phases_of(const TestSpec& spec) {
  return {spec.workload.warmup_s, spec.workload.duration_s, spec.workload.cooldown_s};
}

uint32_t cycle_of(const TestPhases& phases) {
  return safe_cycle_proposal(phases.warmup_s + phases.duration_s + phases.cooldown_s, nullptr);
}

TestSpec with_phases(TestSpec spec, const TestPhases& phases) {
  spec.workload.warmup_s = phases.warmup_s;
  spec.workload.duration_s = phases.duration_s;
  spec.workload.cooldown_s = phases.cooldown_s;
  return spec;
}

std::string describe_phases(const TestPhases& phases) {
  std::string text;
  if (phases.warmup_s != 0) text += fmt::format("-W {} ", phases.warmup_s);
  text += fmt::format("-t {}", phases.duration_s);
  if (phases.cooldown_s != 0) text += fmt::format(" -C {}", phases.cooldown_s);
  return text;
}

}  // namespace xttcp
