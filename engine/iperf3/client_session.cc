#include "engine/iperf3/client_session.hh"

#include <fmt/format.h>

#include "engine/iperf3/errors.hh"

namespace xttcp::iperf3 {

namespace {

// The server's results, with its output when asked for, are the largest item it sends.
std::size_t control_capacity(const Parameters& p) {
  return length_size + (p.get_server_output ? max_results_with_output_bytes : max_results_bytes);
}

}  // namespace

ClientSession::ClientSession(const Cookie& cookie, Parameters parameters)
    : buffer_(control_capacity(parameters)), cookie_(cookie), parameters_(std::move(parameters)) {}

std::string ClientSession::hello() const { return std::string(cookie_.begin(), cookie_.end()); }

ClientStep ClientSession::fail(std::string message) {
  phase_ = Phase::over;
  ClientStep step;
  step.event = ClientStep::Event::failed;
  step.message = std::move(message);
  return step;
}

ClientStep ClientSession::on_control(std::span<const unsigned char> bytes) {
  if (phase_ == Phase::over) return {};
  if (!buffer_.append(bytes))
    return fail("the server sent more on its control connection than the protocol holds");
  if (phase_ == Phase::server_results) {
    const uint32_t most =
        parameters_.get_server_output ? max_results_with_output_bytes : max_results_bytes;
    auto text = buffer_.take_message(most, "results");
    if (!text) return fail(error_text(error_receive_results, text.error().message));
    if (!*text) return {};
    auto results = read_results(**text, most);
    if (!results) return fail(error_text(error_receive_results, results.error().message));
    phase_ = Phase::display;
    ClientStep step;
    step.event = ClientStep::Event::server_results;
    step.results = std::move(*results);
    return step;
  }
  const std::optional<unsigned char> first = buffer_.front();
  if (!first) return {};
  const std::optional<State> state = state_of(*first);
  if (state == State::server_error) {  // its two codes follow its byte
    auto all = buffer_.take(server_error_size);
    if (!all) return {};
    const ServerError e = read_server_error(std::span<const unsigned char, 8>(
        reinterpret_cast<const unsigned char*>(all->data()) + 1, 8));
    return fail(error_text(e.iperf_error, e.os_errno));
  }
  (void)buffer_.take(1);
  if (state == State::access_denied) return fail(error_text(error_access_denied, 0));
  if (state == State::server_terminate) return fail(error_text(error_server_terminated, 0));
  ClientStep step;
  if (state == State::param_exchange && phase_ == Phase::parameter_exchange) {
    phase_ = Phase::create_streams;
    step.event = ClientStep::Event::parameters;
    step.write = frame_message(write_parameters(parameters_));
  } else if (state == State::create_streams && phase_ == Phase::create_streams) {
    phase_ = Phase::test_start;
    step.event = ClientStep::Event::create_streams;
  } else if (state == State::test_start && phase_ == Phase::test_start) {
    phase_ = Phase::test_running;
    step.event = ClientStep::Event::test_start;
  } else if (state == State::test_running && phase_ == Phase::test_running) {
    phase_ = Phase::running;
    step.event = ClientStep::Event::test_running;
  } else if (state == State::exchange_results && phase_ == Phase::ending) {
    phase_ = Phase::our_results;
    step.event = ClientStep::Event::exchange_results;
  } else if (state == State::display_results && phase_ == Phase::display) {
    phase_ = Phase::over;
    step.event = ClientStep::Event::done;
    step.write = state_bytes({State::iperf_done});
  } else {
    return fail(error_text(error_unknown_message, 0));
  }
  return step;
}

ClientStep ClientSession::on_control_closed() {
  if (phase_ == Phase::over) return {};
  return fail(error_text(error_control_closed, 0));
}

std::string ClientSession::end_test() {
  if (phase_ != Phase::running) return {};
  phase_ = Phase::ending;
  return state_bytes({State::test_end});
}

std::string ClientSession::send_results(const Results& ours) {
  if (phase_ != Phase::our_results) return {};
  phase_ = Phase::server_results;
  return frame_message(write_results(ours));
}

std::string ClientSession::terminate() {
  if (phase_ == Phase::over) return {};
  phase_ = Phase::over;
  return state_bytes({State::client_terminate});
}

}  // namespace xttcp::iperf3
