#include "engine/backend/connection_inbox.hh"

#include <utility>

namespace xttcp {

Expected<std::unique_ptr<ConnectionInbox>> ConnectionInbox::create() {
  auto wake = WakeSignal::create();
  if (!wake) return fail("--one-port: " + wake.error().message);
  return std::unique_ptr<ConnectionInbox>(new ConnectionInbox(std::move(*wake)));
}

void ConnectionInbox::put(UniqueSocket socket, uint32_t slot) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;  // `socket` closes here
    handed_.push_back({std::move(socket), slot});
  }
  wake_.notify();
}

std::vector<ConnectionInbox::Handed> ConnectionInbox::take() {
  wake_.drain();
  std::lock_guard lock(mutex_);
  return std::exchange(handed_, {});
}

void ConnectionInbox::close() {
  std::vector<Handed> left;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    left = std::exchange(handed_, {});
  }
}

}  // namespace xttcp
