// One test as an iperf3 3.12 client runs it, over its control connection
// (tests/reference/iperf3-3.12/README.md 2.2 to 2.5): the cookie, the parameters on
// PARAM_EXCHANGE, the data connections on CREATE_STREAMS (each opened with the cookie), the
// clock on TEST_START and the data on TEST_RUNNING, TEST_END when the client decides, the
// results exchanged (ours first) and IPERF_DONE on DISPLAY_RESULTS. A busy server (0xFF), its
// error (SERVER_ERROR and its codes) or its end (SERVER_TERMINATE) ends the test with 3.12's
// line. Pure: it is given the bytes read and returns those to write.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "engine/iperf3/control_buffer.hh"
#include "engine/iperf3/control_wire.hh"
#include "engine/iperf3/parameters.hh"
#include "engine/iperf3/results.hh"

namespace xttcp::iperf3 {

struct ClientStep {
  enum class Event {
    none,              // more bytes are needed
    parameters,        // PARAM_EXCHANGE: `write` holds our parameters
    create_streams,    // open the data connections, each starting with cookie()
    test_start,        // start the clock (the test's time, and -O)
    test_running,      // start the data
    exchange_results,  // the data stopped: send_results()
    server_results,    // the server's results came
    done,              // DISPLAY_RESULTS: `write` holds IPERF_DONE; the test is over
    failed,            // `message` is 3.12's line for it (after "iperf3: error - "); over
  };
  Event event = Event::none;
  std::string write;
  Results results;
  std::string message;
};

class ClientSession {
 public:
  ClientSession(const Cookie& cookie, Parameters parameters);

  // The first bytes of the control connection: the cookie.
  std::string hello() const;
  const Cookie& cookie() const { return cookie_; }
  // Bytes read from the control connection. One call, one event: call again with no bytes
  // until it returns Event::none.
  ClientStep on_control(std::span<const unsigned char> bytes);
  ClientStep on_control_closed();

  // The client's end condition came (time, -n, -k): TEST_END.
  std::string end_test();
  // After Event::exchange_results: our results.
  std::string send_results(const Results& ours);
  // Ctrl+C: CLIENT_TERMINATE.
  std::string terminate();

  const Parameters& parameters() const { return parameters_; }
  bool running() const { return phase_ == Phase::running; }

 private:
  enum class Phase {
    parameter_exchange,
    create_streams,
    test_start,
    test_running,
    running,
    ending,
    our_results,
    server_results,
    display,
    over
  };
  ClientStep fail(std::string message);

  Phase phase_ = Phase::parameter_exchange;
  ControlBuffer buffer_;
  Cookie cookie_;
  Parameters parameters_;
};

}  // namespace xttcp::iperf3
