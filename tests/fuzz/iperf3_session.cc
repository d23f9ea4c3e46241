// An iperf3 client as a hostile peer sees the server: whatever it sends on the control
// connection, in whatever pieces, and whatever data connections come with whatever cookies,
// between the server's own steps (ServerSession). Properties: no more streams are admitted
// than the parameters ask (parallel, twice with --bidir), each once, with ids 1, 3, 4, ... in
// order and TEST_START/TEST_RUNNING said once, after the last; a stream with another cookie is
// refused with 0xFF; nothing happens after the test is over (done, failed, terminated); every
// failure is one line. Input: records of an op byte and a 1-byte length, then that many bytes:
// op 0: control bytes; 1: a data connection's cookie (the record's bytes, padded to 37; with a
// length of 0 the test's own cookie); 2: the server accepts the parameters; 3: it refuses them;
// 4: a UDP stream's hello; 5: the server wants the results; 6: it sends its results; 7: the
// control connection closes.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "engine/iperf3/server_session.hh"
#include "tests/fuzz/fuzz_check.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xttcp::iperf3;
  ServerSession session;
  std::string cookie;  // the test's, once the first 37 control bytes came
  std::string control_bytes;
  uint32_t admitted = 0;
  bool started = false, over = false;
  auto take = [&](const ServerStep& step) {
    FUZZ_CHECK(!over || step.event == ServerStep::Event::none);
    if (step.event == ServerStep::Event::failed) {
      FUZZ_CHECK(!step.message.empty() && step.message.find('\n') == std::string::npos);
      over = true;
    }
    if (step.event == ServerStep::Event::done || step.event == ServerStep::Event::client_terminated)
      over = true;
    if (step.event == ServerStep::Event::cookie) {
      FUZZ_CHECK(control_bytes.size() >= cookie_size);
      cookie = control_bytes.substr(0, cookie_size);
      FUZZ_CHECK(step.write == "\x09");
    }
    if (step.event == ServerStep::Event::parameters) {
      FUZZ_CHECK(step.parameters.parallel >= 1 && step.parameters.parallel <= max_parallel);
    }
  };
  auto admit = [&](const StreamAdmission& a, bool ours) {
    if (!a.stream) return;
    FUZZ_CHECK(!over && !started && (ours || session.parameters().protocol == Protocol::udp));
    FUZZ_CHECK(a.id == (admitted == 0 ? 1 : static_cast<int32_t>(admitted) + 2));
    ++admitted;
    FUZZ_CHECK(admitted <= session.streams_expected());
    FUZZ_CHECK(a.all_streams == (admitted == session.streams_expected()));
    if (a.all_streams) {
      FUZZ_CHECK(a.control_write == "\x01\x02");
      started = true;
    }
  };
  for (size_t i = 0; i + 2 <= size;) {
    const uint8_t op = data[i];
    const size_t length = std::min<size_t>(data[i + 1], size - i - 2);
    const auto* bytes = data + i + 2;
    i += 2 + length;
    switch (op % 8) {
      case 0: {
        control_bytes.append(reinterpret_cast<const char*>(bytes), length);
        for (ServerStep step = session.on_control({bytes, length});
             step.event != ServerStep::Event::none; step = session.on_control({}))
          take(step);
        break;
      }
      case 1: {
        std::string offered = length == 0 && !cookie.empty()
                                  ? cookie
                                  : std::string(reinterpret_cast<const char*>(bytes), length);
        offered.resize(cookie_size, '\0');
        const bool ours =
            !cookie.empty() && std::string(offered.c_str()) == std::string(cookie.c_str());
        const StreamAdmission a = session.on_stream(std::span<const unsigned char, cookie_size>(
            reinterpret_cast<const unsigned char*>(offered.data()), cookie_size));
        if (!a.stream) FUZZ_CHECK(a.write == "\xff");
        if (a.stream) FUZZ_CHECK(ours);
        admit(a, ours);
        break;
      }
      case 2: (void)session.accept_parameters(); break;
      case 3: {
        const std::string refused = session.refuse(6, 0);
        FUZZ_CHECK(refused.size() == server_error_size && refused[0] == '\xfe');
        over = true;
        break;
      }
      case 4: admit(session.on_udp_stream(), false); break;
      case 5: (void)session.results_wanted(); break;
      case 6: {
        Results ours;
        const std::string sent = session.send_results(ours);
        FUZZ_CHECK(sent.empty() || sent.back() == '\x0e');
        break;
      }
      case 7: take(session.on_control_closed()); break;
    }
  }
  return 0;
}
