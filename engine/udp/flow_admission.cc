#include "engine/udp/flow_admission.hh"

namespace xttcp::udp {

void FlowAdmission::declare(std::optional<std::vector<DeclaredFlows>> flows) {
  std::lock_guard lock(mutex_);
  rules_.declared = flows.has_value();
  rules_.flows = flows ? std::move(*flows) : std::vector<DeclaredFlows>{};
  generation_.fetch_add(1, std::memory_order_release);
}

FlowRules FlowAdmission::rules() const {
  std::lock_guard lock(mutex_);
  return rules_;
}

}  // namespace xttcp::udp
