// Windows has no NIC discovery in xttcp yet (GetIfTable2 and the RSS query are issue 14's next
// step): every call says so instead of pretending.
#include "topology/nic/nic_discovery.hh"

namespace xttcp {

Expected<NicInfo> discover_nic(const std::string& ifname) {
  return fail("NIC discovery (" + ifname + ") is not implemented on Windows yet");
}

std::vector<std::string> device_interfaces() { return {}; }

Expected<std::string> interface_toward(const std::string& address) {
  return fail("finding the interface toward " + address + " is not implemented on Windows yet");
}

TuningFacts read_tuning_facts() {
  TuningFacts facts;
  const Error why{"not available: Windows has no such sysctl"};
  facts.rmem_max = why;
  facts.wmem_max = why;
  facts.tcp_rmem_max = why;
  facts.tcp_wmem_max = why;
  facts.irqbalance_running = Error{"not available: irqbalance is a Linux daemon"};
  return facts;
}

Expected<std::vector<std::pair<std::string, std::uint64_t>>> read_nic_statistics(
    const std::string&) {
  return fail("not available: per-queue counters are read on Linux only (ETHTOOL_GSTATS)");
}

Expected<std::map<int, QueueCounters>> read_qstats(const std::string&) {
  return fail("not available: netlink qstats is Linux's");
}

Expected<std::map<int, QueueCounters>> read_queue_counters(const std::string&, QueueStatsSource) {
  return fail("not available: per-queue counters are read on Linux only");
}

Expected<QueueStatsRead> read_queue_counters(const std::string&) {
  return fail("not available: per-queue counters are read on Linux only");
}

}  // namespace xttcp
