// xttcp as an iperf3 3.12 server (`iperf3 -s`, docs/iperf3.md): one TCP port for the control
// connection and every stream; a test at a time, each run by the engine with the settings its
// client sent (streams, time, omit, direction, lengths, window), its streams served by the
// workers on as many cores as the plan gives. Any other connection while a test is on is told
// the server is busy (0xFF), as 3.12 does.
#pragma once

#include "engine/run/run.hh"

namespace xttcp::iperf3 {

// Serves tests until interrupted (or, with -1, one test). Exit code 0, as 3.12's server; 1 when
// it cannot listen.
int run_server(const TestSpec& spec, RunEnv& env);

}  // namespace xttcp::iperf3
