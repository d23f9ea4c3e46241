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

}  // namespace xttcp::windows_token
