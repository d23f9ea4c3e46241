// Result fixtures for the Windows renderers. The sample_* ones reproduce the NTttcp for Windows
// 5.40 runs in reference/samples (under Wine, `-s|-r -m 2,*,127.0.0.1 -t 5`): counts and the
// exact windows behind their printed figures were solved for, so our text can be compared with
// the original's byte for byte. The Wine runs' per-thread times are 0 (5.40's issue #24) and
// their DPC and interrupt counts are what Wine reported.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/result.hh"
#include "tools/cli/command.hh"

namespace xttcp::test {

// The spec as the Windows grammar builds it from `line` (8 CPUs).
inline TestSpec windows_spec(const std::string& line) {
  std::vector<std::string> args;
  std::string word;
  for (char c : line + " ") {
    if (c != ' ') {
      word += c;
    } else if (!word.empty()) {
      args.push_back(word);
      word.clear();
    }
  }
  auto command = parse_windows_dialect(args, 8);
  EXPECT_TRUE(command.has_value()) << line << ": " << command.error().message;
  return command ? command->spec : TestSpec{};
}

inline ThreadResult thread_row(uint32_t index, double seconds, uint64_t bytes,
                               std::optional<uint64_t> operations) {
  ThreadResult t;
  t.index = index;
  t.seconds = seconds;
  t.bytes = bytes;
  t.operations = operations;
  return t;
}

inline Result windows_base(const std::string& line, double seconds) {
  Result r;
  r.spec = windows_spec(line);
  r.role = r.spec.role;
  r.tool_version = "0.1.0";
  r.backend = "epoll";
  r.host.hostname = "VM";
  r.host.cpu_cores = 2;
  r.host.cpu_mhz = 2096.022;
  r.duration_s = seconds;
  return r;
}

// CPU figures: busy = 100 - idle; cycles/byte as the engine computed it.
inline void set_cpu(Result& r, double busy_percent, double cycles_per_byte) {
  r.cpu.user = busy_percent / 2;
  r.cpu.system = busy_percent / 2;
  r.cpu.idle = 100.0 - busy_percent;
  r.cpu.cycles_per_byte = cycles_per_byte;
}

// windows-sender.xml: -s -m 2,*,127.0.0.1 -t 5 -xml F
inline Result sample_windows_sender_xml() {
  Result r = windows_base("-s -m 2,*,127.0.0.1 -t 5 -xml F", 5.01210379999915);
  r.total_bytes = 1307508736;
  r.total_operations = 19951;
  r.threads = {thread_row(0, 0, 669908992, 10222), thread_row(1, 0, 637599744, 9729)};
  r.transport = TransportCounters{31730, 31730, 0};
  r.interrupts = Interrupts{"", 0};
  r.dpcs = 1908479841;
  set_cpu(r, 79.907, 12.840);
  return r;
}

// windows-receiver.xml: -r -m 2,*,127.0.0.1 -t 5 -xml F
inline Result sample_windows_receiver_xml() {
  Result r = windows_base("-r -m 2,*,127.0.0.1 -t 5 -xml F", 5.016303300006047);
  r.total_bytes = 1302133298;
  r.total_operations = 10180 + 10221;
  r.threads = {thread_row(0, 0, 667156480, 10180), thread_row(1, 0, 634976818, 10221)};
  r.transport = TransportCounters{31721, 31721, 0};
  r.interrupts = Interrupts{"", 0};
  r.dpcs = 1468474573;
  set_cpu(r, 80.039, 12.926);
  return r;
}

// windows-sender-console.txt: -s -m 2,*,127.0.0.1 -t 5
inline Result sample_windows_sender_console() {
  Result r = windows_base("-s -m 2,*,127.0.0.1 -t 5", 5.013624927182133);
  r.total_bytes = 1323040768;
  r.total_operations = 20188;
  r.threads = {thread_row(0, 0, 661520384, 10094), thread_row(1, 0, 661520384, 10094)};
  r.transport = TransportCounters{33114, 33117, 0};
  r.tcp.retrans_segs = 3;
  r.interrupts = Interrupts{"", 0};
  r.dpcs = 1583724957;
  set_cpu(r, 80.281, 12.753);
  return r;
}

// windows-receiver-console.txt: -r -m 2,*,127.0.0.1 -t 5
inline Result sample_windows_receiver_console() {
  Result r = windows_base("-r -m 2,*,127.0.0.1 -t 5", 5.019372914873692);
  r.total_bytes = 1317779592;
  r.total_operations = 10132 + 10205;
  r.threads = {thread_row(0, 0, 655263978, 10132), thread_row(1, 0, 662515614, 10205)};
  r.transport = TransportCounters{33123, 33126, 0};
  r.tcp.retrans_segs = 3;
  r.interrupts = Interrupts{"", 0};
  r.dpcs = 1179262322;
  set_cpu(r, 80.189, 12.804);
  return r;
}

// A Linux host's view: real per-thread times, no DPCs, no per-thread completions, no transport
// counters, no interrupt counts: the figures that need them are absent ("NA" on the console,
// 0 in the XML file).
inline Result linux_windows_receiver() {
  Result r = windows_base("-r -m 3,*,10.0.0.1 -t 10 -wu 2 -cd 1 -ns -p 6001", 10.000512);
  r.host.hostname = "rx<&>";
  r.total_bytes = 29360128000;
  r.total_operations = 448000;
  r.threads = {thread_row(0, 10.000101, 10485760000, std::nullopt),
               thread_row(1, 10.000202, 9437184000, std::nullopt),
               thread_row(2, 9.999903, 9437184000, std::nullopt)};
  set_cpu(r, 37.5, 1.87);
  return r;
}

}  // namespace xttcp::test
