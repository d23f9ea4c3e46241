// The console logger, in NTTTCP-for-Linux's style ("13:01:00 INFO: message").
// Control path only: every call takes a mutex, so any thread may log.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.hh"

namespace xttcp {

class Log {
 public:
  struct Options {
    bool quiet = false;    // -Q: suppress only the real-time throughput lines
    bool verbose = false;  // -V: debug() lines are printed
    // The iperf2 dialect: info() lines go to stderr, so standard output holds iperf 2's
    // report alone (scripts parse it, -y C most of all).
    bool info_to_err = false;
    // The iperf3 dialect: info() lines only with -V, as iperf3 prints nothing beyond its report.
    bool info_when_verbose = false;
    // -O: every line printed (not the real-time lines) is also written here. Like the original,
    // an existing file is replaced when the log opens, then lines are appended as they come.
    std::optional<std::string> log_file;
    std::function<std::string()> clock;  // returns "HH:MM:SS"; empty = local time now
    FILE* out = stdout;
    FILE* err = stderr;
  };

  // Fails with one line naming the file when the -O file cannot be opened.
  static Expected<std::unique_ptr<Log>> open(Options options);
  ~Log();
  Log(const Log&) = delete;
  Log& operator=(const Log&) = delete;

  void info(std::string_view message);    // "13:01:00 INFO: message" to out
  void debug(std::string_view message);   // "13:01:00 DBG : message", only when verbose
  void error(std::string_view message);   // "13:01:00 ERR : message" to err
  void raw(std::string_view line);        // a line as is (banner, separators, the -V flags block)
  void raw_error(std::string_view line);  // a line as is, to err (a dialect's own error lines)

  // A live line (engine/report/live_line.hh: "Real-time throughput: 13.31Gbps ..."). On a
  // terminal (and TERM is not "dumb") the line is cleared and ended by '\r' so the next one
  // overwrites it; otherwise it ends with '\n'. Suppressed by quiet; never written to the log
  // file.
  void realtime(std::string_view line);
  // Whether realtime() prints (not quiet): a caller skips the work of a line nobody sees.
  bool shows_realtime() const { return !options_.quiet; }
  // Ends a pending '\r' real-time line with '\n' (keeping the last value visible); no-op
  // otherwise. Every other call does this itself, so callers rarely need it.
  void end_realtime();

  bool verbose() const { return options_.verbose; }
  // The first failed write to the -O file ("-O: cannot write log file x: No space left on
  // device"), or nothing: a lost log makes the run fail.
  std::optional<std::string> log_file_error() const;

 private:
  Log(Options options, FILE* log_file);
  void line_locked(FILE* stream, std::string_view prefix, std::string_view message);
  void end_realtime_locked();

  Options options_;
  FILE* log_file_ = nullptr;  // owned
  bool out_is_tty_ = false;
  bool realtime_pending_ = false;
  int log_file_errno_ = 0;  // the first failed write to log_file_
  mutable std::mutex mutex_;
};

}  // namespace xttcp
