#include "io_backends/common/zerocopy_errqueue.hh"

#include <linux/errqueue.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>

namespace xttcp {

bool enable_zerocopy(int fd) {
  int one = 1;
  return setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof one) == 0;
}

bool drain_zerocopy_completions(int fd, ZeroCopyStats& stats) {
  for (;;) {
    alignas(cmsghdr) char control[128];
    msghdr msg{};
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
      return errno == EAGAIN || errno == EINTR;
    for (cmsghdr* cm = CMSG_FIRSTHDR(&msg); cm != nullptr; cm = CMSG_NXTHDR(&msg, cm)) {
      const bool recverr = (cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
                           (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR);
      if (!recverr) continue;
      const auto* err = reinterpret_cast<const sock_extended_err*>(CMSG_DATA(cm));
      if (err->ee_origin != SO_EE_ORIGIN_ZEROCOPY) return false;
      // One notification acknowledges the sends numbered ee_info..ee_data.
      const uint64_t count = static_cast<uint32_t>(err->ee_data - err->ee_info) + 1u;
      stats.notifications += count;
      if (err->ee_code & SO_EE_CODE_ZEROCOPY_COPIED) stats.copied += count;
    }
  }
}

}  // namespace xttcp
