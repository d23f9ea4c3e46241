#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "base/exit_codes.hh"
#include "engine/report/result_file.hh"
#include "tools/report/report_command.hh"
#include "tools/report/report_input.hh"

extern char** environ;

namespace xttcp {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A page takes seconds; a file's section or comparison more, hence the budget per extra file.
// The generator's address space is bounded too (matplotlib, numpy and the results it holds:
// about 85 MB for a small page), and so is the page it writes.
constexpr auto base_budget = std::chrono::seconds(120);
constexpr auto per_extra_file = std::chrono::seconds(60);
constexpr auto per_sweep_cell = std::chrono::seconds(1);  // a sweep cell's own table and plot
constexpr rlim_t generator_memory = rlim_t{2} << 30;      // 2 GiB
constexpr size_t page_limit = 256u << 20;  // a runaway generator does not fill memory

fs::path own_program_path() {
  std::error_code ec;
  fs::path path = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : path;
}

// The generator: beside the program in a build tree (meson copies it there), else where
// `meson install` puts it (PREFIX/bin/xttcp -> PREFIX/share/xttcp/).
std::string find_generator(const fs::path& program) {
  const fs::path dir = program.parent_path();
  for (const fs::path& candidate : {dir / "tools" / "report" / "xttcp_report.py",
                                    dir.parent_path() / "share" / "xttcp" / "xttcp_report.py"}) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return {};
}

// Debian's interpreter has Debian's matplotlib; another python3 first in PATH may not. A full
// path (the child is started with execve), or empty when there is none: the Debian package only
// recommends python3, so a minimal install has no interpreter.
std::string python_program() {
  if (access("/usr/bin/python3", X_OK) == 0) return "/usr/bin/python3";
  const char* path = std::getenv("PATH");
  for (std::string_view dirs = path != nullptr ? path : ""; !dirs.empty();) {
    const size_t colon = dirs.find(':');
    const std::string candidate = std::string(dirs.substr(0, colon)) + "/python3";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
  }
  return {};
}

struct Generated {
  int exit_code = -1;  // -1: killed (time, page size) or not started
  std::string page;
  std::string why;  // when it could not run or was stopped
};

// The generator as a child: its stdin the input (written as it reads), its stdout the page,
// stderr ours; at most `generator_memory` of address space, no BLAS threads (a page needs none,
// and each would reserve memory on a many-core host).
pid_t start_generator(const std::vector<std::string>& words, int input_fd, int page_fd) {
  std::vector<std::string> copy = words;
  std::vector<char*> argv;
  for (std::string& word : copy) argv.push_back(word.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_words = {"OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1"};
  for (char** e = environ; *e != nullptr; ++e)
    if (!std::string_view(*e).starts_with("OPENBLAS_NUM_THREADS=") &&
        !std::string_view(*e).starts_with("OMP_NUM_THREADS="))
      env_words.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& word : env_words) envp.push_back(word.data());
  envp.push_back(nullptr);
  const std::string cannot = fmt::format("xttcp: report: cannot start {}\n", words[0]);
  const pid_t pid = fork();
  if (pid != 0) return pid;
  // The child: only async-signal-safe calls until exec.
  const rlimit memory{generator_memory, generator_memory};
  if (setrlimit(RLIMIT_AS, &memory) == 0 && dup2(input_fd, 0) >= 0 && dup2(page_fd, 1) >= 0)
    execve(argv[0], argv.data(), envp.data());
  [[maybe_unused]] const ssize_t said = ::write(2, cannot.data(), cannot.size());
  _exit(127);
}

// Waits for the child until `deadline`; false if it is still running then.
bool reaped(pid_t pid, Clock::time_point deadline, int& status) {
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Runs the generator on `input`, within `budget` of wall time: once it is spent, the child is
// killed (by its pid) and nothing waits on it any longer. Both pipes are non-blocking and polled
// together, so neither a child that does not read nor one that does not write can hold us.
Generated run_generator(const std::vector<std::string>& words, const std::string& input,
                        Clock::duration budget) {
  Generated out;
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0) {
    out.why = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    out.why = std::string("pipe: ") + std::strerror(errno);
    close(to_child[0]);
    close(to_child[1]);
    return out;
  }
  std::signal(SIGPIPE, SIG_IGN);  // a generator that dies before reading all: EPIPE, no signal
  const pid_t pid = start_generator(words, to_child[0], from_child[1]);
  const int start_error = errno;
  close(to_child[0]);
  close(from_child[1]);
  if (pid < 0) {
    close(to_child[1]);
    close(from_child[0]);
    out.why = fmt::format("cannot start {}: {}", words[0], std::strerror(start_error));
    return out;
  }
  int writing = to_child[1];
  const int reading = from_child[0];
  fcntl(writing, F_SETFL, O_NONBLOCK);
  fcntl(reading, F_SETFL, O_NONBLOCK);
  size_t written = 0;
  if (input.empty()) {
    close(writing);
    writing = -1;
  }
  const auto deadline = Clock::now() + budget;
  const std::string late =
      fmt::format("the page's generator did not finish in {} s and was stopped",
                  std::chrono::duration_cast<std::chrono::seconds>(budget).count());
  std::array<char, 65536> chunk{};
  for (bool page_done = false; !page_done;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      out.why = late;
      break;
    }
    std::array<pollfd, 2> fds{pollfd{reading, POLLIN, 0}, pollfd{writing, POLLOUT, 0}};
    const nfds_t count = writing >= 0 ? 2 : 1;
    const int ready = poll(fds.data(), count, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) {
      out.why = std::string("poll: ") + std::strerror(errno);
      break;
    }
    if (ready <= 0) continue;  // timed out (the deadline check stops it) or interrupted
    if (writing >= 0 && fds[1].revents != 0) {
      const ssize_t n = ::write(writing, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      // Done, or the child stopped reading (EPIPE): its exit status says why.
      if (written == input.size() || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        close(writing);
        writing = -1;
      }
    }
    if (fds[0].revents == 0) continue;
    for (;;) {  // drain what is there, never blocking
      const ssize_t n = ::read(reading, chunk.data(), chunk.size());
      if (n > 0) {
        out.page.append(chunk.data(), static_cast<size_t>(n));
        if (out.page.size() > page_limit) {
          out.why = fmt::format("the page passed {} MiB; stopped", page_limit >> 20);
          page_done = true;
          break;
        }
        continue;
      }
      if (n == 0) page_done = true;  // the generator closed its output: it is ending
      if (n < 0 && errno != EAGAIN && errno != EINTR) {
        out.why = std::string("reading the page: ") + std::strerror(errno);
        page_done = true;
      }
      break;
    }
  }
  if (writing >= 0) close(writing);
  close(reading);
  // It closed its output, so it is ending: wait for that within what is left of the budget.
  int status = 0;
  if (out.why.empty() && !reaped(pid, deadline, status)) out.why = late;
  if (!out.why.empty()) {
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return out;
  }
  if (WIFEXITED(status))
    out.exit_code = WEXITSTATUS(status);
  else
    out.why = fmt::format("the page's generator was killed by signal {}", WTERMSIG(status));
  return out;
}

}  // namespace

