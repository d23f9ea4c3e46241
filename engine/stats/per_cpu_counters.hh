// What the queue probe (queue_probe.hh) reads per CPU, per platform (per_cpu_counters_<os>.cc):
// each CPU's time since boot and its NET_RX/NET_TX softirq counts. Read on the control thread at
// the window's edges only.
#pragma once

#include <string>
#include <vector>

#include "base/status.hh"
#include "engine/stats/proc_parsers.hh"

namespace xttcp {

// Each CPU's ticks by CPU id. Linux: /proc/stat's cpuN lines under `proc_root` (USER_HZ).
// Windows: NtQuerySystemInformation(SystemProcessorPerformanceInformation), 100 ns units: user,
// system (kernel less idle, DPC and interrupt time), idle, irq (interrupt time), softirq (DPC
// time, Windows' nearest kin); `proc_root` is not used. Error "not available: <why>".
Expected<std::vector<CpuLineTicks>> read_cpu_ticks(const std::string& proc_root);

// NET_RX and NET_TX per CPU (/proc/softirqs under `proc_root`). Windows has none: an Error.
Expected<NetSoftirqs> read_net_softirqs(const std::string& proc_root);

}  // namespace xttcp
