#include "engine/plan.hh"

#include <algorithm>

#include "topology/topology.hh"

namespace xttcp {

uint16_t source_port_for(const TestSpec& spec, uint32_t port_index, uint32_t thread,
                         uint32_t conn) {
  if (spec.layout.source_base_port == 0) return 0;
  const uint32_t port =
      spec.layout.source_base_port +
      (port_index * spec.layout.threads_per_port + thread) * spec.layout.conns_per_thread + conn;
  return static_cast<uint16_t>(port);
}

std::string thread_host(const TestSpec& spec, uint32_t thread) {
  if (spec.dialect != Dialect::windows) return spec.layout.address;
  uint32_t first = 0;
  for (const ThreadMapping& mapping : spec.layout.mappings) {
    if (thread < first + mapping.threads) return mapping.host;
    first += mapping.threads;
  }
  return spec.layout.address;
}

std::vector<std::string> distinct_hosts(const TestSpec& spec) {
  std::vector<std::string> hosts{spec.dialect == Dialect::windows && !spec.layout.mappings.empty()
                                     ? spec.layout.mappings.front().host
                                     : spec.layout.address};
  if (spec.dialect != Dialect::windows) return hosts;
  for (const ThreadMapping& mapping : spec.layout.mappings)
    if (std::find(hosts.begin(), hosts.end(), mapping.host) == hosts.end())
      hosts.push_back(mapping.host);
  return hosts;
}

// Which of plan.hosts each flow addresses. NTttcp-for-Windows -sp senders number their data
// ports per host: each receiver hands out its own, base + 1, base + 2, ... (port_assignment.hh).
static void assign_hosts(const TestSpec& spec, std::vector<FlowPlan>& flows, Plan& plan) {
  plan.hosts = distinct_hosts(spec);
  if (plan.hosts.size() == 1) return;
  const bool ports_per_host = spec.control.port_assignment && spec.role == Role::sender;
  std::vector<uint16_t> next_port(plan.hosts.size(), spec.layout.base_port);
  for (FlowPlan& flow : flows) {
    const std::string host = thread_host(spec, flow.thread_index);
    flow.host = static_cast<uint16_t>(std::find(plan.hosts.begin(), plan.hosts.end(), host) -
                                      plan.hosts.begin());
    if (ports_per_host) flow.port = next_port[flow.host]++;
  }
}

// The port the flows of port index `p` use: PORT + p, or on one port PORT itself (every data
// connection comes to the control port: --one-port, the iperf3 dialect).
static uint16_t data_port(const TestSpec& spec, uint32_t p) {
  return static_cast<uint16_t>(spec.layout.one_port ? spec.layout.base_port
                                                    : spec.layout.base_port + p);
}

static std::vector<FlowPlan> all_flows(const TestSpec& spec) {
  std::vector<FlowPlan> flows;
  if (spec.role == Role::receiver) {
    for (uint32_t p = 0; p < spec.layout.ports; ++p)
      flows.push_back({p, p, data_port(spec, p), 0, 0});
    return flows;
  }
  uint32_t slot = 0;
  for (uint32_t p = 0; p < spec.layout.ports; ++p)
    for (uint32_t t = 0; t < spec.layout.threads_per_port; ++t)
      for (uint32_t c = 0; c < spec.layout.conns_per_thread; ++c)
        flows.push_back({slot++, p * spec.layout.threads_per_port + t, data_port(spec, p),
                         source_port_for(spec, p, t, c), 0});
  return flows;
}

Expected<Plan> make_plan(const TestSpec& spec, const std::vector<int>& cpus) {
  if (spec.layout.ports == 0) return fail("-P: at least one port is needed");
  if (spec.role != Role::receiver && spec.sender_connections() > limits::max_connections)
    return fail("-P x -n x -l: " + std::to_string(spec.sender_connections()) +
                " connections is more than the " + std::to_string(limits::max_connections) +
                " xttcp supports");
  // One port (the iperf3 dialect): the flows' ports are never listened on or connected to.
  if (uint32_t last = uint32_t{spec.layout.base_port} + spec.layout.ports - 1;
      last > 65535 && !spec.layout.one_port)
    return fail("-p/-P: ports " + std::to_string(spec.layout.base_port) + ".." +
                std::to_string(last) + " run past 65535");
  if (spec.layout.source_base_port != 0 && spec.role == Role::sender &&
      uint32_t{spec.layout.source_base_port} + spec.sender_connections() - 1 > 65535)
    return fail("-f: source ports from " + std::to_string(spec.layout.source_base_port) + " for " +
                std::to_string(spec.sender_connections()) + " connections run past 65535");

  Plan plan;
  std::vector<FlowPlan> flows = all_flows(spec);
  assign_hosts(spec, flows, plan);
  plan.flow_count = static_cast<uint32_t>(flows.size());
  plan.thread_rows = spec.role == Role::receiver ? spec.layout.ports : spec.sender_threads();

  // NTttcp for Windows, mappings on different CPUs: one worker per mapping, pinned to its CPU
  // ('*': unpinned), running that mapping's threads (global thread i is flow i, one each).
  const std::vector<ThreadMapping>& mappings = spec.layout.mappings;
  if (spec.dialect == Dialect::windows && mappings.size() > 1 &&
      std::any_of(mappings.begin(), mappings.end(),
                  [&](const ThreadMapping& m) { return m.cpu != mappings.front().cpu; })) {
    uint32_t first_thread = 0;
    for (const ThreadMapping& mapping : mappings) {
      WorkerPlan worker;
      worker.index = static_cast<uint32_t>(plan.workers.size());
      worker.cpu = mapping.cpu;
      for (const FlowPlan& flow : flows)
        if (flow.thread_index >= first_thread && flow.thread_index < first_thread + mapping.threads)
          worker.flows.push_back(flow);
      first_thread += mapping.threads;
      plan.workers.push_back(std::move(worker));
    }
    return plan;
  }

  // Where workers run: all on the -m CPU; one per CPU in topology order with --pin or a
  // --placement other than spread (the placement is the order `cpus` is in); otherwise
  // unpinned, one per allowed CPU, and the kernel balances them (on a host that also runs the
  // peer, as on loopback, fixed placements of two processes would collide on the same cores).
  std::vector<std::optional<int>> placement;
  if (spec.layout.mapping_cpu) {
    placement.push_back(*spec.layout.mapping_cpu);
  } else if (spec.layout.pin_workers || spec.placement.mode != PlacementMode::spread) {
    for (int cpu : cpus) placement.push_back(cpu);
  }
  if (placement.empty()) placement.push_back(std::nullopt);
  const size_t cpu_count = std::max<size_t>(cpus.size(), 1);

  uint32_t workers = spec.layout.worker_threads.value_or(
      static_cast<uint32_t>(spec.layout.mapping_cpu ? 1 : cpu_count));
  workers = std::clamp<uint32_t>(workers, 1, plan.flow_count);

  plan.workers.resize(workers);
  for (uint32_t w = 0; w < workers; ++w) {
    plan.workers[w].index = w;
    plan.workers[w].cpu = placement[w % placement.size()];
  }
  // Round-robin by NTttcp thread so one thread's connections share a worker (keeps the -l
  // semantics: one thread drives its l connections) while ports spread across workers.
  for (const FlowPlan& flow : flows)
    plan.workers[flow.thread_index % workers].flows.push_back(flow);
  return plan;
}

std::string Plan::describe_cpus() const {
  std::string out;
  for (const WorkerPlan& w : workers) {
    if (!out.empty()) out += ", ";
    out += "worker " + std::to_string(w.index) + " -> " +
           (w.cpu               ? "cpu " + std::to_string(*w.cpu)
            : w.cpu_set.empty() ? std::string("any cpu")
                                : "cpus " + format_cpu_list(w.cpu_set));
  }
  return out;
}

}  // namespace xttcp
