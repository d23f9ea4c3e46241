#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <thread>

#include "base/read_file.hh"
#include "base/unique_fd.hh"
#include "tools/paths/process_pair.hh"

extern char** environ;

namespace xttcp {

namespace {

using Clock = std::chrono::steady_clock;

// The file's text, or "" when it cannot be read (a best-effort diagnostic).
std::string read_text(const std::string& path) {
  Expected<std::string> text = read_whole_file(path);
  return text ? *text : std::string();
}

std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

// Removes what DPDK's EAL left of a finished xttcp process (its --file-prefix is xttcp-PID):
// its runtime directory outlives the process.
void remove_eal_leftovers(pid_t pid) {
  std::error_code ignored;
  std::filesystem::remove_all(fmt::format("/var/run/dpdk/xttcp-{}", pid), ignored);
}

// This program's path, for `ip netns exec` (where /proc/self/exe would be ip's).
std::string self_path() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("xttcp") : path.string();
}

// One xttcp child, its stdout and stderr in files; killed by PID if still running at the end.
class Child {
 public:
  Child(std::string name, std::string out, std::string err)
      : name_(std::move(name)), out_(std::move(out)), err_(std::move(err)) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    kill_now();
    if (started_ > 0) remove_eal_leftovers(started_);
  }

  bool start(const std::vector<std::string>& args, const std::string& netns, std::string& why) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // In a namespace: `ip netns exec NS` execs this program in place (same PID).
    std::vector<std::string> words;
    if (!netns.empty())
      words = {"ip", "netns", "exec", netns, self_path()};
    else
      words = {"xttcp"};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    const int rc =
        netns.empty()
            ? posix_spawn(&pid_, "/proc/self/exe", &actions, nullptr, argv.data(), environ)
            : posix_spawnp(&pid_, "ip", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      pid_ = -1;
      why = fmt::format("cannot start the {}: {}", name_, std::strerror(rc));
      return false;
    }
    started_ = pid_;
    return true;
  }

  bool running() {
    if (pid_ < 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      status_ = status;
      return false;
    }
    return true;
  }

  // Waits until it exits or the deadline passes (then kills it). The exit code, or -1.
  int wait_until(Clock::time_point deadline) {
    while (running()) {
      if (Clock::now() >= deadline) {
        kill_now();
        timed_out_ = true;
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
  }

  void kill_now() {
    if (pid_ < 0) return;
    ::kill(pid_, SIGKILL);
    waitpid(pid_, &status_, 0);
    pid_ = -1;
  }

  pid_t pid() const { return pid_; }

  PairFailure failure(int code) const {
    const std::string said = last_line(read_text(err_));
    std::string how = timed_out_  ? "did not finish in time and was killed"
                      : code >= 0 ? fmt::format("exited with {}", code)
                                  : "was killed by a signal";
    return {fmt::format("the {} {}{}{} (its output: {})", name_, how, said.empty() ? "" : ": ",
                        said, out_),
            code == 2};
  }

 private:
  std::string name_, out_, err_;
  pid_t pid_ = -1;
  pid_t started_ = -1;  // the PID it had, for what it leaves behind
  int status_ = 0;
  bool timed_out_ = false;
};

// A listening TCP socket on the port shows in the process's network namespace's
// /proc/PID/net/tcp as state 0A; connecting to it would disturb the receiver's sync protocol.
bool listening(pid_t pid, uint16_t port) {
  const std::string net = fmt::format("/proc/{}/net/", pid);
  std::istringstream table(read_text(net + "tcp") + read_text(net + "tcp6"));
  std::string line;
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    const auto colon = local.rfind(':');
    if (state != "0A" || colon == std::string::npos) continue;
    if (std::strtoul(local.c_str() + colon + 1, nullptr, 16) == port) return true;
  }
  return false;
}

bool bindable(int type, uint16_t port) {
  UniqueFd fd(::socket(AF_INET, type, 0));
  if (!fd.valid()) return false;
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return ::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
}

}  // namespace

Status can_run_pairs() { return ok(); }

std::optional<PairFailure> run_process_pair(const PairCommand& command) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(command.timeout_s));
  Child receiver("receiver", command.log_dir + "/receiver.out", command.log_dir + "/receiver.err");
  std::string why;
  if (!receiver.start(command.receiver_args, command.receiver_netns, why)) return PairFailure{why};
  const pid_t receiver_pid = receiver.pid();
  const auto ready_by = Clock::now() + std::chrono::seconds(20);
  while (!listening(receiver_pid, command.ready_port)) {
    if (!receiver.running()) return receiver.failure(receiver.wait_until(deadline));
    if (Clock::now() >= ready_by)
      return PairFailure{
          fmt::format("the receiver did not listen on port {} within 20 s", command.ready_port)};
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Child sender("sender", command.log_dir + "/sender.out", command.log_dir + "/sender.err");
  if (!sender.start(command.sender_args, command.sender_netns, why)) return PairFailure{why};
  const int sent = sender.wait_until(deadline);
  if (sent != 0) return sender.failure(sent);
  const int received = receiver.wait_until(deadline);
  if (received != 0) return receiver.failure(received);
  return std::nullopt;
}

Expected<uint16_t> free_port_block(uint32_t count) {
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<uint32_t> pick(20000, 60000 - count);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const uint32_t base = pick(random);
    bool free = true;
    for (uint32_t port = base - 1; free && port < base + count; ++port)
      free = bindable(SOCK_STREAM, static_cast<uint16_t>(port)) &&
             bindable(SOCK_DGRAM, static_cast<uint16_t>(port));
    if (free) return static_cast<uint16_t>(base);
  }
  return fail("compare-paths: no free block of ports found on 127.0.0.1 (give one with -p)");
}

std::string machine_load() {
  std::istringstream text(read_text("/proc/loadavg"));
  std::string one, five, fifteen;
  if (!(text >> one >> five >> fifteen)) return "";
  return fmt::format("load average {} {} {} ({} CPUs online)", one, five, fifteen,
                     sysconf(_SC_NPROCESSORS_ONLN));
}

}  // namespace xttcp
