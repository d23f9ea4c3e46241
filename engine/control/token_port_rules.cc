#include "engine/control/token_port_rules.hh"

#include <algorithm>

#include "engine/control/windows_token.hh"

namespace xttcp {

TokenStanding token_standing(const SenderEvidence& evidence, uint16_t data_port,
                             const std::string& host, SenderEvidence::Clock::time_point accepted,
                             bool tcp, bool port_assignment) {
  if (tcp) {
    const auto seen = evidence.data_connection_seen(data_port, host);
    if (!seen) return TokenStanding::unproven;
    // Its sender's token connection follows its data connection: one accepted well before it is
    // another's (the slack is the worker's delay in reporting what it accepted).
    if (accepted + windows_token::data_report_slack < *seen) return TokenStanding::early;
  }
  // The hand-out comes first (TCP: before the data connection; UDP: before the token).
  if (port_assignment && !evidence.handed_out_to(data_port, host))
    return tcp ? TokenStanding::not_handed_out : TokenStanding::unproven;
  return TokenStanding::eligible;
}

TokenPortRules::Id TokenPortRules::accepted(std::size_t port, std::string host,
                                            Clock::time_point now, std::vector<Closed>& closed) {
  const auto on_port = [port](const Candidate& c) { return c.port == port; };
  if (static_cast<std::size_t>(std::count_if(candidates_.begin(), candidates_.end(), on_port)) >=
      windows_token::candidates_per_port) {
    // The oldest that sent nothing goes, else the oldest (candidates_ is in order of arrival).
    auto oldest = std::find_if(candidates_.begin(), candidates_.end(),
                               [&](const Candidate& c) { return on_port(c) && !c.token; });
    if (oldest == candidates_.end())
      oldest = std::find_if(candidates_.begin(), candidates_.end(), on_port);
    close(static_cast<std::size_t>(oldest - candidates_.begin()), Why::crowded, closed);
  }
  candidates_.push_back({next_id_, port, std::move(host), now, false});
  return next_id_++;
}

void TokenPortRules::token_read(Id id) {
  for (Candidate& c : candidates_)
    if (c.id == id) c.token = true;
}

void TokenPortRules::gone(Id id) {
  candidates_.erase(std::remove_if(candidates_.begin(), candidates_.end(),
                                   [id](const Candidate& c) { return c.id == id; }),
                    candidates_.end());
}

void TokenPortRules::send_failed(const Counted& counted) {
  if (!counted_[counted.port]) return;
  counted_[counted.port] = false;
  if (--counted_total_ == 0) first_counted_.reset();
}

void TokenPortRules::close(std::size_t index, Why why, std::vector<Closed>& closed) {
  const Candidate& c = candidates_[index];
  closed.push_back({c.id, c.port, c.host, why});
  candidates_.erase(candidates_.begin() + static_cast<std::ptrdiff_t>(index));
}

TokenPortRules::Step TokenPortRules::decide(Clock::time_point now) {
  Step step;
  // A partial exchange that stalls belongs to a sender that failed: start over.
  if (first_counted_ && !all_counted() &&
      now >= *first_counted_ + windows_token::rest_of_tokens_wait) {
    step.started_over = counted_total_;
    std::fill(counted_.begin(), counted_.end(), false);
    counted_total_ = 0;
    first_counted_.reset();
  }
  std::vector<Candidate> kept;
  for (Candidate& c : candidates_) {
    if (counted_[c.port]) {
      step.closed.push_back({c.id, c.port, c.host, Why::taken});
      continue;
    }
    const TokenStanding standing = judge_(c.port, c.host, c.accepted);
    if (standing == TokenStanding::early || standing == TokenStanding::not_handed_out) {
      step.closed.push_back({c.id, c.port, c.host,
                             standing == TokenStanding::early ? Why::early : Why::not_handed_out});
    } else if (c.token && standing == TokenStanding::eligible) {
      // The first such candidate of its thread (the earliest accepted) is its sender.
      counted_[c.port] = true;
      ++counted_total_;
      if (!first_counted_) first_counted_ = now;
      step.counted.push_back({c.id, c.port, c.host});
    } else if (now >= c.accepted + windows_token::token_wait) {
      step.closed.push_back({c.id, c.port, c.host, c.token ? Why::unproven : Why::silent});
    } else {
      kept.push_back(std::move(c));
    }
  }
  // The others of a thread just counted are not its sender.
  candidates_.clear();
  for (Candidate& c : kept) {
    if (counted_[c.port])
      step.closed.push_back({c.id, c.port, c.host, Why::taken});
    else
      candidates_.push_back(std::move(c));
  }
  return step;
}

}  // namespace xttcp
