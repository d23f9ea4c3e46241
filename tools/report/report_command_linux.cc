#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/exit_codes.hh"
#include "engine/report/result_file.hh"
#include "tools/report/report_command.hh"

extern char** environ;

namespace xttcp {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A page takes seconds; each comparison runs `xttcp compare` (the generator bounds it at 60 s).
constexpr auto base_budget = std::chrono::seconds(120);
constexpr auto per_comparison = std::chrono::seconds(60);
constexpr size_t page_limit = 256u << 20;  // a runaway generator does not fill memory

fs::path self_path() {
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

// Debian's interpreter has Debian's matplotlib; another python3 first in PATH may not.
std::string python_program() {
  return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

struct Generated {
  int exit_code = -1;  // -1: killed (timeout) or not started
  std::string page;
  std::string why;  // when it could not run or was stopped
};

Generated run_generator(const std::vector<std::string>& words, Clock::duration budget) {
  Generated out;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    out.why = std::string("pipe: ") + std::strerror(errno);
    return out;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);  // stderr stays ours
  std::vector<std::string> copy = words;
  std::vector<char*> argv;
  for (std::string& word : copy) argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (rc != 0) {
    close(pipe_fds[0]);
    out.why = fmt::format("cannot start {}: {}", words[0], std::strerror(rc));
    return out;
  }
  const auto deadline = Clock::now() + budget;
  char chunk[65536];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      out.why = fmt::format("the page's generator did not finish in {} s and was stopped",
                            std::chrono::duration_cast<std::chrono::seconds>(budget).count());
      break;
    }
    pollfd p{pipe_fds[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    const ssize_t n = read(pipe_fds[0], chunk, sizeof chunk);
    if (n == 0) break;  // the generator closed its output: it is ending
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      out.why = std::string("reading the page: ") + std::strerror(errno);
      break;
    }
    out.page.append(chunk, static_cast<size_t>(n));
    if (out.page.size() > page_limit) {
      out.why = fmt::format("the page passed {} MiB; stopped", page_limit >> 20);
      break;
    }
  }
  close(pipe_fds[0]);
  if (!out.why.empty()) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (out.why.empty() && WIFEXITED(status))
    out.exit_code = WEXITSTATUS(status);
  else if (out.why.empty())
    out.why = "the page's generator was killed by a signal";
  return out;
}

}  // namespace

int run_report(const ReportRequest& request) {
  for (const std::string& file : request.files) {
    std::FILE* f = std::fopen(file.c_str(), "rb");
    if (f == nullptr) {
      std::fprintf(stderr, "xttcp report: cannot read %s: %s\n", file.c_str(),
                   std::strerror(errno));
      return exit_code::usage;
    }
    std::fclose(f);
  }
  if (Status writable = check_result_path(request.output, "-o"); !writable) {
    std::fprintf(stderr, "xttcp report: %s\n", writable.error().message.c_str());
    return exit_code::usage;
  }
  const fs::path program = self_path();
  const std::string generator = find_generator(program);
  if (program.empty() || generator.empty()) {
    std::fprintf(stderr,
                 "xttcp report: its page generator xttcp_report.py is not beside this program "
                 "(%s) nor in ../share/xttcp/ (meson install puts it there)\n",
                 program.c_str());
    return exit_code::run_failed;
  }
  std::vector<std::string> words = {python_program(), generator, "--xttcp",
                                    program.string(), "--title", request.title};
  if (request.threshold_pct)
    words.insert(words.end(), {"--threshold", fmt::format("{}", *request.threshold_pct)});
  words.push_back("--");
  words.insert(words.end(), request.files.begin(), request.files.end());
  const auto budget = base_budget + per_comparison * (request.files.size() - 1);
  const Generated made = run_generator(words, budget);
  if (!made.why.empty()) {
    std::fprintf(stderr, "xttcp report: %s; %s is untouched\n", made.why.c_str(),
                 request.output.c_str());
    return exit_code::run_failed;
  }
  if (made.exit_code != 0)  // the generator said why on stderr
    return made.exit_code == exit_code::usage ? exit_code::usage : exit_code::run_failed;
  if (Status written = write_file_atomically(request.output, made.page); !written) {
    std::fprintf(stderr, "xttcp report: %s\n", written.error().message.c_str());
    return exit_code::run_failed;
  }
  std::fprintf(stderr, "xttcp report: wrote %s (%zu bytes)\n", request.output.c_str(),
               made.page.size());
  return exit_code::success;
}

}  // namespace xttcp
