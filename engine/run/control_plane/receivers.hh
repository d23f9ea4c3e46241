// The receiver control planes, for make_receiver_control (receiver_control.cc) only.
#pragma once

#include <memory>

#include "engine/run/control_plane/receiver_control.hh"

namespace xttcp {

std::unique_ptr<ReceiverControl> make_sync_receiver(const ReceiverControlContext& context);
std::unique_ptr<ReceiverControl> make_accept_receiver(const ReceiverControlContext& context);
std::unique_ptr<ReceiverControl> make_windows_receiver(const ReceiverControlContext& context);
std::unique_ptr<ReceiverControl> make_iperf2_receiver(const ReceiverControlContext& context);

}  // namespace xttcp
