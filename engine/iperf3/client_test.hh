// What one iperf3 test is to xttcp's client (client_run.cc): the parameters it sends from its
// command line, and the test its workers run (the direction: -R makes them receive; -b and
// --fq-rate per stream), and its summary's rows from both ends' results. Pure.
#pragma once

#include <vector>

#include "engine/iperf3/console.hh"
#include "engine/iperf3/parameters.hh"
#include "engine/iperf3/results.hh"
#include "engine/spec.hh"

namespace xttcp::iperf3 {

// The parameters message, as 3.12's client fills it for the same command line ("time" 0 when
// -n or -k ends the test; "len" always).
Parameters client_parameters(const TestSpec& client);

// The test as this end's workers of one direction run it (`sending`: the client's own; -R, and
// --bidir's second group, receive): one flow per stream, connected by the control plane; -O as
// warm-up; -b and --fq-rate over the group's streams when it sends.
TestSpec client_engine_spec(const TestSpec& client, bool sending);

// The summary's rows: each stream's two ends, this end's and the server's (from its results,
// matched by stream id; a stream it did not report is 0), by flow slot, with the number
// printed for it (`ids`). Times are each end's own; this end's is `seconds` where its results
// give none. A sender's retransmits when the sender knows them.
std::vector<StreamBothEnds> both_ends(bool sending, const Results& ours, const Results& theirs,
                                      const std::vector<int>& ids, double seconds);
// The same for a UDP test: the sender's datagrams sent, the receiver's jitter, lost datagrams
// and highest sequence number, and (when this end received) its datagrams out of order by slot.
std::vector<UdpStreamBothEnds> udp_both_ends(bool sending, const Results& ours,
                                             const Results& theirs, const std::vector<int>& ids,
                                             double seconds,
                                             const std::vector<int64_t>& out_of_order);

}  // namespace xttcp::iperf3
