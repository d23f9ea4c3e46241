// The sender control planes, for make_sender_control (sender_control.cc) only.
#pragma once

#include <memory>

#include "engine/run/control_plane/sender_control.hh"

namespace xttcp {

std::unique_ptr<SenderControl> make_sync_sender(const SenderControlContext& context);
std::unique_ptr<SenderControl> make_windows_sender(const SenderControlContext& context);

}  // namespace xttcp
