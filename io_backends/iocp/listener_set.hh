// The TCP listeners of an iocp receiving worker (the stream receiver and the --rr responder): one
// listening socket per flow of the worker's plan, each with two AcceptEx always pending (any
// number of connections, a burst accepted back to back), on the worker's completion port under
// ListenerSet::key. A listener short of sockets or buffers rests and tries again, as the Linux
// listeners do (io_backends/common/accept_failure.hh); one that fails otherwise stops accepting.
// Every accepted socket has SO_UPDATE_ACCEPT_CONTEXT set and goes to the worker's callback
// (once per connection: the control path, so a std::function).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "io_backends/common/accept_failure.hh"
#include "io_backends/iocp/iocp_worker.hh"
#include "io_backends/iocp/overlapped_socket.hh"
#include "io_backends/iocp/winsock_extensions.hh"

namespace xttcp::iocp {

class ListenerSet {
 public:
  // The completion key of every listener's AcceptEx; the worker's own keys differ from it.
  static constexpr ULONG_PTR key = 1;

  struct Listener;
  // A connection accepted on `listener` (its accept context set): the worker takes it.
  using Accepted = std::function<void(OverlappedSocket socket, const Listener& listener)>;

  // `worker` owns the port, the count of pending operations, the stopping flag and the report
  // this set uses; it outlives the set.
  ListenerSet(IocpWorker& worker, Accepted accepted)
      : worker_(worker), accepted_(std::move(accepted)) {}
  ListenerSet(const ListenerSet&) = delete;
  ListenerSet& operator=(const ListenerSet&) = delete;

  // Opens, binds (flow_address) and listens on one socket per flow of the worker's plan, with
  // `options` (accepted sockets inherit the buffer sizes), and starts accepting: a sender may
  // connect as soon as this returns. Error: "iocp: port <port>: <reason>".
  Status open(const SocketOptions& options);

  // A completion whose key is `key`. Restarts the accept (unless the worker is stopping).
  void on_completion(const OVERLAPPED_ENTRY& entry);
  // Between two waits: listeners whose rest is over accept again, and the accepts that went past
  // the inline budget start.
  void resume();
  bool has_queued() const { return !queued_.empty(); }
  // `wait`, or less to wake when a resting listener is due.
  DWORD wait_ms(DWORD wait) const;
  // Cancels every accept and closes the listeners; their completions still come to the port.
  void close();
  // The drain left accepts with the kernel: their memory must outlive this set.
  void leak();

  struct AcceptRequest;
  struct Listener {
    OverlappedSocket socket;
    uint32_t slot = 0;
    uint16_t port = 0;
    bool skips_port = false;  // synchronous successes complete inline
    bool accepting = true;    // false after a lasting accept failure (not a shortage)
    // Out of sockets or buffers (WSAEMFILE, WSAENOBUFS): no AcceptEx is started until
    // rest.due(); the requests it could not start wait in `parked`.
    ListenerRest rest;
    std::vector<AcceptRequest*> parked;
  };
  // Room AcceptEx needs for each address: the largest sockaddr plus 16 bytes.
  static constexpr DWORD accept_address_room = sizeof(sockaddr_storage) + 16;
  struct AcceptRequest {
    OVERLAPPED overlapped{};  // first: a completion hands back its address
    uint32_t listener = 0;
    OverlappedSocket accepted;
    unsigned char addresses[2 * accept_address_room] = {};
  };

 private:
  void post_accept(AcceptRequest& request);
  // `request` could not start for want of sockets or buffers (`code`): its listener rests.
  void rest_listener(AcceptRequest& request, int code);
  // The accept of `request` finished (error 0: its socket is connected). Does not repost.
  void on_accept_completion(AcceptRequest& request, int error);

  IocpWorker& worker_;
  Accepted accepted_;
  AcceptExFunction accept_ex_;
  std::vector<Listener> listeners_;
  std::vector<std::unique_ptr<AcceptRequest>> accepts_;
  std::vector<AcceptRequest*> queued_;  // over the inline budget: start next turn
};

}  // namespace xttcp::iocp
