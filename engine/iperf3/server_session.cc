#include "engine/iperf3/server_session.hh"

#include <algorithm>
#include <fmt/format.h>

namespace xttcp::iperf3 {

namespace {

// Nothing the client sends is larger than its results (3.12's client never sends its output).
constexpr std::size_t control_capacity = length_size + max_results_bytes + cookie_size;

// A state the client may send, at a point of the test where it makes no sense.
std::string out_of_turn(State state) {
  return fmt::format("received an unknown control message ({} out of turn)", name_of(state));
}

}  // namespace

ServerSession::ServerSession() : buffer_(control_capacity) {}

ServerStep ServerSession::fail(std::string message) {
  phase_ = Phase::over;
  ServerStep step;
  step.event = ServerStep::Event::failed;
  step.message = std::move(message);
  return step;
}

uint32_t ServerSession::streams_expected() const {
  return parameters_.parallel * (parameters_.bidirectional ? 2 : 1);
}

ServerStep ServerSession::on_control(std::span<const unsigned char> bytes) {
  if (phase_ == Phase::over) return {};
  if (!buffer_.append(bytes))
    return fail("the client sent more on its control connection than the protocol holds");
  switch (phase_) {
    case Phase::cookie: {
      auto cookie = buffer_.take(cookie_size);
      if (!cookie) return {};
      std::copy(cookie->begin(), cookie->end(), cookie_.begin());
      phase_ = Phase::parameters;
      ServerStep step;
      step.event = ServerStep::Event::cookie;
      step.write = state_bytes({State::param_exchange});
      return step;
    }
    case Phase::parameters: {
      auto text = buffer_.take_message(max_parameters_bytes, "parameters");
      if (!text) return fail(text.error().message);
      if (!*text) return {};
      auto parameters = read_parameters(**text);
      if (!parameters) return fail(parameters.error().message);
      parameters_ = *parameters;
      phase_ = Phase::decision;
      ServerStep step;
      step.event = ServerStep::Event::parameters;
      step.parameters = parameters_;
      return step;
    }
    case Phase::client_results: {
      auto text = buffer_.take_message(max_results_bytes, "results");
      if (!text) return fail(text.error().message);
      if (!*text) return {};
      auto results = read_results(**text, max_results_bytes);
      if (!results) return fail(results.error().message);
      phase_ = Phase::display;
      ServerStep step;
      step.event = ServerStep::Event::client_results;
      step.results = std::move(*results);
      return step;
    }
    default: {
      // TEST_START from a client is a no-op in 3.12: skipped here, so what follows it in the
      // same read is not left waiting for more bytes.
      while (auto byte = buffer_.take(1)) {
        const auto value = static_cast<unsigned char>((*byte)[0]);
        if (state_of(value) == State::test_start) continue;
        return running_state(value);
      }
      return {};
    }
  }
}

ServerStep ServerSession::running_state(unsigned char byte) {
  const std::optional<State> state = state_of(byte);
  ServerStep step;
  if (state == State::client_terminate) {
    phase_ = Phase::over;
    step.event = ServerStep::Event::client_terminated;
    step.message = "the client has terminated";
    return step;
  }
  if (state == State::test_end && phase_ == Phase::running) {
    phase_ = Phase::stopping;
    step.event = ServerStep::Event::test_end;
    return step;
  }
  if (state == State::iperf_done && phase_ == Phase::display) {
    phase_ = Phase::over;
    step.event = ServerStep::Event::done;
    return step;
  }
  return fail(state ? out_of_turn(*state) : "received an unknown control message");
}

ServerStep ServerSession::on_control_closed() {
  if (phase_ == Phase::over) return {};
  return fail("the client has unexpectedly closed the connection");
}

std::string ServerSession::accept_parameters() {
  if (phase_ != Phase::decision) return {};
  phase_ = Phase::streams;
  return state_bytes({State::create_streams});
}

std::string ServerSession::refuse(int32_t iperf_error, int32_t os_errno) {
  phase_ = Phase::over;
  const auto bytes = server_error(iperf_error, os_errno);
  return std::string(bytes.begin(), bytes.end());
}

StreamAdmission ServerSession::on_stream(std::span<const unsigned char, cookie_size> cookie) {
  StreamAdmission admission;
  if (phase_ != Phase::streams || parameters_.protocol != Protocol::tcp ||
      !same_cookie(cookie_, cookie)) {
    admission.write = busy();
    return admission;
  }
  return admit();
}

StreamAdmission ServerSession::on_udp_stream() {
  if (phase_ != Phase::streams || parameters_.protocol != Protocol::udp) return {};
  return admit();
}

StreamAdmission ServerSession::admit() {
  StreamAdmission admission;
  const uint32_t index = streams_accepted_++;
  admission.stream = true;
  admission.id = index == 0 ? 1 : static_cast<int32_t>(index) + 2;
  admission.server_sends =
      parameters_.reverse || (parameters_.bidirectional && index >= parameters_.parallel);
  if (streams_accepted_ == streams_expected()) {
    admission.all_streams = true;
    admission.control_write = state_bytes({State::test_start, State::test_running});
    phase_ = Phase::running;
  }
  return admission;
}

std::string ServerSession::terminate() {
  if (phase_ == Phase::over) return {};
  phase_ = Phase::over;
  return state_bytes({State::server_terminate});
}

std::string ServerSession::results_wanted() {
  if (phase_ != Phase::stopping) return {};
  phase_ = Phase::client_results;
  return state_bytes({State::exchange_results});
}

std::string ServerSession::send_results(const Results& ours) {
  if (phase_ != Phase::display) return {};
  return frame_message(write_results(ours)) + state_bytes({State::display_results});
}

}  // namespace xttcp::iperf3
