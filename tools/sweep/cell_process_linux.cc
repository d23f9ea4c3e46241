#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "tools/sweep/cell_process.hh"

namespace xttcp {

namespace {

std::atomic<bool> interrupted{false};
std::atomic<pid_t> running_cell{-1};

// Async-signal-safe: a flag and kill(2), errno kept. The cell runs in a process group of its
// own, so a terminal's Ctrl+C reaches it only through here, once.
void on_interrupt(int) {
  const int saved = errno;
  interrupted.store(true);
  const pid_t pid = running_cell.load();
  if (pid > 0) ::kill(pid, SIGINT);
  errno = saved;
}

// The signals that stop a sweep (a closed terminal's SIGHUP too); blocked while a cell is reaped,
// so none is passed to a PID that is no longer the cell's.
sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int number : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, number);
  return set;
}

// In the child, between fork and exec (the sweep runs no other thread): its own process group,
// gone with the sweep (SIGTERM if the sweep dies, even by SIGKILL), stdin from /dev/null,
// stdout and stderr to files, default signals. Only async-signal-safe calls; exits 127 on error.
[[noreturn]] void become_cell(const CellCommand& command, char* const* argv) {
  const pid_t sweep = ::getppid();
  ::setpgid(0, 0);
  if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != sweep) ::_exit(127);
  const int in = ::open("/dev/null", O_RDONLY);
  const int out = ::open(command.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int err = ::open(command.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0 || err < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0)
    ::_exit(127);
  struct sigaction defaults {};
  defaults.sa_handler = SIG_DFL;
  for (int number : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(number, &defaults, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execv("/proc/self/exe", argv);
  ::_exit(127);
}

}  // namespace

Status can_run_cells() { return ok(); }

void watch_cell_interrupts() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  for (int number : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(number, &action, nullptr);
}

bool cell_interrupted() { return interrupted.load(); }

Expected<CellExit> run_cell(const CellCommand& command) {
  std::vector<std::string> words = {"xttcp"};
  words.insert(words.end(), command.args.begin(), command.args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const sigset_t stops = stop_signals();
  sigset_t before;
  ::sigprocmask(SIG_BLOCK, &stops, &before);  // the PID is stored before a signal can use it
  const pid_t pid = ::fork();
  if (pid == 0) become_cell(command, argv.data());
  if (pid < 0) {
    const int error = errno;
    ::sigprocmask(SIG_SETMASK, &before, nullptr);
    return fail(fmt::format("sweep: cannot start a sender: {}", std::strerror(error)));
  }
  running_cell.store(pid);
  ::sigprocmask(SIG_SETMASK, &before, nullptr);
  // A Ctrl+C that came between the check before this cell and the store above.
  if (interrupted.load()) ::kill(pid, SIGINT);

  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(command.timeout_s));
  CellExit exit;
  int status = 0;
  for (;;) {
    ::sigprocmask(SIG_BLOCK, &stops, nullptr);
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    const int error = errno;
    if (done == pid) running_cell.store(-1);
    ::sigprocmask(SIG_SETMASK, &before, nullptr);
    if (done == pid) break;
    if (done < 0 && error != EINTR) {
      // Not ours to wait for any more (cannot happen to a child we forked): stop it anyway.
      running_cell.store(-1);
      ::kill(pid, SIGKILL);
      return fail(fmt::format("sweep: cannot wait for a sender: {}", std::strerror(error)));
    }
    if (Clock::now() >= deadline) {
      running_cell.store(-1);
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      exit.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!exit.timed_out && WIFEXITED(status)) exit.code = WEXITSTATUS(status);
  return exit;
}

}  // namespace xttcp
