#include "engine/backend/connection_inbox.hh"

#include <utility>

namespace xttcp {

Expected<std::unique_ptr<ConnectionInbox>> ConnectionInbox::create() {
  auto wake = WakeSignal::create();
  if (!wake) return fail("--one-port: " + wake.error().message);
  return std::unique_ptr<ConnectionInbox>(new ConnectionInbox(std::move(*wake)));
}

void ConnectionInbox::put(UniqueSocket socket, uint32_t slot, int session) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;  // `socket` closes here
    mail_.handed.push_back({std::move(socket), slot, session});
  }
  wake_.notify();
}

void ConnectionInbox::order(Order order) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    mail_.orders.push_back(std::move(order));
  }
  wake_.notify();
}

ConnectionInbox::Mail ConnectionInbox::take() {
  wake_.drain();
  std::lock_guard lock(mutex_);
  return std::exchange(mail_, {});
}

void ConnectionInbox::close() {
  Mail left;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    left = std::exchange(mail_, {});
  }
}

}  // namespace xttcp
