// What the two iocp senders (TCP and UDP) share: N overlapped sends per flow, started once and
// restarted as they complete (paced by -B / -thr when asked), the bounded wait for the sends in
// flight at the end (every byte counted is then a byte sent), and the cancel-and-drain teardown
// that never frees what the kernel may still hold. A CRTP base: the data loop calls the derived
// sender's own post_send / on_send_completion directly, no virtual call per buffer.
//
// Derived provides (SendWorker<Derived, ...> is its friend):
//   template <bool Paced> void post_send(Request&);  starts sends on a request until one is
//       pending, the pacer says wait or the inline budget is spent (then it goes to queued_)
//   template <bool Paced> void on_send_completion(const OVERLAPPED_ENTRY&);  counts, restarts
//   (both defined in Derived's .cc, which explicitly instantiates them for false and true: the
//   loop below is instantiated in whichever file makes a Derived)
//   static constexpr const char* sends_name;  what the leak note calls them, e.g. "UDP sends"
// and may hide:
//   DWORD between_waits(DWORD timeout);  work between two waits on the port (UDP count mode's
//       end markers); returns how long the next wait may last at most
// Flow has `OverlappedSocket socket` and `std::vector<Request> requests` (never resized).
// Derived's destructor calls shut_down() (it needs Derived's handlers); this one then keeps
// the flows allocated when the drain left some sends with the kernel.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "io_backends/iocp/iocp_worker.hh"
#include "io_backends/iocp/overlapped_socket.hh"
#include "io_backends/iocp/send_pacer.hh"

namespace xttcp::iocp {

template <class Derived, class Flow, class Request>
class SendWorker : public IocpWorker {
 public:
  ~SendWorker() override {
    if (!leak_) return;
    for (auto& flow : flows_) static_cast<void>(flow.release());
  }

  void run(const std::atomic<bool>& stop) final {
    if (!opened_) return;  // a failed open() left nothing to send on
    pacer_ = SendPacer(worker_rate(*context_.spec, flows_.size()));
    if (pacer_.paced())
      send_loop<true>(stop);
    else
      send_loop<false>(stop);
  }

 protected:
  using IocpWorker::IocpWorker;

  // Waits (bounded) until the kernel holds no send; completions are counted, not restarted.
  void wait_for_sends(DWORD timeout_ms) {
    stopping_ = true;
    queued_.clear();
    OVERLAPPED_ENTRY entries[completion_batch];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (pending_ > 0 && std::chrono::steady_clock::now() < deadline) {
      const ULONG n = port_.wait(entries, completion_batch, max_wait_ms);
      for (ULONG i = 0; i < n; ++i) derived().template on_send_completion<false>(entries[i]);
    }
  }

  // Cancels what is left and drains the port (bounded); past the bound the memory of the sends
  // still pending is left allocated, and the report says so.
  void shut_down() {
    if (shut_down_) return;
    shut_down_ = true;
    stopping_ = true;
    queued_.clear();
    if (!port_.valid()) return;
    for (auto& flow : flows_)
      if (flow->socket.valid()) CancelIoEx(flow->socket.handle(), nullptr);
    wait_for_sends(drain_timeout_ms);
    if (pending_ == 0) return;
    report_.notes.push_back("iocp: " + std::to_string(pending_) + " " + Derived::sends_name +
                            " still pending " + std::to_string(drain_timeout_ms) +
                            " ms after cancelling them; their memory was left allocated");
    leak_ = true;
  }

  std::vector<std::unique_ptr<Flow>> flows_;
  SendPacer pacer_;
  std::vector<Request*> queued_;  // waiting for the pacer or past the inline budget
  std::vector<Request*> swap_;
  bool opened_ = false;  // open() succeeded: run() has something to send on

  // The default: nothing to do between waits.
  DWORD between_waits(DWORD timeout) { return timeout; }

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }

  template <bool Paced>
  void send_loop(const std::atomic<bool>& stop) {
    if constexpr (Paced) pacer_.start();
    for (auto& flow : flows_)
      for (Request& request : flow->requests) derived().template post_send<Paced>(request);

    OVERLAPPED_ENTRY entries[completion_batch];
    while (!stop.load(std::memory_order_relaxed)) {
      if (!queued_.empty())
        post_queued<Paced>(queued_, swap_, pacer_, [this](Request& request) {
          derived().template post_send<Paced>(request);
        });
      DWORD timeout = max_wait_ms;
      if (!queued_.empty()) {
        if constexpr (Paced)
          timeout = pacer_.wait_ms(SendPacer::Clock::now(), max_wait_ms);
        else
          timeout = 0;
      }
      timeout = derived().between_waits(timeout);
      const ULONG n = port_.wait(entries, completion_batch, timeout);
      for (ULONG i = 0; i < n; ++i) derived().template on_send_completion<Paced>(entries[i]);
    }
  }
};

}  // namespace xttcp::iocp
