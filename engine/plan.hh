// Plan: TestSpec + CPUs -> workers, each with its CPU and the flows it owns.
//
// NTttcp's layout is kept (ports x threads-per-port x connections-per-thread, and its "thread"
// rows in reports), but the OS threads that run those flows are independent of it: by default one
// worker per CPU the mapping allows (never more workers than flows), each running many
// connections on one event loop. --threads overrides the worker count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.hh"
#include "engine/spec.hh"
#include "topology/placement.hh"

namespace xttcp {

struct FlowPlan {
  uint32_t slot = 0;          // index into the run's counter array
  uint32_t thread_index = 0;  // NTttcp "thread": sender port*threads+thread; receiver port index
  uint16_t port = 0;          // receiver: port to listen on; sender: destination port
  uint16_t source_port = 0;   // sender: 0 = ephemeral
  uint16_t host = 0;          // index into Plan::hosts: where this flow connects / listens
};

struct WorkerPlan {
  uint32_t index = 0;
  std::optional<int> cpu;    // nullopt = not pinned
  std::vector<int> cpu_set;  // not pinned: may run on these CPUs only (-na); empty = any
  std::vector<FlowPlan> flows;
};

struct Plan {
  std::vector<WorkerPlan> workers;
  uint32_t flow_count = 0;   // counters to allocate
  uint32_t thread_rows = 0;  // NTttcp thread rows (sender P*n, receiver P)
  // The distinct hosts the flows address, in order of first use (never empty): the sender's
  // receivers, the receiver's bind addresses ("" or "*" = any). One entry, spec.layout.address,
  // except for NTttcp-for-Windows -m mappings that name different hosts. The engine resolves each
  // once.
  std::vector<std::string> hosts;
  // --placement: the mode asked and used, and why (prepare_run fills it; make_plan does not).
  Placement placement;
  // "worker 0 -> cpu 0, worker 1 -> any cpu, worker 2 -> cpus 0-3"
  std::string describe_cpus() const;
};

// `cpus` lists the CPUs this process may use, in placement order (from topology/).
Expected<Plan> make_plan(const TestSpec& spec, const std::vector<int>& cpus);

// The host NTttcp thread `thread` addresses: its NTttcp-for-Windows -m mapping's host (global
// thread i belongs to the mapping whose threads cover i), else spec.layout.address.
std::string thread_host(const TestSpec& spec, uint32_t thread);

// The distinct hosts of `spec`'s threads, in order of first use (what Plan::hosts holds).
std::vector<std::string> distinct_hosts(const TestSpec& spec);

// The source port NTTTCP-for-Linux gives connection c of thread t of port p with -f base.
uint16_t source_port_for(const TestSpec& spec, uint32_t port_index, uint32_t thread, uint32_t conn);

}  // namespace xttcp
