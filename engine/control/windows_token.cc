#include "engine/control/windows_token.hh"

#include <algorithm>

#include <fmt/format.h>

namespace xttcp::windows_token {

bool uses_tokens(const TestSpec& spec) {
  return spec.dialect == Dialect::windows && !spec.control.no_sync;
}

uint16_t first_data_port(const TestSpec& spec) {
  const bool handed_out = spec.dialect == Dialect::windows && spec.control.port_assignment;
  return static_cast<uint16_t>(spec.layout.base_port + (handed_out ? 1 : 0));
}

std::vector<TokenTarget> token_targets(const Plan& plan) {
  std::vector<std::pair<uint32_t, TokenTarget>> by_thread;
  for (const WorkerPlan& worker : plan.workers)
    for (const FlowPlan& flow : worker.flows)
      by_thread.push_back(
          {flow.thread_index, {flow.host, static_cast<uint16_t>(flow.port + port_offset)}});
  std::sort(by_thread.begin(), by_thread.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<TokenTarget> targets;
  for (const auto& entry : by_thread) targets.push_back(entry.second);
  return targets;
}

std::vector<uint32_t> threads_per_host(const Plan& plan) {
  std::vector<uint32_t> counts(plan.hosts.size(), 0);
  for (const WorkerPlan& worker : plan.workers)
    for (const FlowPlan& flow : worker.flows)
      if (flow.host < counts.size()) ++counts[flow.host];
  return counts;
}

std::vector<uint32_t> token_slots(const Plan& plan) {
  std::vector<std::pair<uint32_t, uint32_t>> by_thread;
  for (const WorkerPlan& worker : plan.workers)
    for (const FlowPlan& flow : worker.flows) by_thread.push_back({flow.thread_index, flow.slot});
  std::sort(by_thread.begin(), by_thread.end());
  std::vector<uint32_t> slots;
  for (const auto& entry : by_thread) slots.push_back(entry.second);
  return slots;
}

std::array<char, 4> encode_assigned_port(uint32_t port) {
  return {static_cast<char>(port & 0xff), static_cast<char>((port >> 8) & 0xff),
          static_cast<char>((port >> 16) & 0xff), static_cast<char>((port >> 24) & 0xff)};
}

uint32_t decode_assigned_port(const std::array<char, 4>& bytes) {
  uint32_t port = 0;
  for (int i = 3; i >= 0; --i) port = (port << 8) | static_cast<unsigned char>(bytes[i]);
  return port;
}

Status check_assigned_ports(std::vector<uint32_t> assigned, uint16_t base_port, uint32_t threads) {
  const uint32_t first = uint32_t{base_port} + 1;
  const uint32_t last = first + threads - 1;
  const std::string expected =
      threads == 1 ? fmt::format("port {}", first) : fmt::format("ports {}..{}", first, last);
  std::sort(assigned.begin(), assigned.end());
  for (size_t i = 0; i < assigned.size(); ++i) {
    if (assigned[i] < first || assigned[i] > last)
      return fail(
          fmt::format("-sp: the receiver handed out port {}; expected {}", assigned[i], expected));
    if (i > 0 && assigned[i] == assigned[i - 1])
      return fail(fmt::format("-sp: the receiver handed out port {} twice; expected {}",
                              assigned[i], expected));
  }
  if (assigned.size() != threads)
    return fail(fmt::format("-sp: the receiver handed out {} port(s); expected {}", assigned.size(),
                            expected));
  return ok();
}

namespace {
constexpr std::array<char, 4> declaration_magic{'X', 'T', 'F', 'D'};
}  // namespace

std::array<char, flow_declaration_size> encode_flow_declaration(const FlowDeclaration& flow) {
  std::array<char, flow_declaration_size> bytes{};
  std::copy(declaration_magic.begin(), declaration_magic.end(), bytes.begin());
  for (int i = 0; i < 4; ++i)
    bytes[4 + i] = static_cast<char>((flow.flow_id >> (24 - 8 * i)) & 0xff);
  bytes[8] = static_cast<char>(flow.token >> 8);
  bytes[9] = static_cast<char>(flow.token & 0xff);
  return bytes;
}

std::optional<FlowDeclaration> decode_flow_declaration(
    const std::array<char, flow_declaration_size>& bytes) {
  if (!std::equal(declaration_magic.begin(), declaration_magic.end(), bytes.begin()))
    return std::nullopt;
  FlowDeclaration flow;
  for (int i = 4; i < 8; ++i)
    flow.flow_id = flow.flow_id << 8 | static_cast<unsigned char>(bytes[i]);
  flow.token = static_cast<uint16_t>(static_cast<unsigned char>(bytes[8]) << 8 |
                                     static_cast<unsigned char>(bytes[9]));
  if (!udp::valid_flow_base(flow.flow_id & ~udp::flow_slot_mask)) return std::nullopt;
  return flow;
}

std::optional<std::vector<udp::DeclaredFlows>> declared_flows(
    const std::vector<std::optional<FlowDeclaration>>& threads) {
  // One entry per sender (base and token), its slots 0..the highest declared: the receiver
  // checks each datagram against every entry, so not one per thread.
  std::vector<udp::DeclaredFlows> flows;
  for (const std::optional<FlowDeclaration>& thread : threads) {
    if (!thread) return std::nullopt;
    const uint32_t base = thread->flow_id & ~udp::flow_slot_mask;
    const uint32_t count = (thread->flow_id & udp::flow_slot_mask) + 1;
    auto same = std::find_if(flows.begin(), flows.end(), [&](const udp::DeclaredFlows& f) {
      return f.base == base && f.token == thread->token;
    });
    if (same == flows.end())
      flows.push_back({base, count, thread->token});
    else
      same->count = std::max(same->count, count);
  }
  return flows;
}

}  // namespace xttcp::windows_token
