// Why a test ended before its clock said so: a cause the run decides on, and a message for the
// log. No decision reads the message.
#pragma once

#include <string>

namespace xttcp {

enum class StopCause {
  none,            // the clock ran its course
  interrupted,     // Ctrl+C or SIGTERM here
  sender_stopped,  // receiver: a sender of the test said 'E' while it ran
  sender_left,     // receiver: a sender of the test closed its sync connection mid-test
  senders_gone,    // receiver: every sender of the test left after the window (cool-down ends)
  receiver_left,   // sender: the receiver closed every connection or the sync connection
  flows_done,      // count mode: every flow sent (or received) its buffers
  peer_failed,     // --local: the other role failed
  no_data,         // receiver: a test started by a peer's word saw no data at its start
};

struct StopReason {
  StopCause cause = StopCause::none;
  std::string message;
};

// The cause's name in results ("interrupted", "sender_left", ...).
constexpr const char* to_string(StopCause cause) {
  switch (cause) {
    case StopCause::none: return "none";
    case StopCause::interrupted: return "interrupted";
    case StopCause::sender_stopped: return "sender_stopped";
    case StopCause::sender_left: return "sender_left";
    case StopCause::senders_gone: return "senders_gone";
    case StopCause::receiver_left: return "receiver_left";
    case StopCause::flows_done: return "flows_done";
    case StopCause::peer_failed: return "peer_failed";
    case StopCause::no_data: return "no_data";
  }
  return "none";
}

}  // namespace xttcp
