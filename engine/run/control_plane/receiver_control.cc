#include "engine/run/control_plane/receiver_control.hh"

#include "engine/run/control_plane/receivers.hh"

namespace xttcp {

std::unique_ptr<ReceiverControl> make_receiver_control(const ReceiverControlContext& context) {
  if (context.spec.dialect == Dialect::windows) return make_windows_receiver(context);
  if (context.spec.dialect == Dialect::iperf2) return make_iperf2_receiver(context);
  if (context.spec.control.no_sync) return make_accept_receiver(context);
  return make_sync_receiver(context);
}

}  // namespace xttcp
