// Why a test ended before its clock said so: a cause the run decides on, and a message for the
// log. No decision reads the message.
#pragma once

#include <string>

namespace xttcp {

enum class StopCause {
  none,              // the clock ran its course
  interrupted,       // Ctrl+C or SIGTERM here
  sender_stopped,    // receiver: a sender of the test said 'E' while it ran
  sender_left,       // receiver: a sender of the test closed its sync connection mid-test
  senders_gone,      // receiver: every sender of the test left after the window (cool-down ends)
  receiver_left,     // sender: the receiver closed every connection or the sync connection
  flows_done,        // count mode: every flow sent (or received) its buffers
  peer_failed,       // --local: the other role failed
};

struct StopReason {
  StopCause cause = StopCause::none;
  std::string message;
};

}  // namespace xttcp
