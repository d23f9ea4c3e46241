// Each stream's share of one interval (IntervalSample::per_stream), from what the timeline read
// at the interval's two edges: a sender's flows by their counters (and TCP_INFO, UDP datagram
// counts), a TCP receiver's connections by their tallies (io.count_reads), a UDP receiver's flows
// by their sequence accounting. Pure: the timeline reads, this subtracts.
#pragma once

#include <vector>

#include "engine/result.hh"
#include "engine/stats/connection_watch.hh"
#include "engine/stats/counters.hh"
#include "engine/udp/flow_registry.hh"

namespace xttcp {

struct StreamEdges {
  Role role = Role::sender;
  bool udp = false;
  // Per flow slot at the interval's start and end (a sender's streams).
  const std::vector<CounterSnapshot>* flows_before = nullptr;
  const std::vector<CounterSnapshot>* flows_now = nullptr;
  // UDP: every flow's counts over the interval (udp::delta).
  const std::vector<udp::FlowRecord>* udp_delta = nullptr;
  // TCP: the watched connections at both edges, in id order, and their interval figures
  // (interval_figures(before, now): one per reading of `now`, in its order).
  const std::vector<ConnectionWatch::Reading>* readings_before = nullptr;
  const std::vector<ConnectionWatch::Reading>* readings_now = nullptr;
  const std::vector<ConnectionInterval>* connections = nullptr;
  bool tallies = false;  // a TCP receiver's readings carry tallies
  // layout.one_port: each flow slot is one stream (one connection), on a receiver too.
  bool slots_are_streams = false;
};

// Sender, or a receiver whose slots are its streams: one per flow slot, in slot order. TCP
// receiver with tallies: one per watched connection,
// in id (accept) order. UDP receiver: one per test flow that received in the interval, in the
// order the flows first arrived. Otherwise none.
std::vector<StreamInterval> stream_figures(const StreamEdges& edges);

}  // namespace xttcp
