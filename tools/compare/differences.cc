#include "tools/compare/differences.hh"

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "engine/report/native_json.hh"

namespace xttcp {

namespace {

using nlohmann::ordered_json;
using Flat = std::map<std::string, std::string>;

void flatten(const ordered_json& value, const std::string& path, Flat& out) {
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) flatten(member, path + "." + key, out);
    return;
  }
  out[path] = value.dump();
}

// Spec keys that do not change what is measured: addresses and ports, output files, console
// options, waits and the DPDK plumbing. Everything else is the workload.
constexpr std::array<std::string_view, 23> not_workload = {
    "spec.address",
    "spec.source_address",
    "spec.source_addresses",
    "spec.source_base_port",
    "spec.base_port",
    "spec.log_file",
    "spec.xml_file",
    "spec.json_file",
    "spec.native_json_file",
    "spec.quiet",
    "spec.verbose",
    "spec.hold",
    "spec.daemonize",
    "spec.show_tcp_retrans",
    "spec.show_nic_packets",
    "spec.show_dev_interrupts",
    "spec.connect_timeout_s",
    "spec.wait_timeout_s",
    "spec.dpdk_args",
    "spec.dpdk_port",
    "spec.peer_mac",
    "spec.interval_s",
    "spec.repeat",
};

bool is_workload(const std::string& key) {
  return std::none_of(not_workload.begin(), not_workload.end(), [&](std::string_view skip) {
    return key == skip || (key.starts_with(skip) && key[skip.size()] == '.');
  });
}

// Environment keys that move between identical runs.
bool is_steady(const std::string& key) {
  return !key.ends_with(".cpu_mhz") && !key.ends_with(".os") && !key.ends_with(".hostname");
}

// Differences that make the two runs unlike (a warning), not just a new version of something.
bool is_warning(const std::string& key) {
  for (std::string_view unlike : {"cpu_model", "cpu_cores", "mtu", "smt", "governor"})
    if (key.ends_with(unlike)) return true;
  return false;
}

std::vector<Difference> differences(const Flat& base, const Flat& changed) {
  std::vector<Difference> out;
  auto text = [](const Flat& flat, const std::string& key) {
    auto it = flat.find(key);
    return it == flat.end() ? std::string("(absent)") : it->second;
  };
  Flat keys = base;
  keys.insert(changed.begin(), changed.end());
  for (const auto& entry : keys) {
    const std::string& key = entry.first;
    if (text(base, key) != text(changed, key))
      out.push_back({key, text(base, key), text(changed, key), false});
  }
  return out;
}

Flat workload_of(const Result& r) {
  Flat flat;
  flatten(spec_to_json(r.spec), "spec", flat);
  std::erase_if(flat, [](const auto& entry) { return !is_workload(entry.first); });
  flat["role"] = ordered_json(to_string(r.role)).dump();
  flat["backend"] = ordered_json(r.backend).dump();
  return flat;
}

Flat environment_of(const Result& r) {
  Flat flat;
  const ordered_json doc = result_to_json(r);
  flatten(doc["host"], "host", flat);
  flat["tool.version"] = ordered_json(r.tool_version).dump();
  if (r.peer) flatten(result_to_json(*r.peer)["host"], "peer.host", flat);
  std::erase_if(flat, [](const auto& entry) { return !is_steady(entry.first); });
  return flat;
}

}  // namespace

std::vector<Difference> workload_differences(const Result& base, const Result& changed) {
  return differences(workload_of(base), workload_of(changed));
}

std::vector<Difference> environment_differences(const Result& base, const Result& changed) {
  std::vector<Difference> out = differences(environment_of(base), environment_of(changed));
  for (Difference& d : out) d.warning = is_warning(d.key);
  return out;
}

}  // namespace xttcp
