// Checks of a finished test's figures that make it invalid: a result is printed either way,
// and the check's line says what is wrong with it (the run then exits 1).
#pragma once

#include <optional>
#include <string>

#include "engine/result.hh"

namespace xttcp {

// A peer's result frame whose figures no run can produce (check_plausible with
// peer_frame_rules, docs/hostile-peers.md): the one line that refuses it, "the receiver's result
// is refused: summary.total_bytes: ...", for the log and the run's notes; nullopt when it may be
// shown. A refused result is neither printed, written nor used.
std::optional<std::string> refused_peer_result(const Result& peer);

// Sender, TCP: an xttcp receiver that counted nothing, or less than half of what we sent and
// less by more than the connections can hold in flight (the bytes went nowhere: a listener that
// stopped accepting, another peer). The two windows differ only by what is in flight at their
// edges; with -M the receiver counts more, never less.
std::optional<std::string> count_mismatch(const Result& sender, const Result& receiver);

// What the sender's connections can hold that its receiver has not read: each one's send and
// receive buffers at the kernel's limits (tcp_wmem[2] + tcp_rmem[2], as its host recorded
// them); 0 where they were not recorded.
uint64_t in_flight_bound(const Result& sender);

// Receiver: no data in the last part of the window (more than 1 s, a fifth of it, and four
// times the longest gap between data before it, so sparse -B pacing is no alarm): the sender
// stopped early. The receiver checks it with -N over TCP, where no control connection can tell
// (a UDP sender may well send a burst). `late_s`: the time in the window the host did not run
// this process (MeasuredWindow::late_s); a sender paused with it is not a sender that stopped
// (CI: a 1 s window closed 2.01 s late, its last 2.19 s silent on both ends).
std::optional<std::string> silent_tail(const Result& receiver, double late_s);

// A note, not a failure: the host did not run this process for `late_s` of its `window_s` s
// window (its clock woke that much later than asked), at least a quarter second and a twentieth
// of the window; the figures are true of the window, which that time is part of.
std::optional<std::string> host_pause_note(double late_s, double window_s);

}  // namespace xttcp
