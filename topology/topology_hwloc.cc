// hwloc implementation of discovery and NIC locality (built when hwloc >= 2.0 is found).
#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "topology/affinity.hh"
#include "topology/topology.hh"
#include "topology/topology_xml.hh"

namespace xttcp {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
};
using HwlocTopology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* bitmap) const { hwloc_bitmap_free(bitmap); }
};
using HwlocBitmap = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

// This machine, or the one an hwloc XML file describes when `xml_path` is given.
Expected<HwlocTopology> load_topology(const char* xml_path = nullptr) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return fail("hwloc_topology_init failed");
  HwlocTopology topology(raw);
  if (xml_path != nullptr && hwloc_topology_set_xml(raw, xml_path) != 0)
    return fail(fmt::format("cannot load hwloc XML {}: {}", xml_path, std::strerror(errno)));
  // Without this, hwloc 2 drops PCI and OS devices, and NIC locality is lost.
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  // hwloc's Linux backend reads the PCI devices and their locality from sysfs; its pci plugin
  // (libpciaccess) would probe every device's config space again, and on some VMs' devices
  // leaks at exit (LeakSanitizer, 7 KB in 63 allocations, every process that loads the
  // topology).
  (void)hwloc_topology_set_components(raw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
  // The GPU plugins find nothing a NIC test needs, and the gl one opens an X display: a TCP
  // connect to port 6000 on every run, which hung xttcp behind a firewall that drops it (the
  // one-port netns test) until the connect timed out.
  for (const char* gpu : {"gl", "opencl", "cuda", "nvml", "rsmi", "levelzero"})
    (void)hwloc_topology_set_components(raw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, gpu);
  if (hwloc_topology_load(raw) != 0) return fail("hwloc_topology_load failed");
  return topology;
}

int index_of(hwloc_obj_t object) {
  return object->os_index == HWLOC_UNKNOWN_INDEX ? static_cast<int>(object->logical_index)
                                                 : static_cast<int>(object->os_index);
}

Topology topology_from(hwloc_topology_t topo) {
  Topology topology;
  topology.source = "hwloc " HWLOC_VERSION;

  // Allowed = what cgroups allow (hwloc's allowed set) and what our affinity mask allows.
  HwlocBitmap usable(hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topo)));
  HwlocBitmap bound(hwloc_bitmap_alloc());
  if (usable && bound && hwloc_get_cpubind(topo, bound.get(), HWLOC_CPUBIND_THREAD) == 0) {
    hwloc_bitmap_and(usable.get(), usable.get(), bound.get());
  }
  if (!usable) return topology;

  int core_count = std::max(0, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE));
  for (hwloc_obj_t pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, nullptr); pu != nullptr;
       pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu)) {
    if (!hwloc_bitmap_isset(usable.get(), pu->os_index)) continue;
    CpuInfo info;
    info.os_index = static_cast<int>(pu->os_index);
    // Core logical indexes are unique machine-wide (Linux core_id repeats in each package).
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
    // A PU outside any Core object counts as its own core, numbered after the real ones.
    info.core = core != nullptr ? static_cast<int>(core->logical_index)
                                : core_count + static_cast<int>(pu->logical_index);
    hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
    info.package = package != nullptr ? index_of(package) : 0;
    // hwloc 2 hangs NUMA nodes off the tree as memory children: match by cpuset instead.
    for (hwloc_obj_t node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, nullptr);
         node != nullptr; node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, node)) {
      if (node->cpuset != nullptr && hwloc_bitmap_isset(node->cpuset, pu->os_index)) {
        info.numa_node = index_of(node);
        break;
      }
    }
    topology.cpus.push_back(info);
  }
  return topology;
}

}  // namespace

Topology discover_topology() {
  Expected<HwlocTopology> loaded = load_topology();
  if (loaded) {
    Topology topology = topology_from(loaded->get());
    if (!topology.cpus.empty()) return topology;
  }
  Topology fallback = discover_topology_without_hwloc();
  fallback.source +=
      fmt::format(" (hwloc failed: {})", loaded ? "no usable PU" : loaded.error().message);
  return fallback;
}

Expected<std::vector<int>> nic_local_cpus(const std::string& ifname) {
  if (Status has_device = affinity::check_nic_has_device(ifname, "/sys"); !has_device) {
    return has_device.error();
  }
  Expected<HwlocTopology> loaded = load_topology();
  if (!loaded) return affinity::nic_local_cpus_sysfs(ifname, discover_topology(), "/sys");
  hwloc_topology_t topo = loaded->get();
  Topology topology = topology_from(topo);
  for (hwloc_obj_t osdev = hwloc_get_next_osdev(topo, nullptr); osdev != nullptr;
       osdev = hwloc_get_next_osdev(topo, osdev)) {
    if (osdev->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK || osdev->name == nullptr ||
        ifname != osdev->name) {
      continue;
    }
    hwloc_obj_t ancestor = hwloc_get_non_io_ancestor_obj(topo, osdev);
    if (ancestor == nullptr || ancestor->cpuset == nullptr) break;
    std::vector<int> local;
    int cpu = -1;
    while ((cpu = hwloc_bitmap_next(ancestor->cpuset, cpu)) != -1) local.push_back(cpu);
    return affinity::restrict_to_topology(ifname, local, topology);
  }
  // hwloc may not name the interface (e.g. inside a network namespace): ask sysfs.
  return affinity::nic_local_cpus_sysfs(ifname, topology, "/sys");
}

Expected<XmlMachine> load_xml_machine(const std::string& path, const std::string& nic) {
  Expected<HwlocTopology> loaded = load_topology(path.c_str());
  if (!loaded) return loaded.error();
  hwloc_topology_t topo = loaded->get();
  XmlMachine machine;
  machine.topology = topology_from(topo);
  machine.topology.source = "hwloc XML " + path;
  for (hwloc_obj_t osdev = hwloc_get_next_osdev(topo, nullptr); osdev != nullptr;
       osdev = hwloc_get_next_osdev(topo, osdev)) {
    if (osdev->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK || osdev->name == nullptr ||
        nic != osdev->name) {
      continue;
    }
    hwloc_obj_t ancestor = hwloc_get_non_io_ancestor_obj(topo, osdev);
    if (ancestor == nullptr || ancestor->cpuset == nullptr) break;
    int cpu = -1;
    while ((cpu = hwloc_bitmap_next(ancestor->cpuset, cpu)) != -1)
      machine.nic_local_cpus.push_back(cpu);
    for (hwloc_obj_t node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, nullptr);
         node != nullptr; node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, node)) {
      if (node->cpuset != nullptr && hwloc_bitmap_isincluded(ancestor->cpuset, node->cpuset)) {
        machine.nic_numa_node = index_of(node);
        break;
      }
    }
    return machine;
  }
  return fail(fmt::format("{} has no network device '{}'", path, nic));
}

}  // namespace xttcp
