// xttcp as an iperf3 3.12 client (`iperf3 -c HOST`, docs/iperf3.md): one test against any iperf3
// server over its protocol, the streams on xttcp's workers, 3.12's console.
#pragma once

#include "engine/run/run.hh"

namespace xttcp::iperf3 {

// Runs the client's test (spec.iperf3 and the spec's common parts hold its command line):
// exit 0 when its results were exchanged and printed; 1 with 3.12's error line otherwise.
int run_client(const TestSpec& spec, RunEnv& env);

}  // namespace xttcp::iperf3
