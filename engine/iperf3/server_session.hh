// One test as an iperf3 3.12 server runs it, over its control connection
// (tests/reference/iperf3-3.12/README.md 2.2 to 2.5): the cookie, PARAM_EXCHANGE and the
// client's parameters, CREATE_STREAMS and the data connections (each must bring the test's
// cookie; the first P streams of --bidir are the server's receive streams), TEST_START and
// TEST_RUNNING, the client's TEST_END, the results exchanged (the client's first) and
// DISPLAY_RESULTS, until IPERF_DONE. Pure: it is given the bytes read and returns those to
// write; the caller owns the sockets, the data and the clock.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/iperf3/control_buffer.hh"
#include "engine/iperf3/control_wire.hh"
#include "engine/iperf3/parameters.hh"
#include "engine/iperf3/results.hh"

namespace xttcp::iperf3 {

// What the control connection's bytes made happen.
struct ServerStep {
  enum class Event {
    none,               // more bytes are needed
    cookie,             // the test's cookie came (`write`: PARAM_EXCHANGE)
    parameters,         // the client's parameters came: accept_parameters() or refuse()
    test_end,           // TEST_END: stop the data, then results_wanted()
    client_results,     // the client's results came: send_results()
    done,               // IPERF_DONE: the test is over
    client_terminated,  // CLIENT_TERMINATE: the client gave up (Ctrl+C); the test is over
    failed,             // `message` says why; the test is over
  };
  Event event = Event::none;
  std::string write;  // bytes for the control connection, in order
  Parameters parameters;
  Results results;
  std::string message;
};

// A data connection's first 37 bytes, judged.
struct StreamAdmission {
  bool stream = false;        // a stream of this test; else refused (write, then close)
  int32_t id = 0;             // its stream id (1, 3, 4, ...)
  bool server_sends = false;  // -R, or the second half of --bidir
  std::string write;          // to the data connection (0xFF when refused) ...
  std::string control_write;  // ... and to the control connection (TEST_START and
                              // TEST_RUNNING once the last stream came)
  bool all_streams = false;   // this was the last stream: the test runs now
};

class ServerSession {
 public:
  ServerSession();

  // Bytes read from the control connection. One call, one event: call again with no bytes
  // until it returns Event::none (a read may bring more than one item).
  ServerStep on_control(std::span<const unsigned char> bytes);
  // The control connection closed (EOF or error) before IPERF_DONE.
  ServerStep on_control_closed();

  // After Event::parameters: the server can run them (CREATE_STREAMS), or not (SERVER_ERROR
  // with an iperf3 error code, errors.hh); either way the bytes for the control connection.
  std::string accept_parameters();
  std::string refuse(int32_t iperf_error, int32_t os_errno);

  // A data connection's cookie, while the streams are awaited: stream or refused. Outside that
  // phase every connection is refused (3.12 writes 0xFF without reading: use busy()).
  StreamAdmission on_stream(std::span<const unsigned char, cookie_size> cookie);
  // UDP: a stream's hello datagram came (UDP streams bring no cookie; the caller answers the
  // hello): admitted while the streams are awaited, as 3.12 counts them.
  StreamAdmission on_udp_stream();
  static std::string busy() {
    return std::string(1, static_cast<char>(byte_of(State::access_denied)));
  }
  bool awaiting_streams() const { return phase_ == Phase::streams; }
  uint32_t streams_expected() const;

  // Ctrl+C: SERVER_TERMINATE, for the control connection; the test is over.
  std::string terminate();

  // After Event::test_end, once the data stopped: EXCHANGE_RESULTS.
  std::string results_wanted();
  // After Event::client_results: our results, then DISPLAY_RESULTS.
  std::string send_results(const Results& ours);

  const Parameters& parameters() const { return parameters_; }
  // The test's cookie, once it came (-J's start.cookie).
  const Cookie& cookie() const { return cookie_; }

 private:
  enum class Phase {
    cookie,
    parameters,
    decision,
    streams,
    running,
    stopping,
    client_results,
    display,
    over
  };
  ServerStep fail(std::string message);
  ServerStep running_state(unsigned char byte);
  StreamAdmission admit();

  Phase phase_ = Phase::cookie;
  ControlBuffer buffer_;
  Cookie cookie_{};
  Parameters parameters_;
  uint32_t streams_accepted_ = 0;
};

}  // namespace xttcp::iperf3
