#include "engine/control/port_handout.hh"

#include "engine/control/windows_token.hh"

namespace xttcp {

PortHandout::PortHandout(uint16_t first_port, uint32_t count, std::function<bool(uint16_t)> claimed)
    : first_port_(first_port), handed_at_(count), claimed_(std::move(claimed)) {}

PortHandout::Next PortHandout::next(Clock::time_point now) const {
  const auto port_of = [this](std::size_t i) { return static_cast<uint16_t>(first_port_ + i); };
  for (std::size_t i = 0; i < handed_at_.size(); ++i)
    if (!handed_at_[i]) return {port_of(i), std::nullopt};
  // Every port went out once: the unclaimed one handed out longest ago, once it may go again.
  std::optional<std::size_t> oldest;
  for (std::size_t i = 0; i < handed_at_.size(); ++i) {
    if (claimed_(port_of(i))) continue;
    if (!oldest || *handed_at_[i] < *handed_at_[*oldest]) oldest = i;
  }
  if (!oldest) return {};  // every port is in use
  const Clock::time_point free_at = *handed_at_[*oldest] + windows_token::handout_claim_wait;
  if (now >= free_at) return {port_of(*oldest), std::nullopt};
  return {std::nullopt, free_at};
}

void PortHandout::handed_out(uint16_t port, Clock::time_point now) {
  const std::size_t i = port - first_port_;
  if (i < handed_at_.size()) handed_at_[i] = now;
}

}  // namespace xttcp
