#include "engine/report/log.hh"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace xttcp {

namespace {

std::string local_time_now() {
  // fmt::localtime: localtime_r on Linux, localtime_s on Windows.
  return fmt::format("{:%H:%M:%S}", fmt::localtime(std::time(nullptr)));
}

// NTTTCP-for-Linux's is_running_tty(): a terminal that is not TERM=dumb.
bool is_interactive(FILE* stream) {
  const char* term = std::getenv("TERM");
  bool dumb = term != nullptr && std::strcmp(term, "dumb") == 0;
  return !dumb && isatty(fileno(stream)) == 1;
}

// 0, or the errno of a failed write.
int write_all(FILE* stream, std::string_view text) {
  errno = 0;
  const size_t written = std::fwrite(text.data(), 1, text.size(), stream);
  if (std::fflush(stream) != 0 || written != text.size()) return errno != 0 ? errno : EIO;
  return 0;
}

}  // namespace

Expected<std::unique_ptr<Log>> Log::open(Options options) {
  FILE* file = nullptr;
  if (options.log_file) {
    file = std::fopen(options.log_file->c_str(), "w");
    if (file == nullptr) {
      return fail(
          fmt::format("-O: cannot open log file {}: {}", *options.log_file, std::strerror(errno)));
    }
  }
  if (!options.clock) options.clock = local_time_now;
  return std::unique_ptr<Log>(new Log(std::move(options), file));
}

Log::Log(Options options, FILE* log_file)
    : options_(std::move(options)),
      log_file_(log_file),
      out_is_tty_(is_interactive(options_.out)) {}

Log::~Log() {
  std::lock_guard lock(mutex_);
  end_realtime_locked();
  if (log_file_ != nullptr) std::fclose(log_file_);
}

void Log::end_realtime_locked() {
  if (!realtime_pending_) return;
  write_all(options_.out, "\n");
  realtime_pending_ = false;
}

void Log::line_locked(FILE* stream, std::string_view prefix, std::string_view message) {
  end_realtime_locked();
  std::string line;
  if (!prefix.empty()) line = fmt::format("{} {}: ", options_.clock(), prefix);
  line.append(message);
  line.push_back('\n');
  write_all(stream, line);
  if (log_file_ != nullptr)
    if (const int error = write_all(log_file_, line); error != 0 && log_file_errno_ == 0)
      log_file_errno_ = error;
}

std::optional<std::string> Log::log_file_error() const {
  std::lock_guard lock(mutex_);
  if (log_file_errno_ == 0) return std::nullopt;
  return fmt::format("-O: cannot write log file {}: {}", options_.log_file.value_or(""),
                     std::strerror(log_file_errno_));
}

void Log::info(std::string_view message) {
  if (options_.info_when_verbose && !options_.verbose) return;
  std::lock_guard lock(mutex_);
  line_locked(options_.info_to_err ? options_.err : options_.out, "INFO", message);
}

void Log::debug(std::string_view message) {
  if (!options_.verbose) return;
  std::lock_guard lock(mutex_);
  line_locked(options_.out, "DBG ", message);
}

void Log::error(std::string_view message) {
  std::lock_guard lock(mutex_);
  line_locked(options_.err, "ERR ", message);
}

void Log::raw(std::string_view line) {
  std::lock_guard lock(mutex_);
  line_locked(options_.out, "", line);
}

void Log::raw_error(std::string_view line) {
  std::lock_guard lock(mutex_);
  line_locked(options_.err, "", line);
}

void Log::realtime(std::string_view line) {
  if (options_.quiet) return;
  std::lock_guard lock(mutex_);
  const std::string text(line);
  if (out_is_tty_) {
    write_all(options_.out, "\x1b[2K" + text + "\r");  // clear the line, overwrite it next time
    realtime_pending_ = true;
  } else {
    write_all(options_.out, text + "\n");
  }
}

void Log::end_realtime() {
  std::lock_guard lock(mutex_);
  end_realtime_locked();
}

}  // namespace xttcp
