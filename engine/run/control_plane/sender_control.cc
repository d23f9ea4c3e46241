#include "engine/run/control_plane/sender_control.hh"

#include "engine/report/log.hh"
#include "engine/run/control_plane/senders.hh"

namespace xttcp {

namespace {

// -N (and -ns without -sp): no control connection; the sender starts once connected.
class NoSyncSender final : public SenderControl {
 public:
  explicit NoSyncSender(const SenderControlContext& context) : context_(context) {}

  Expected<Agreement> agree() override {
    context_.log.info("Starting sender activity (no sync) ...");
    return Agreement{context_.spec.cycle_s(), false};
  }
  Status start() override { return ok(); }
  Status stopped(double, bool) override { return ok(); }

 private:
  SenderControlContext context_;
};

}  // namespace

std::unique_ptr<SenderControl> make_sender_control(const SenderControlContext& context) {
  if (context.spec.dialect == Dialect::windows) return make_windows_sender(context);
  if (context.spec.control.no_sync) return std::make_unique<NoSyncSender>(context);
  return make_sync_sender(context);
}

}  // namespace xttcp
