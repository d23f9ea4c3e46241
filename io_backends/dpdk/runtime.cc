#include "io_backends/dpdk/runtime.hh"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_version.h>

#include "io_backends/common/udp_accounting.hh"
#include "io_backends/dpdk/port_description.hh"
#include "topology/topology.hh"

namespace xttcp::dpdk {

namespace {

constexpr uint16_t rx_descriptors = 512;
constexpr uint16_t tx_descriptors = 512;
constexpr unsigned pool_cache = 256;
// Ring-backed PMDs (net_ring) hold up to 1024 sent frames per queue until they are received.
constexpr unsigned in_flight_per_queue = 1024;

std::vector<std::string> split(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

bool has_option(const std::vector<std::string>& words, std::initializer_list<const char*> names) {
  for (const std::string& word : words)
    for (const char* name : names)
      if (word == name || word.rfind(std::string(name) + "=", 0) == 0 ||
          (std::string(name).size() == 2 && word.rfind(name, 0) == 0))
        return true;
  return false;
}

std::string dpdk_error(int code) { return rte_strerror(code < 0 ? -code : code); }

// The flow types of rte_eth_dev_info's flow_type_rss_offloads, by testpmd's names.
std::vector<std::string> rss_type_names(uint64_t bits) {
  static constexpr struct {
    uint64_t bit;
    const char* name;
  } kTypes[] = {{RTE_ETH_RSS_IPV4, "ipv4"},
                {RTE_ETH_RSS_FRAG_IPV4, "ipv4-frag"},
                {RTE_ETH_RSS_NONFRAG_IPV4_TCP, "ipv4-tcp"},
                {RTE_ETH_RSS_NONFRAG_IPV4_UDP, "ipv4-udp"},
                {RTE_ETH_RSS_NONFRAG_IPV4_SCTP, "ipv4-sctp"},
                {RTE_ETH_RSS_NONFRAG_IPV4_OTHER, "ipv4-other"},
                {RTE_ETH_RSS_IPV6, "ipv6"},
                {RTE_ETH_RSS_FRAG_IPV6, "ipv6-frag"},
                {RTE_ETH_RSS_NONFRAG_IPV6_TCP, "ipv6-tcp"},
                {RTE_ETH_RSS_NONFRAG_IPV6_UDP, "ipv6-udp"},
                {RTE_ETH_RSS_NONFRAG_IPV6_SCTP, "ipv6-sctp"},
                {RTE_ETH_RSS_NONFRAG_IPV6_OTHER, "ipv6-other"},
                {RTE_ETH_RSS_L2_PAYLOAD, "l2-payload"},
                {RTE_ETH_RSS_IPV6_EX, "ipv6-ex"},
                {RTE_ETH_RSS_IPV6_TCP_EX, "ipv6-tcp-ex"},
                {RTE_ETH_RSS_IPV6_UDP_EX, "ipv6-udp-ex"},
                {RTE_ETH_RSS_PORT, "port"},
                {RTE_ETH_RSS_VXLAN, "vxlan"},
                {RTE_ETH_RSS_GENEVE, "geneve"},
                {RTE_ETH_RSS_NVGRE, "nvgre"},
                {RTE_ETH_RSS_GTPU, "gtpu"},
                {RTE_ETH_RSS_ETH, "eth"},
                {RTE_ETH_RSS_S_VLAN, "s-vlan"},
                {RTE_ETH_RSS_C_VLAN, "c-vlan"},
                {RTE_ETH_RSS_ESP, "esp"},
                {RTE_ETH_RSS_AH, "ah"},
                {RTE_ETH_RSS_L2TPV3, "l2tpv3"},
                {RTE_ETH_RSS_PFCP, "pfcp"},
                {RTE_ETH_RSS_PPPOE, "pppoe"},
                {RTE_ETH_RSS_ECPRI, "ecpri"},
                {RTE_ETH_RSS_MPLS, "mpls"},
                {RTE_ETH_RSS_IPV4_CHKSUM, "ipv4-chksum"},
                {RTE_ETH_RSS_L4_CHKSUM, "l4-chksum"},
                {RTE_ETH_RSS_L2TPV2, "l2tpv2"}};
  std::vector<std::string> names;
  uint64_t named = 0;
  for (const auto& type : kTypes)
    if (bits & type.bit) {
      names.emplace_back(type.name);
      named |= type.bit;
    }
  for (unsigned bit = 0; bit < 64; ++bit)  // selectors (L3_SRC_ONLY, ...) and newer types
    if ((bits & ~named) & (uint64_t{1} << bit)) names.push_back(fmt::format("bit{}", bit));
  return names;
}

#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
// The names rss_description.hh knows. DEFAULT is the PMD's own choice, which it does not name;
// the symmetric variants hash differently from Toeplitz, so no prediction may assume one.
const char* rss_algorithm_name(rte_eth_hash_function algorithm) {
  switch (algorithm) {
    case RTE_ETH_HASH_FUNCTION_TOEPLITZ: return "toeplitz";
    case RTE_ETH_HASH_FUNCTION_SIMPLE_XOR: return "xor";
    default: return "unknown";
  }
}
#endif

// What the ethdev API says of a started port: each call may refuse (-ENOTSUP on virtual
// devices), and then that part says why.
DeviceDescription describe_port(const Port& port, const rte_eth_dev_info& info) {
  DeviceDescription d;
  if (port.socket >= 0)
    d.numa_node = port.socket;
  else
    d.numa_unavailable = "unavailable: the port reports no NUMA node (SOCKET_ID_ANY)";
  d.rx_queues = d.tx_queues = port.queues;
  d.max_rx_queues = info.max_rx_queues;
  d.max_tx_queues = info.max_tx_queues;
  d.reta_size = info.reta_size;
  d.hash_key_size = info.hash_key_size;
  d.rss_offloads = rss_type_names(info.flow_type_rss_offloads);
  d.rss.nic = port.name;
  d.rss.queues = port.queues;
  // Before DPDK 23.11 rte_eth_rss_conf names no hash algorithm (Debian 12 has 22.11): never
  // assumed; from 23.11 the port's answer below replaces it.
  d.rss.hash_function = "unknown";

  std::vector<uint8_t> key(std::max<std::size_t>(info.hash_key_size, rss_limits::max_key_bytes));
  rte_eth_rss_conf conf{};
  conf.rss_key = key.data();
  conf.rss_key_len =
      static_cast<uint8_t>(info.hash_key_size > 0 ? info.hash_key_size : rss_limits::max_key_bytes);
  if (int rc = rte_eth_dev_rss_hash_conf_get(port.id, &conf); rc != 0) {
    d.key_unavailable = d.hash_fields_unavailable =
        fmt::format("unavailable: rte_eth_dev_rss_hash_conf_get: {}", dpdk_error(rc));
  } else {
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
    d.rss.hash_function = rss_algorithm_name(conf.algorithm);
#endif
    const uint64_t hf = conf.rss_hf;
    d.rss.hash_fields = hash_fields_of(
        {(hf & RTE_ETH_RSS_IPV4) != 0, (hf & RTE_ETH_RSS_NONFRAG_IPV4_TCP) != 0,
         (hf & RTE_ETH_RSS_NONFRAG_IPV4_UDP) != 0, (hf & RTE_ETH_RSS_IPV6) != 0,
         (hf & RTE_ETH_RSS_NONFRAG_IPV6_TCP) != 0, (hf & RTE_ETH_RSS_NONFRAG_IPV6_UDP) != 0});
    if (info.hash_key_size == 0)
      d.key_unavailable = "unavailable: the port reports no hash key size (hash_key_size 0)";
    else if (info.hash_key_size > rss_limits::max_key_bytes)
      d.key_unavailable = fmt::format("unavailable: a {}-byte key, longer than {}",
                                      info.hash_key_size, rss_limits::max_key_bytes);
    else
      d.rss.key.assign(key.begin(), key.begin() + info.hash_key_size);
  }

  if (info.reta_size == 0) {
    d.indirection_unavailable = "unavailable: the port reports no indirection table (reta_size 0)";
  } else if (info.reta_size > rss_limits::max_table) {
    d.indirection_unavailable =
        fmt::format("unavailable: {} entries, more than {}", info.reta_size, rss_limits::max_table);
  } else {
    std::vector<RetaGroup> groups = reta_query_groups(info.reta_size);
    std::vector<rte_eth_rss_reta_entry64> entries(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) entries[g].mask = groups[g].mask;
    if (int rc = rte_eth_dev_rss_reta_query(port.id, entries.data(), info.reta_size); rc != 0) {
      d.indirection_unavailable =
          fmt::format("unavailable: rte_eth_dev_rss_reta_query: {}", dpdk_error(rc));
    } else {
      for (std::size_t g = 0; g < groups.size(); ++g) {
        groups[g].mask = entries[g].mask;
        std::copy(std::begin(entries[g].reta), std::end(entries[g].reta), groups[g].reta.begin());
      }
      auto table = flatten_reta(groups, info.reta_size, port.queues);
      if (table)
        d.rss.indirection = std::move(*table);
      else
        d.indirection_unavailable =
            "unavailable: rte_eth_dev_rss_reta_query: " + table.error().message;
    }
  }
  return d;
}

}  // namespace

Runtime& Runtime::instance() {
  static Runtime runtime;
  return runtime;
}

Runtime::~Runtime() {
  if (!tried_ || !init_error_.empty()) return;
  for (auto& port : ports_) {
    rte_eth_dev_stop(port->id);
    rte_eth_dev_close(port->id);
    rte_mempool_free(port->pool);
  }
  ports_.clear();
  rte_eal_cleanup();
}

bool Runtime::initialised() const {
  std::lock_guard lock(mutex_);
  return tried_ && init_error_.empty();
}

Status Runtime::init(const std::string& args) {
  std::lock_guard lock(mutex_);
  if (tried_) return init_error_.empty() ? ok() : fail(init_error_);
  tried_ = true;

  std::vector<std::string> words = split(args);
  std::vector<std::string> argv_words{"xttcp"};
  cpu_set_t affinity;
  CPU_ZERO(&affinity);
  const bool have_affinity = sched_getaffinity(0, sizeof affinity, &affinity) == 0;
  // One lcore is enough: workers are xttcp's own threads, registered as lcores when they start.
  if (!has_option(words, {"-l", "-c", "--lcores"})) {
    int first = 0;
    for (int cpu = 0; have_affinity && cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &affinity)) {
        first = cpu;
        break;
      }
    argv_words.push_back("-l");
    argv_words.push_back(std::to_string(first));
  }
  if (!has_option(words, {"--file-prefix"}))
    argv_words.push_back("--file-prefix=xttcp-" + std::to_string(getpid()));
  if (!has_option(words, {"--log-level"})) {
    argv_words.push_back("--log-level=lib.eal:error");
    argv_words.push_back("--log-level=lib.telemetry:error");
  }
  argv_words.insert(argv_words.end(), words.begin(), words.end());

