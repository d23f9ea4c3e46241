// --allow / --max-clients / --auth-key, and the descriptors kept for the sync port, for a
// connection io_uring accepted: its accept names no peer, so the socket is asked, and only when
// someone may be turned away. Control path.
#pragma once

#include <sys/socket.h>

#include "engine/backend/data_worker.hh"

namespace xttcp {

inline bool admit_accepted(const WorkerContext& context, int fd) {
  if (context.admission == nullptr) return true;
  if (context.admission->open() && context.admission->within_data_descriptors(fd)) return true;
  SocketAddress peer;
  peer.length = sizeof peer.storage;
  if (getpeername(fd, peer.get(), &peer.length) != 0) return false;  // already gone
  return admit_data_connection(context, peer, fd);
}

}  // namespace xttcp
