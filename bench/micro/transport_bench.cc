// The kernel-socket backends' data paths on loopback TCP (127.0.0.1), through the real
// DataWorker as the engine drives it (open and run on one thread, counters read while it runs).
//
//   BM_SendPath/<backend>/write:N  the backend's sender writes N-byte buffers on one connection;
//                                  a plain blocking recv() thread (128 KiB reads) drains it.
//   BM_RecvPath/<backend>/read:N   the backend's receiver reads N-byte buffers from one
//                                  connection; a plain blocking send() thread (128 KiB writes)
//                                  feeds it.
//
// The plain peer is the same for every backend, so the difference between rows is the backend's
// submission (or completion) path. bytes_per_second is counted by the backend's FlowCounter over
// a window opened after the connection settled. Backends are looked up at run time: a backend this
// binary or kernel lacks is reported as skipped with its reason (`xttcp backends`).
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "base/unique_fd.hh"
#include "engine/net/address.hh"
#include "engine/net/socket_setup.hh"
#include "io_backends/registry.hh"

namespace xttcp {
namespace {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

constexpr auto settle = 50ms;   // connection and socket buffers reach steady state
constexpr auto window = 300ms;  // one iteration's measured window
constexpr size_t peer_io_size = 128 * 1024;

// Every blocking call of the plain peers gives up after this, so no iteration can hang.
void bound_blocking_calls(int fd) {
  timeval timeout{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
}

uint16_t port_of(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return ntohs(address.sin_port);
}

// Accepts one connection (waits <= 5 s) and reads until EOF, an error, or `stop` with no data.
void drain(int listener, const std::atomic<bool>& stop) {
  pollfd ready{listener, POLLIN, 0};
  if (poll(&ready, 1, 5000) != 1) return;
  UniqueFd fd(accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
  if (!fd.valid()) return;
  bound_blocking_calls(fd.get());
  std::vector<char> buffer(peer_io_size);
  for (;;) {
    const ssize_t n = recv(fd.get(), buffer.data(), buffer.size(), 0);
    if (n == 0 || (n < 0 && errno != EINTR && (errno != EAGAIN || stop.load()))) return;
  }
}

// Connects to 127.0.0.1:port and writes until `stop` or an error.
void feed(uint16_t port, const std::atomic<bool>& stop) {
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bound_blocking_calls(fd.get());
  if (connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return;
  std::vector<char> buffer(peer_io_size, 'B');
  while (!stop.load(std::memory_order_relaxed)) {
    const ssize_t n = send(fd.get(), buffer.data(), buffer.size(), MSG_NOSIGNAL);
    if (n < 0 && errno != EINTR && errno != EAGAIN) return;
  }
}

// A port that was free on 127.0.0.1 a moment ago (the receiver binds it itself).
uint16_t free_port() {
  auto any = resolve("127.0.0.1", 0, false);
  if (!any) return 0;
  auto fd = listen_tcp(*any, 1);
  return fd ? port_of(fd->get()) : 0;
}

// The worker's thread: open, report the outcome, run until `stop`, finish. The worker object is
// destroyed (its sockets closed) by the caller after the join.
struct WorkerThread {
  std::thread thread;
  std::promise<Status> opened;

  void start(DataWorker& worker, const std::atomic<bool>& stop) {
    thread = std::thread([this, &worker, &stop] {
      Status status = worker.open();
      const bool good = static_cast<bool>(status);
      opened.set_value(std::move(status));
      if (good) worker.run(stop);
      worker.finish();
    });
  }
};

// One measured window on `counter` while the worker runs; returns the bytes counted.
uint64_t measure(benchmark::State& state, const FlowCounter& counter) {
  std::this_thread::sleep_for(settle);
  const uint64_t before = read(counter).bytes;
  const auto begin = SteadyClock::now();
  std::this_thread::sleep_for(window);
  const uint64_t after = read(counter).bytes;
  state.SetIterationTime(std::chrono::duration<double>(SteadyClock::now() - begin).count());
  return after - before;
}

void send_path(benchmark::State& state, Backend* backend) {
  TestSpec spec;
  spec.role = Role::sender;
  spec.backend = std::string(backend->name());
  spec.layout.address = "127.0.0.1";
  spec.layout.ports = spec.layout.threads_per_port = spec.layout.conns_per_thread = 1;
  spec.workload.send_buffer = static_cast<uint32_t>(state.range(0));
  uint64_t counted = 0;
  for (auto _ : state) {
    auto listen_address = resolve("127.0.0.1", 0, false);
    auto listener = listen_tcp(*listen_address, 1);
    if (!listener) {
      state.SkipWithError(listener.error().message.c_str());
      break;
    }
    WorkerPlan plan;
    plan.flows.push_back(FlowPlan{0, 0, port_of(listener->get()), 0});
    FlowCounter counter;
    WorkerContext context;
    context.spec = &spec;
    context.plan = &plan;
    context.local = *resolve("", 0, false);
    context.remote = *resolve("127.0.0.1", 0, false);
    context.counters = &counter;
    auto worker = backend->make_worker(context);
    if (!worker) {
      state.SkipWithError(worker.error().message.c_str());
      break;
    }
    std::atomic<bool> stop{false};
    std::thread reader(drain, listener->get(), std::cref(stop));
    WorkerThread sender;
    sender.start(**worker, stop);
    Status opened = sender.opened.get_future().get();
    if (opened) counted += measure(state, counter);
    stop = true;
    sender.thread.join();
    worker->reset();  // closes the connection: the reader sees EOF
    reader.join();
    if (!opened) {
      state.SkipWithError(opened.error().message.c_str());
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(counted));
}

void recv_path(benchmark::State& state, Backend* backend) {
  TestSpec spec;
  spec.role = Role::receiver;
  spec.backend = std::string(backend->name());
  spec.layout.address = "127.0.0.1";
  spec.layout.ports = 1;
  spec.workload.recv_buffer = static_cast<uint32_t>(state.range(0));
  uint64_t counted = 0;
  for (auto _ : state) {
    WorkerPlan plan;
    plan.flows.push_back(FlowPlan{0, 0, free_port(), 0});
    FlowCounter counter;
    WorkerContext context;
    context.spec = &spec;
    context.plan = &plan;
    context.local = *resolve("127.0.0.1", 0, false);
    context.counters = &counter;
    auto worker = backend->make_worker(context);
    if (!worker) {
      state.SkipWithError(worker.error().message.c_str());
      break;
    }
    std::atomic<bool> stop_receiver{false}, stop_writer{false};
    WorkerThread receiver;
    receiver.start(**worker, stop_receiver);
    Status opened = receiver.opened.get_future().get();
    if (opened) {
      std::thread writer(feed, plan.flows[0].port, std::cref(stop_writer));
      counted += measure(state, counter);
      stop_writer = true;
      writer.join();
    }
    stop_receiver = true;
    receiver.thread.join();
    if (!opened) {
      state.SkipWithError(opened.error().message.c_str());
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(counted));
}

void register_backend(const std::string& name) {
  struct Path {
    const char* title;
    void (*body)(benchmark::State&, Backend*);
    const char* size_name;
  };
  auto found = find_backend(name);
  for (const Path& path :
       {Path{"BM_SendPath/", send_path, "write"}, Path{"BM_RecvPath/", recv_path, "read"}}) {
    const std::string title = path.title + name;
    if (!found) {
      const std::string reason = found.error().message;
      benchmark::RegisterBenchmark(title.c_str(), [reason](benchmark::State& state) {
        for (auto _ : state) state.SkipWithError(reason.c_str());
      })->Iterations(1);
      continue;
    }
    benchmark::RegisterBenchmark(title.c_str(), path.body, *found)
        ->ArgName(path.size_name)
        ->Arg(4096)
        ->Arg(65536)
        ->UseManualTime()
        ->Iterations(3)
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace
}  // namespace xttcp

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  for (const char* name : {"epoll", "io_uring"}) xttcp::register_backend(name);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
