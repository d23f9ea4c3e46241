// Did the flows land where the sender predicted? The sender's choice of source ports says how
// many of its flows each of the receiver's RX queues should take; the receiver's NIC counts what
// each queue took over the measured window. Set side by side as shares (docs/topology.md).
#pragma once

#include "engine/result.hh"

namespace xttcp {

// The check for a sender whose source_ports were spread on purpose, against its peer's
// queue_window; `unavailable` says why when either side lacks what it needs (no per-queue RX
// counts, a queue count that differs from the prediction's, nothing counted).
SpreadCheck check_spread(const SourcePortSpread& predicted, const QueueWindow* measured);

}  // namespace xttcp
