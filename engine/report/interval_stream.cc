#include "engine/report/interval_stream.hh"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "engine/stop_reason.hh"

#ifndef _WIN32
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#endif

namespace xttcp {

namespace {

std::string iso_utc(std::chrono::system_clock::time_point t) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", fmt::gmtime(std::chrono::system_clock::to_time_t(t)));
}

// A finite number as JSON (a window of 0 s has no rate: 0).
std::string number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "0"; }

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", c);
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

Status check_stream_path(const std::string& path) {
  if (path == "-") return ok();
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return fail("--json-stream: cannot write " + path + ": it is a directory");
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    return fail("--json-stream: cannot write " + path +
                ": No such file or directory (its directory does not exist)");
  return ok();
}

Expected<std::unique_ptr<IntervalStream>> IntervalStream::open(const std::string& path) {
  if (path == "-") return std::unique_ptr<IntervalStream>(new IntervalStream(stdout, false));
  if (Status usable = check_stream_path(path); !usable) return usable.error();
#ifndef _WIN32
  // Non-blocking, so a FIFO without its reader fails at once (ENXIO) instead of waiting for ever;
  // then blocking again (poll decides before each line). A file is truncated.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int err = errno;
    return fail("--json-stream: cannot write " + path + ": " + std::strerror(err) +
                (err == ENXIO ? " (a FIFO needs its reader first)" : ""));
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::FILE* file = fdopen(fd, "w");
  if (file == nullptr) ::close(fd);
#else
  std::FILE* file = std::fopen(path.c_str(), "wb");  // "\n", not "\r\n": NDJSON on every OS
#endif
  if (file == nullptr)
    return fail("--json-stream: cannot write " + path + ": " + std::strerror(errno));
  return std::unique_ptr<IntervalStream>(new IntervalStream(file, true));
}

IntervalStream::~IntervalStream() {
  if (owned_) std::fclose(file_);
}

void IntervalStream::write_line(const std::string& line) {
#ifndef _WIN32
  // A pipe or FIFO whose reader fell behind: drop the line rather than stall the test's clock
  // (a regular file is always writable). A line is far below PIPE_BUF, so a write that poll
  // allows does not block.
  pollfd p{fileno(file_), POLLOUT, 0};
  if (poll(&p, 1, 0) != 1 || (p.revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
    ++dropped_;
    return;
  }
#endif
  if (std::fputs(line.c_str(), file_) < 0 || std::fflush(file_) != 0) ++dropped_;
}

void IntervalStream::interval(Role role, std::chrono::system_clock::time_point window_start,
                              const IntervalSample& s, bool udp) {
  const double bps = s.seconds > 0 ? static_cast<double>(s.bytes) * 8 / s.seconds : 0;
  std::string line = fmt::format(
      "{{\"type\":\"interval\",\"role\":{},\"window_start\":{},\"start_s\":{},\"seconds\":{},"
      "\"bytes\":{},\"throughput_bps\":{}",
      json_string(to_string(role)), json_string(iso_utc(window_start)), number(s.start_s),
      number(s.seconds), s.bytes, number(bps));
  if (udp)
    line +=
        fmt::format(",\"datagrams\":{},\"lost\":{},\"reordered\":{},\"jitter_ms\":{}", s.datagrams,
                    s.lost, s.reordered, number(static_cast<double>(s.jitter_ns) / 1e6));
  write_line(line + "}\n");
}

void IntervalStream::end(const Result& r) {
  const double bps = r.duration_s > 0 ? static_cast<double>(r.total_bytes) * 8 / r.duration_s : 0;
  write_line(fmt::format(
      "{{\"type\":\"end\",\"role\":{},\"window_start\":{},\"duration_s\":{},\"total_bytes\":{},"
      "\"throughput_bps\":{},\"cut_short\":{},\"cause\":{},\"dropped_lines\":{}}}\n",
      json_string(to_string(r.role)), json_string(r.start_time), number(r.duration_s),
      r.total_bytes, number(bps), r.cut_short ? "true" : "false",
      json_string(to_string(r.stop.cause)), dropped_));
}

}  // namespace xttcp