int run_report(const ReportRequest& request) {
  // Every file is read and checked here, as compare reads it, before anything else runs.
  size_t cells_drawn = 0;
  Expected<std::string> input = report_input(request, &cells_drawn);
  if (!input) {
    std::fprintf(stderr, "xttcp: report: %s\n", input.error().message.c_str());
    return exit_code::usage;
  }
  if (Status writable = check_result_path(request.output, "-o"); !writable) {
    std::fprintf(stderr, "xttcp: report: %s\n", writable.error().message.c_str());
    return exit_code::usage;
  }
  const fs::path program = own_program_path();
  const std::string generator = find_generator(program);
  if (program.empty() || generator.empty()) {
    std::fprintf(stderr,
                 "xttcp: report: its page generator xttcp_report.py is not beside this program "
                 "(%s) nor in ../share/xttcp/ (meson install puts it there)\n",
                 program.c_str());
    return exit_code::run_failed;
  }
  const std::string python = python_program();
  if (python.empty()) {
    std::fprintf(stderr,
                 "xttcp: report: needs python3 with matplotlib to draw the page, and there is no "
                 "python3 in /usr/bin nor PATH (Debian: apt install python3-matplotlib)\n");
    return exit_code::run_failed;
  }
  const std::vector<std::string> words = {python, generator};
  const auto extra_files = static_cast<long>(request.files.size() - 1);
  const std::chrono::seconds budget = request.time_limit_s
                                          ? std::chrono::seconds(*request.time_limit_s)
                                          : base_budget + per_extra_file * extra_files +
                                                per_sweep_cell * static_cast<long>(cells_drawn);
  const Generated made = run_generator(words, *input, budget);
  if (!made.why.empty()) {
    std::fprintf(stderr, "xttcp: report: %s; %s is untouched\n", made.why.c_str(),
                 request.output.c_str());
    return exit_code::run_failed;
  }
  if (made.exit_code != 0)  // the generator said why on stderr
    return made.exit_code == exit_code::usage ? exit_code::usage : exit_code::run_failed;
  if (Status written = write_file_atomically(request.output, made.page); !written) {
    std::fprintf(stderr, "xttcp: report: %s\n", written.error().message.c_str());
    return exit_code::run_failed;
  }
  std::fprintf(stderr, "xttcp: report: wrote %s (%zu bytes)\n", request.output.c_str(),
               made.page.size());
  return exit_code::success;
}

}  // namespace xttcp
