#include "io_backends/common/tcp_tuning.hh"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace xttcp {

namespace {

std::string read_proc_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

Status set_congestion(int fd, const std::string& name) {
  if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name.data(),
                 static_cast<socklen_t>(name.size())) == 0)
    return ok();
  const int err = errno;
  if (err != ENOENT && err != EPERM && err != EBUSY)
    return fail(fmt::format("--congestion {}: TCP_CONGESTION: {}", name, std::strerror(err)));
  return fail(
      fmt::format("--congestion {}: not allowed here; the kernel allows {} "
                  "(net.ipv4.tcp_allowed_congestion_control; "
                  "root may take any of {}: net.ipv4.tcp_available_congestion_control)",
                  name, read_proc_line("/proc/sys/net/ipv4/tcp_allowed_congestion_control"),
                  read_proc_line("/proc/sys/net/ipv4/tcp_available_congestion_control")));
}

// SO_BUSY_POLL needs CAP_NET_ADMIN above net.core.busy_read; SO_PREFER_BUSY_POLL came in 5.11.
Status set_busy_poll(int fd, uint32_t usec) {
  const int value = static_cast<int>(usec);
  if (setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &value, sizeof value) != 0)
    return fail(
        fmt::format("--busy-poll {}: SO_BUSY_POLL: {}{}", usec, std::strerror(errno),
                    errno == EPERM ? " (above net.core.busy_read it needs CAP_NET_ADMIN)" : ""));
#ifdef SO_PREFER_BUSY_POLL
  const int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &on,
             sizeof on);  // best effort: older kernels lack it
#endif
  return ok();
}

int read_int_option(int fd, int level, int name) {
  int value = -1;
  socklen_t length = sizeof value;
  if (getsockopt(fd, level, name, &value, &length) != 0) return -1;
  return value;
}

}  // namespace

Status apply_tcp_tuning(int fd, const TestSpec& spec) {
  if (!spec.io.congestion.empty())
    if (Status set = set_congestion(fd, spec.io.congestion); !set) return set;
  if (spec.io.busy_poll_us > 0)
    if (Status set = set_busy_poll(fd, spec.io.busy_poll_us); !set) return set;
  return ok();
}

Status apply_busy_poll(int fd, const TestSpec& spec) {
  return spec.io.busy_poll_us > 0 ? set_busy_poll(fd, spec.io.busy_poll_us) : ok();
}

std::string congestion_of(int fd) {
  char name[32] = {};
  socklen_t length = sizeof name - 1;
  if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &length) != 0) return {};
  return std::string(name, strnlen(name, length));
}

std::string tcp_tuning_note(int fd, const TestSpec& spec) {
  std::string note;
  if (!spec.io.congestion.empty())
    note =
        fmt::format("--congestion {}: TCP_CONGESTION is {}", spec.io.congestion, congestion_of(fd));
  if (spec.io.busy_poll_us > 0) {
    if (!note.empty()) note += "; ";
    note += fmt::format("--busy-poll {}: SO_BUSY_POLL {} us", spec.io.busy_poll_us,
                        read_int_option(fd, SOL_SOCKET, SO_BUSY_POLL));
#ifdef SO_PREFER_BUSY_POLL
    note += read_int_option(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL) == 1 ? ", SO_PREFER_BUSY_POLL on"
                                                                      : ", no SO_PREFER_BUSY_POLL";
#endif
  }
  return note;
}

void follow_receive_rate(int fd, RateMark& mark, uint64_t total_bytes, uint64_t now_ns) {
  if (!mark.sample_due(now_ns)) return;
  // The rate alone decides first: most flows of a many-connection run stay under the smallest
  // mark, and for them a sweep makes no system call at all (10,000 connections every 5 ms).
  uint32_t next = mark.update(total_bytes, now_ns, UINT64_MAX);
  if (next == 0) return;  // unchanged
  if (next > rate_mark::off) {
    // At most a quarter of the receive buffer: the kernel grows SO_RCVBUF (and clamps the
    // window to the mark) when the mark needs more, which would stall the sender behind a
    // sleeping reader.
    const int buffer = read_int_option(fd, SOL_SOCKET, SO_RCVBUF);
    const uint64_t cap = buffer > 0 ? static_cast<uint64_t>(buffer) / 4 : 0;
    const uint64_t limit = std::min<uint64_t>(rate_mark::max_mark, cap);
    next = limit < rate_mark::min_mark
               ? rate_mark::off
               : std::min<uint32_t>(next, static_cast<uint32_t>(std::bit_floor(limit)));
    if (next == mark.current()) return;
  }
  const int value = static_cast<int>(next);
  if (setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &value, sizeof value) == 0) mark.applied(next);
}

std::size_t tcp_receive_length(const TestSpec& spec) {
  const std::size_t asked = spec.workload.recv_buffer;
  if (!spec.io.skip_rx_copy || spec.workload.verify_data || spec.io.wait_all) return asked;
  return std::max<std::size_t>(asked, rate_mark::max_mark);
}

std::string receive_mark_note(uint32_t highest) {
  return fmt::format("--receive-mark: SO_RCVLOWAT followed each connection's rate, up to {} bytes",
                     highest);
}

}  // namespace xttcp