  std::vector<char*> argv;
  for (std::string& word : argv_words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const int parsed = rte_eal_init(static_cast<int>(argv.size() - 1), argv.data());
  // The EAL pins the calling thread to its main lcore; the engine placed this thread already.
  if (have_affinity) sched_setaffinity(0, sizeof affinity, &affinity);
  if (parsed < 0) {
    init_error_ = fmt::format("--dpdk-args: EAL initialisation failed ({}) with \"{}\"",
                              dpdk_error(rte_errno), args);
    return fail(init_error_);
  }
  if (rte_eth_dev_count_avail() == 0) {
    init_error_ = fmt::format(
        "--dpdk-args: the EAL found no port (\"{}\"; add --vdev net_null0, or bind a NIC to "
        "vfio-pci)",
        args);
    return fail(init_error_);
  }
  ports_.reserve(RTE_MAX_ETHPORTS);
  return ok();
}

std::string Runtime::describe_ports() const {
  std::string out;
  uint16_t id;
  RTE_ETH_FOREACH_DEV(id) {
    char name[RTE_ETH_NAME_MAX_LEN] = {};
    rte_eth_dev_get_name_by_port(id, name);
    rte_ether_addr mac{};
    rte_eth_macaddr_get(id, &mac);
    frame::MacAddress bytes;
    std::copy(mac.addr_bytes, mac.addr_bytes + 6, bytes.begin());
    out += fmt::format("{}{} {} {}", out.empty() ? "" : "; ", id, name, frame::to_string(bytes));
  }
  return out.empty() ? "none" : out;
}

Expected<uint16_t> Runtime::find_port(const std::string& selector) const {
  if (selector.empty()) {
    uint16_t id;
    RTE_ETH_FOREACH_DEV(id) return id;
  }
  if (!selector.empty() && std::all_of(selector.begin(), selector.end(), ::isdigit) &&
      selector.size() < 6) {
    const auto id = static_cast<uint16_t>(std::stoul(selector));
    if (rte_eth_dev_is_valid_port(id)) return id;
  }
  uint16_t id;
  if (rte_eth_dev_get_port_by_name(selector.c_str(), &id) == 0) return id;
  if (auto mac = frame::parse_mac(selector)) {
    RTE_ETH_FOREACH_DEV(id) {
      rte_ether_addr address{};
      rte_eth_macaddr_get(id, &address);
      if (std::equal(mac->begin(), mac->end(), address.addr_bytes)) return id;
    }
  }
  return fail(fmt::format("--dpdk-port {}: no such port (ports: {})", selector, describe_ports()));
}

Expected<std::unique_ptr<Port>> Runtime::start_port(uint16_t id, const PortRequest& request) {
  auto port = std::make_unique<Port>();
  port->id = id;
  char name[RTE_ETH_NAME_MAX_LEN] = {};
  rte_eth_dev_get_name_by_port(id, name);
  port->name = name;
  const auto failed = [&](const std::string& what, int code) {
    return fail(fmt::format("--dpdk-port {}: {} failed ({})", port->name, what, dpdk_error(code)));
  };
  rte_eth_dev_info info{};
  if (int rc = rte_eth_dev_info_get(id, &info); rc != 0) return failed("rte_eth_dev_info_get", rc);
  port->driver = info.driver_name != nullptr ? info.driver_name : "?";
  port->queues =
      std::max<uint16_t>(1, std::min({request.queues, info.max_rx_queues, info.max_tx_queues}));
  port->socket = rte_eth_dev_socket_id(id);
  port->max_mtu = info.max_mtu;
  rte_eth_dev_get_mtu(id, &port->mtu);

  // The MTU: a sender's frames need it (and a refusal naming -b when the port cannot); a
  // receiver takes jumbo frames up to MTU 9000 where the port allows them.
  const uint32_t max_mtu = std::min<uint32_t>(info.max_mtu, max_frame_room - 18);
  uint32_t wanted_mtu = port->mtu;
  if (request.send_frame > 0) {
    const uint32_t needed = request.send_frame - frame::ethernet_bytes;
    if (needed > info.max_mtu)
      return fail(fmt::format("-b: frames of {} bytes need MTU {}, above {}'s largest ({})",
                              request.send_frame, needed, port->name, info.max_mtu));
    wanted_mtu = std::max<uint32_t>(wanted_mtu, needed);
  } else {
    wanted_mtu = std::max<uint32_t>(wanted_mtu, std::min<uint32_t>(max_mtu, 9000));
  }

  rte_eth_conf conf{};
  if (port->queues > 1 && info.flow_type_rss_offloads != 0) {
    conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
    conf.rx_adv_conf.rss_conf.rss_hf =
        (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP) & info.flow_type_rss_offloads;
  }
  port->ipv4_checksum_offload = (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) != 0;
  port->udp_checksum_offload = (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) != 0;
  if (port->ipv4_checksum_offload) conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
  if (port->udp_checksum_offload) conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
  if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
    conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
  if (int rc = rte_eth_dev_configure(id, port->queues, port->queues, &conf); rc != 0)
    return failed("rte_eth_dev_configure", rc);
  if (wanted_mtu != port->mtu) {
    const int rc = rte_eth_dev_set_mtu(id, static_cast<uint16_t>(wanted_mtu));
    if (rc == 0) {
      port->notes.push_back(
          fmt::format("dpdk: {} MTU {} -> {}", port->name, port->mtu, wanted_mtu));
    } else if (rc == -ENOTSUP) {  // PMDs without an MTU (net_null, net_ring) take any frame
      port->mtu = static_cast<uint16_t>(wanted_mtu);
    } else {
      if (request.send_frame > 0) return failed(fmt::format("setting MTU {}", wanted_mtu), rc);
      port->notes.push_back(fmt::format("dpdk: {} keeps MTU {} (MTU {}: {})", port->name, port->mtu,
                                        wanted_mtu, dpdk_error(rc)));
    }
    if (rc != -ENOTSUP) rte_eth_dev_get_mtu(id, &port->mtu);
  }
  uint16_t rxd = rx_descriptors, txd = tx_descriptors;
  if (int rc = rte_eth_dev_adjust_nb_rx_tx_desc(id, &rxd, &txd); rc != 0)
    return failed("rte_eth_dev_adjust_nb_rx_tx_desc", rc);

  // One mbuf holds the largest frame: the sender's, or what the MTU lets in (+ VLAN tag).
  port->frame_room = std::max<uint32_t>(
      RTE_MBUF_DEFAULT_DATAROOM,
      std::max<uint32_t>(request.send_frame, uint32_t{port->mtu} + frame::ethernet_bytes + 4));
  port->frame_room = std::min(port->frame_room, max_frame_room);
  // Small enough for --no-huge (the usual 8K-per-queue pools fail there with ENOBUFS).
  const unsigned mbufs = std::max(
      4095u, unsigned{port->queues} * (rxd + txd + in_flight_per_queue + 2 * burst + pool_cache));
  const int socket = port->socket < 0 ? SOCKET_ID_ANY : port->socket;
  const std::string pool_name = fmt::format("xttcp_pool_{}", id);
  port->pool = rte_pktmbuf_pool_create(
      pool_name.c_str(), mbufs, pool_cache, 0,
      static_cast<uint16_t>(port->frame_room + RTE_PKTMBUF_HEADROOM), socket);
  if (port->pool == nullptr)
    return failed(fmt::format("an mbuf pool of {} buffers of {} bytes (-m in --dpdk-args too "
                              "small?)",
                              mbufs, port->frame_room),
                  rte_errno);
  rte_eth_txconf txconf = info.default_txconf;
  txconf.offloads = conf.txmode.offloads;
  for (uint16_t q = 0; q < port->queues; ++q) {
    if (int rc = rte_eth_rx_queue_setup(id, q, rxd, socket, nullptr, port->pool); rc != 0)
      return failed(fmt::format("rx queue {} setup", q), rc);
    if (int rc = rte_eth_tx_queue_setup(id, q, txd, socket, &txconf); rc != 0)
      return failed(fmt::format("tx queue {} setup", q), rc);
  }
  if (int rc = rte_eth_dev_start(id); rc != 0) return failed("rte_eth_dev_start", rc);
  rte_eth_promiscuous_enable(id);  // the receiver matches frames by IP address, not by MAC
  rte_ether_addr mac{};
  rte_eth_macaddr_get(id, &mac);
  std::copy(mac.addr_bytes, mac.addr_bytes + 6, port->mac.begin());
  port->counters = std::make_unique<QueueCounters[]>(port->queues);
  port->description = describe_port(*port, info);
  // Workers belong on the port's NUMA node (where its descriptors and mbufs live).
  const Topology topology = discover_topology();
  std::vector<int> nodes;  // of the CPUs this process may run on (topology.hh)
  for (const CpuInfo& cpu : topology.cpus)
    if (std::find(nodes.begin(), nodes.end(), cpu.numa_node) == nodes.end())
      nodes.push_back(cpu.numa_node);
  if (std::string warning = numa_warning(port->name, port->socket, nodes); !warning.empty()) {
    port->description.warnings.push_back(warning);
    port->notes.push_back("dpdk: warning: " + warning);
  }
  if (nodes.size() > 1 && port->socket >= 0) {
    for (const CpuInfo& cpu : topology.cpus)
      if (cpu.numa_node == port->socket) port->local_cpus.push_back(cpu.os_index);
    port->notes.push_back(
        fmt::format("dpdk: {} is on NUMA node {} (CPUs {}): unpinned workers "
                    "run there",
                    port->name, port->socket, format_cpu_list(port->local_cpus)));
  } else {
    port->notes.push_back(fmt::format(
        "dpdk: {}: {}: worker placement as planned", port->name,
        nodes.size() <= 1 ? "one NUMA node here" : "the port has no NUMA node (virtual device)"));
  }
  return port;
}

Expected<Port*> Runtime::port(const std::string& selector, const PortRequest& request) {
  std::lock_guard lock(mutex_);
  if (!tried_ || !init_error_.empty())
    return fail("--backend dpdk: the EAL is not initialised (--dpdk-args)");
  auto id = find_port(selector);
  if (!id) return id.error();
  for (auto& port : ports_)
    if (port->id == *id) return port.get();
  auto started = start_port(*id, request);
  if (!started) return started.error();
  ports_.push_back(std::move(*started));
  return ports_.back().get();
}

std::vector<Port*> Runtime::started_ports() {
  std::lock_guard lock(mutex_);
  std::vector<Port*> ports;
  for (auto& port : ports_) ports.push_back(port.get());
  return ports;
}

std::vector<std::string> Runtime::port_details() const {
  std::vector<std::string> lines;
  uint16_t id;
  RTE_ETH_FOREACH_DEV(id) {
    char name[RTE_ETH_NAME_MAX_LEN] = {};
    rte_eth_dev_get_name_by_port(id, name);
    rte_eth_dev_info info{};
    rte_eth_dev_info_get(id, &info);
    rte_ether_addr mac{};
    rte_eth_macaddr_get(id, &mac);
    frame::MacAddress bytes;
    std::copy(mac.addr_bytes, mac.addr_bytes + 6, bytes.begin());
    uint16_t mtu = 0;
    rte_eth_dev_get_mtu(id, &mtu);
    const bool ip_sum = (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) != 0;
    const bool udp_sum = (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM) != 0;
    const int socket = rte_eth_dev_socket_id(id);
    lines.push_back(fmt::format(
        "port {} {} (PMD {}) {}, NUMA {}, queues rx {} tx {}, MTU {} (max {}), TX checksum "
        "offload: {}",
        id, name, info.driver_name != nullptr ? info.driver_name : "?", frame::to_string(bytes),
        socket < 0 ? std::string("any") : std::to_string(socket), info.max_rx_queues,
        info.max_tx_queues, mtu, info.max_mtu,
        ip_sum && udp_sum ? "IPv4+UDP"
        : ip_sum          ? "IPv4 only"
        : udp_sum         ? "UDP only"
                          : "none"));
  }
  return lines;
}

namespace {

uint32_t ipv4_host_order(const SocketAddress& address) {
  return ntohl(reinterpret_cast<const sockaddr_in*>(address.get())->sin_addr.s_addr);
}

frame::Ipv6Address ipv6_bytes(const SocketAddress& address) {
  frame::Ipv6Address bytes{};
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address.get());
  std::memcpy(bytes.data(), &in6->sin6_addr, 16);
  return bytes;
}

}  // namespace

Expected<frame::MacAddress> Runtime::resolve(Port& port, const SocketAddress& source,
                                             const SocketAddress& target, uint32_t timeout_ms) {
  std::lock_guard lock(mutex_);
  const std::string key = fmt::format("{}/{}", port.id, target.host());
  for (const auto& [known, mac] : neighbours_)
    if (known == key) return mac;
  const bool ipv6 = target.family() == AF_INET6;
  const std::vector<uint8_t> request =
      ipv6 ? frame::build_neighbor_solicitation(port.mac, ipv6_bytes(source), ipv6_bytes(target))
           : frame::build_arp_request(port.mac, ipv4_host_order(source), ipv4_host_order(target));
  const uint32_t target4 = ipv6 ? 0 : ipv4_host_order(target);
  const frame::Ipv6Address target6 = ipv6 ? ipv6_bytes(target) : frame::Ipv6Address{};
  const uint64_t hz = rte_get_tsc_hz();
  const uint64_t deadline = rte_rdtsc() + hz * timeout_ms / 1000;
  uint64_t next_request = 0;
  unsigned requests = 0;
  while (rte_rdtsc() < deadline) {
    if (rte_rdtsc() >= next_request) {
      rte_mbuf* m = rte_pktmbuf_alloc(port.pool);
      if (m != nullptr) {
        std::memcpy(rte_pktmbuf_mtod(m, uint8_t*), request.data(), request.size());
        m->data_len = m->pkt_len = static_cast<uint32_t>(request.size());
        if (rte_eth_tx_burst(port.id, 0, &m, 1) != 1) rte_pktmbuf_free(m);
        ++requests;
      }
      next_request = rte_rdtsc() + hz / 5;
    }
    for (uint16_t q = 0; q < port.queues; ++q) {
      rte_mbuf* mbufs[burst];
      const uint16_t n = rte_eth_rx_burst(port.id, q, mbufs, burst);
      std::optional<frame::MacAddress> found;
      for (uint16_t i = 0; i < n; ++i) {
        const uint8_t* data = rte_pktmbuf_mtod(mbufs[i], const uint8_t*);
        const std::size_t length = rte_pktmbuf_data_len(mbufs[i]);
        if (!found)
          found = ipv6 ? frame::neighbor_advertisement_mac(data, length, target6)
                       : frame::arp_sender_mac(data, length, target4);
        rte_pktmbuf_free(mbufs[i]);
      }
      if (found) {
        neighbours_.emplace_back(key, *found);
        return *found;
      }
    }
    rte_pause();
  }
  return fail(fmt::format(
      "--peer-mac: no {} answer from {} on {} within {} ms ({} request(s); "
      "--connect-timeout): give the receiver's or the gateway's MAC with "
      "--peer-mac",
      ipv6 ? "neighbour discovery" : "ARP", target.host(), port.name, timeout_ms, requests));
}

TscClock::TscClock() {
  hz_ = std::max<uint64_t>(rte_get_tsc_hz(), 1);
  ns_per_tick_ = 1e9 / static_cast<double>(hz_);
  ns0_ = monotonic_ns();
  tsc0_ = rte_rdtsc();
}

uint64_t TscClock::now_ns() const {
  return ns0_ + static_cast<uint64_t>(static_cast<double>(rte_rdtsc() - tsc0_) * ns_per_tick_);
}

rte_eth_stats read_stats(uint16_t port) {
  rte_eth_stats stats{};
  rte_eth_stats_get(port, &stats);
  return stats;
}

std::vector<std::pair<std::string, uint64_t>> read_counters(uint16_t port) {
  const rte_eth_stats s = read_stats(port);
  std::vector<std::pair<std::string, uint64_t>> counters{
      {"ipackets", s.ipackets}, {"opackets", s.opackets},   {"ibytes", s.ibytes},
      {"obytes", s.obytes},     {"imissed", s.imissed},     {"ierrors", s.ierrors},
      {"oerrors", s.oerrors},   {"rx_nombuf", s.rx_nombuf},
  };
  const int count = rte_eth_xstats_get_names(port, nullptr, 0);
  if (count <= 0) return counters;
  std::vector<rte_eth_xstat_name> names(static_cast<std::size_t>(count));
  std::vector<rte_eth_xstat> values(static_cast<std::size_t>(count));
  const int named = rte_eth_xstats_get_names(port, names.data(), static_cast<unsigned>(count));
  const int got = rte_eth_xstats_get(port, values.data(), static_cast<unsigned>(count));
  for (int i = 0; i < std::min(got, named); ++i)
    if (values[i].id < static_cast<uint64_t>(named))
      counters.emplace_back(names[values[i].id].name, values[i].value);
  return counters;
}

std::string stats_note(const Port& port, const rte_eth_stats& a, const rte_eth_stats& b) {
  return fmt::format(
      "dpdk: port {} ({}, {} queue(s)): ipackets {}, opackets {}, imissed {}, rx_nombuf {}, "
      "ierrors {}, oerrors {} (rte_eth_stats over the workers' run)",
      port.name, port.driver, port.queues, b.ipackets - a.ipackets, b.opackets - a.opackets,
      b.imissed - a.imissed, b.rx_nombuf - a.rx_nombuf, b.ierrors - a.ierrors,
      b.oerrors - a.oerrors);
}

std::string place_worker(const Port& port, uint32_t worker, std::optional<int> pinned_cpu) {
  if (port.local_cpus.empty()) return "";
  if (pinned_cpu) {
    if (std::find(port.local_cpus.begin(), port.local_cpus.end(), *pinned_cpu) !=
        port.local_cpus.end())
      return "";
    return fmt::format("dpdk: worker {} is pinned to CPU {}, off {}'s NUMA node {}", worker,
                       *pinned_cpu, port.name, port.socket);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : port.local_cpus) CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0)
    return fmt::format("dpdk: worker {} could not move to NUMA node {}: {}", worker, port.socket,
                       std::strerror(errno));
  return "";
}

bool register_thread() { return rte_thread_register() == 0; }

void unregister_thread() {
  if (rte_lcore_id() != LCORE_ID_ANY) rte_thread_unregister();
}

}  // namespace xttcp::dpdk
