// --local: a receiver and a sender in one process over loopback, each with its own clock and
// the real sync protocol between them, so the whole lifecycle runs as it would on two hosts.
#include <cstdio>
#include <future>
#include <thread>

#include "engine/report/linux_console.hh"
#include "engine/report/log.hh"
#include "engine/run/run.hh"

namespace xttcp {

int run_local(const TestSpec& spec, RunEnv& env) {
  TestSpec receiver_spec = spec;
  receiver_spec.role = Role::receiver;
  receiver_spec.layout.address = spec.layout.ipv6 ? "::1" : "127.0.0.1";
  receiver_spec.control.hold = false;
  receiver_spec.control.wait_timeout_s = spec.control.connect_timeout_s + 5;
  receiver_spec.output.xml_file
      .reset();  // result files hold the sender's view, with the peer inside
  receiver_spec.output.json_file.reset();
  receiver_spec.output.native_json_file.reset();
  receiver_spec.output.csv_file.reset();
  receiver_spec.output.json_stream.reset();
  receiver_spec.output.log_file.reset();
  TestSpec sender_spec = spec;
  sender_spec.role = Role::sender;
  sender_spec.layout.address = receiver_spec.layout.address;

  // The receiver speaks only when something goes wrong (on stderr); its results are printed
  // below. Its info lines go to a temporary file that vanishes when closed (no /dev/null on
  // every OS).
  FILE* discard = std::tmpfile();
  Log::Options options;
  options.quiet = true;
  options.out = discard != nullptr ? discard : stdout;
  auto receiver_log = Log::open(options);
  if (!receiver_log) {
    env.log.error(receiver_log.error().message);
    return exit_code::run_failed;
  }
  PhaseClock receiver_clock;
  std::atomic<bool> stop_receiver{false};  // the receiver's "interrupted": user, or sender failed
  auto halt_receiver = [&](StopCause cause, const char* why) {
    stop_receiver.store(true);
    receiver_clock.cancel(cause, why);
  };
  const CancelHook forward_interrupt = env.clock.add_cancel_hook([&] {
    if (user_interrupted(env)) halt_receiver(StopCause::interrupted, "interrupted");
  });
  std::optional<Result> receiver_result;
  std::promise<void> listening;
  auto listening_future = listening.get_future();
  RunEnv receiver_env{**receiver_log,  receiver_clock, env.choice,
                      &stop_receiver,  false,          [&listening] { listening.set_value(); },
                      &receiver_result};
  std::promise<int> receiver_code;
  auto receiver_done = receiver_code.get_future();
  std::thread receiver([&] { receiver_code.set_value(run_receiver(receiver_spec, receiver_env)); });

  int code = exit_code::run_failed;
  bool peer_shown = false;
  // The receiver either listens or ends (e.g. a port in use) - never neither.
  for (;;) {
    if (listening_future.wait_for(std::chrono::milliseconds(20)) == std::future_status::ready) {
      std::optional<Result> sender_result;
      std::optional<Result>* caller_out = env.result_out;
      env.result_out = &sender_result;
      code = run_sender(sender_spec, env);
      env.result_out = caller_out;
      if (caller_out) *caller_out = sender_result;
      peer_shown = sender_result && sender_result->peer;
      break;
    }
    if (receiver_done.wait_for(std::chrono::milliseconds(0)) == std::future_status::ready) break;
  }
  if (code != exit_code::success) halt_receiver(StopCause::peer_failed, "sender failed");
  receiver.join();
  const int receiver_exit = receiver_done.get();
  (*receiver_log).reset();
  if (discard != nullptr) std::fclose(discard);

  // Normally the sender printed the receiver's figures from the native exchange already.
  if (receiver_result && env.print_results && !peer_shown) {
    env.log.info("#####  Receiver side (local mode):  #####");
    for (const std::string& line : linux_summary_lines(*receiver_result)) env.log.info(line);
    env.log.raw(linux_separator);
  }
  if (code == exit_code::success && receiver_exit != exit_code::success) code = receiver_exit;
  return code;
}

}  // namespace xttcp
