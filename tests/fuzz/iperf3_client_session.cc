// An iperf3 server as a hostile peer sees xttcp's client: whatever it sends on the control
// connection, in whatever pieces, between the client's own steps (ClientSession). Properties:
// the events come in the protocol's order, each at most once (parameters, create_streams,
// test_start, test_running; exchange_results only after TEST_END; the server's results only
// after ours; done last, answered with IPERF_DONE); the server's results hold at most
// max_result_streams streams; nothing happens after the test is over (done, failed); every
// failure is one line. Input: records of an op byte and a 1-byte length, then that many
// bytes: op 0: control bytes; 1: the client's end condition came (TEST_END); 2: it sends its
// results; 3: Ctrl+C (CLIENT_TERMINATE); 4: the control connection closes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/iperf3/client_session.hh"
#include "tests/fuzz/fuzz_check.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xttcp::iperf3;
  using Event = ClientStep::Event;
  Cookie cookie{};
  cookie.fill('a');
  cookie.back() = '\0';
  Parameters parameters;
  parameters.parallel = 2;
  ClientSession session(cookie, parameters);
  int last = static_cast<int>(Event::none);  // the furthest event so far, in protocol order
  bool over = false, ended = false, sent_results = false;
  auto take = [&](const ClientStep& step) {
    FUZZ_CHECK(!over);
    if (step.event == Event::failed) {
      FUZZ_CHECK(!step.message.empty() && step.message.find('\n') == std::string::npos);
      over = true;
      return;
    }
    const int order = static_cast<int>(step.event);
    FUZZ_CHECK(order > last);  // each once, in order
    last = order;
    if (step.event == Event::parameters) FUZZ_CHECK(!step.write.empty());
    if (step.event == Event::exchange_results) FUZZ_CHECK(ended);
    if (step.event == Event::server_results) {
      FUZZ_CHECK(sent_results);
      FUZZ_CHECK(step.results.streams.size() <= max_result_streams);
    }
    if (step.event == Event::done) {
      FUZZ_CHECK(step.write == "\x10");
      over = true;
    }
  };
  for (size_t i = 0; i + 2 <= size;) {
    const uint8_t op = data[i];
    const size_t length = std::min<size_t>(data[i + 1], size - i - 2);
    const auto* bytes = data + i + 2;
    i += 2 + length;
    switch (op % 5) {
      case 0:
        for (ClientStep step = session.on_control({bytes, length}); step.event != Event::none;
             step = session.on_control({}))
          take(step);
        break;
      case 1: {
        const bool running = session.running();
        const std::string end = session.end_test();
        FUZZ_CHECK(end.empty() != running);  // TEST_END once, and only while the data runs
        if (!end.empty()) {
          FUZZ_CHECK(end == "\x04" && !over && last == static_cast<int>(Event::test_running));
          ended = true;
        }
        break;
      }
      case 2: {
        const std::string sent = session.send_results(Results{});
        if (!sent.empty()) {
          FUZZ_CHECK(ended && !over);
          sent_results = true;
        }
        break;
      }
      case 3: {
        const std::string bye = session.terminate();
        FUZZ_CHECK(bye.empty() == over);
        if (!bye.empty()) FUZZ_CHECK(bye == "\x0c");
        over = true;
        break;
      }
      case 4: {
        const ClientStep step = session.on_control_closed();
        if (step.event != Event::none) take(step);
        FUZZ_CHECK(over);
        break;
      }
    }
  }
  return 0;
}
