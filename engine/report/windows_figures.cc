#include "engine/report/windows_figures.hh"

#include <algorithm>
#include <limits>

namespace xttcp {

namespace {

constexpr double kilobyte = 1024.0;
constexpr double megabyte = 1024.0 * 1024.0;

// The original's DivAndHandleZero: 0 when the divisor is 0.
double divide(double numerator, double denominator) {
  return denominator == 0 ? 0.0 : numerator / denominator;
}

double megabits(double bytes) { return bytes * 8.0 / 1e6; }

// /proc/stat gave ticks for the window (all-zero shares mean it was never read).
bool cpu_measured(const CpuSplit& cpu) {
  return cpu.user + cpu.system + cpu.idle + cpu.iowait + cpu.softirq > 0;
}

}  // namespace

uint64_t windows_thread_count(const TestSpec& spec) {
  if (!spec.layout.mappings.empty()) return spec.layout.mapped_threads();
  return spec.is_sender() ? spec.sender_threads() : spec.layout.ports;
}

WindowsFigures windows_figures(const Result& r) {
  const TestSpec& spec = r.spec;
  WindowsFigures f;
  f.sender = r.role == Role::sender;
  f.hide_per_thread = spec.output.hide_per_thread;
  f.latency_measurement = spec.io.time_each_call;
  f.computername = r.host.hostname;
  f.seconds = r.duration_s;

  bool every_thread_counted = !r.threads.empty();
  double sum_of_thread_averages = 0;
  for (const ThreadResult& t : r.threads) {
    WindowsThreadFigures tf;
    const double bytes = static_cast<double>(t.bytes);
    tf.index = t.index;
    tf.seconds = t.seconds;
    tf.console_kilobytes_per_s = divide(bytes, t.seconds) / kilobyte;
    tf.bytes_per_s = divide(bytes, r.duration_s);
    tf.kilobytes_per_s = tf.bytes_per_s / kilobyte;
    tf.megabytes_per_s = tf.bytes_per_s / megabyte;
    tf.megabits_per_s = megabits(tf.bytes_per_s);
    if (t.operations) {
      tf.avg_bytes_per_completion = divide(bytes, static_cast<double>(*t.operations));
      sum_of_thread_averages += *tf.avg_bytes_per_completion;
    } else {
      every_thread_counted = false;
    }
    tf.latency = t.latency;
    f.threads.push_back(tf);
  }

  const double total_bytes = static_cast<double>(r.total_bytes);
  f.total_megabytes = total_bytes / megabyte;
  f.bytes_per_s = divide(total_bytes, r.duration_s);
  f.megabytes_per_s = f.bytes_per_s / megabyte;
  f.megabits_per_s = megabits(f.bytes_per_s);
  // Result::total_operations is always counted by the engine; without per-thread counts the
  // threads' mean is unknown.
  if (r.total_operations > 0 || r.total_bytes == 0)
    f.avg_bytes_per_completion = divide(total_bytes, static_cast<double>(r.total_operations));
  if (every_thread_counted)
    f.threads_avg_bytes_per_completion =
        divide(sum_of_thread_averages, static_cast<double>(r.threads.size()));

  f.buffer_length = f.sender ? spec.workload.send_buffer : spec.workload.recv_buffer;
  f.total_buffers = divide(total_bytes, f.buffer_length);
  f.buffers_per_s = divide(f.total_buffers, r.duration_s);
  if (f.latency_measurement) f.latency = r.latency;

  if (r.transport) {
    f.packets_sent = r.transport->packets_sent;
    f.packets_received = r.transport->packets_received;
    f.errors = r.transport->errors;
    f.avg_frame_size =
        divide(total_bytes, static_cast<double>(f.sender ? *f.packets_sent : *f.packets_received));
  }
  if (r.dpcs) {
    f.dpcs_per_s = divide(static_cast<double>(*r.dpcs), r.duration_s);
    if (f.packets_received)
      f.packets_per_dpc =
          divide(static_cast<double>(*f.packets_received), static_cast<double>(*r.dpcs));
  }
  if (r.interrupts) {
    const double interrupts = static_cast<double>(r.interrupts->total);
    f.interrupts_per_s = divide(interrupts, r.duration_s);
    if (f.packets_received)
      f.packets_per_interrupt = divide(static_cast<double>(*f.packets_received), interrupts);
  }
  f.retransmits = spec.workload.protocol == Protocol::tcp ? r.tcp.retrans_segs : 0;

  // Windows: (kernel + user - idle) / elapsed per processor, averaged; on Linux the same is
  // 100 - idle of /proc/stat (iowait counts as busy, as in cycles/byte of the Linux figures).
  if (cpu_measured(r.cpu)) {
    f.cpu_percent = 100.0 - r.cpu.idle;
    // Both tools compute busy x processors x MHz x 1e6 / bytes per second; without a clock
    // rate there is no figure to give.
    if (r.host.cpu_mhz > 0) f.cycles_per_byte = r.cpu.cycles_per_byte;
  }

  f.num_processors = r.host.cpu_cores;
  f.buffer_count = spec.workload.buffer_count.value_or(std::numeric_limits<int64_t>::max());
  f.outstanding_io = spec.io.outstanding > 0 ? spec.io.outstanding : 2;
  return f;
}

}  // namespace xttcp
