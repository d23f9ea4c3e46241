// What one iperf3 test is to xttcp's client (client_run.cc): the parameters it sends from its
// command line, and the test its workers run (the direction: -R makes them receive; -b and
// --fq-rate per stream). Pure.
#pragma once

#include "engine/iperf3/parameters.hh"
#include "engine/spec.hh"

namespace xttcp::iperf3 {

// The parameters message, as 3.12's client fills it for the same command line ("time" 0 when
// -n or -k ends the test; "len" always).
Parameters client_parameters(const TestSpec& client);

// The test as this end's workers run it: they send, or receive with -R; one flow per stream,
// connected by the control plane; -O as warm-up; -b and --fq-rate over all the streams when
// this end sends.
TestSpec client_engine_spec(const TestSpec& client);

}  // namespace xttcp::iperf3
