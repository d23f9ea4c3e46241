// Windows NIC discovery: IP Helper's GetIfTable2 for the interfaces (nic_windows_map.cc turns a
// row into NicInfo), GetAdaptersAddresses for which one holds an address, and the one RSS fact
// Winsock gives (SIO_QUERY_RSS_SCALABILITY_INFO: on or off). Windows has no sysctls, irqbalance,
// ethtool statistics or per-queue counters for applications: those say so.
#include "base/socket_headers.hh"  // winsock2.h before iphlpapi.h
#include <iphlpapi.h>
#include <netioapi.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/socket_address.hh"
#include "topology/nic/nic_discovery.hh"
#include "topology/nic/nic_windows_map.hh"

// mingw-w64's mstcpip.h lacks these; the values are Windows' (mstcpip.h of the Windows SDK).
#ifndef SIO_QUERY_RSS_SCALABILITY_INFO
#define SIO_QUERY_RSS_SCALABILITY_INFO _WSAIOR(IOC_VENDOR, 210)
#endif

namespace xttcp {
namespace {

struct RssScalabilityInfo {  // RSS_SCALABILITY_INFO
  BOOLEAN rss_enabled;
};

// "the request is not supported (10045)": the system's words for a Win32 or Winsock error, else
// its name ("WSAEOPNOTSUPP (10045)") or number.
std::string error_text(DWORD code) {
  char* buffer = nullptr;
  const DWORD length = FormatMessageA(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
      nullptr, code, 0, reinterpret_cast<char*>(&buffer), 0, nullptr);
  std::string words = length > 0 && buffer != nullptr ? std::string(buffer, length) : "";
  LocalFree(buffer);
  while (!words.empty() && (words.back() == '\n' || words.back() == '\r' || words.back() == ' ' ||
                            words.back() == '.'))
    words.pop_back();
  if (words.empty()) {  // Wine has no text for most Winsock errors: their names, at least
    for (const auto& [number, name] :
         {std::pair<DWORD, const char*>{WSAEOPNOTSUPP, "WSAEOPNOTSUPP"},
          {WSAEINVAL, "WSAEINVAL"},
          {WSAENOPROTOOPT, "WSAENOPROTOOPT"},
          {WSAEAFNOSUPPORT, "WSAEAFNOSUPPORT"},
          {WSAENETUNREACH, "WSAENETUNREACH"},
          {WSAEHOSTUNREACH, "WSAEHOSTUNREACH"},
          {WSANOTINITIALISED, "WSANOTINITIALISED"}})
      if (number == code) return fmt::format("{} ({})", name, code);
    return fmt::format("error {}", code);
  }
  if (words[0] >= 'A' && words[0] <= 'Z') words[0] = static_cast<char>(words[0] - 'A' + 'a');
  return fmt::format("{} ({})", words, code);
}

std::string utf8(const wchar_t* text) {
  const int size = WideCharToMultiByte(CP_UTF8, 0, text, -1, nullptr, 0, nullptr, nullptr);
  if (size <= 1) return {};
  std::string out(static_cast<std::size_t>(size), '\0');
  WideCharToMultiByte(CP_UTF8, 0, text, -1, out.data(), size, nullptr, nullptr);
  out.resize(static_cast<std::size_t>(size - 1));  // the terminating NUL
  return out;
}

// WSAStartup once for the process (topology/ sits below engine/net, which does the same).
Status start_winsock() {
  static const int result = [] {
    WSADATA data;
    return WSAStartup(MAKEWORD(2, 2), &data);
  }();
  if (result != 0) return fail("Winsock: " + error_text(static_cast<DWORD>(result)));
  return ok();
}

class Socket {
 public:
  Socket(int family, int type) : socket_(::socket(family, type, 0)) {}
  ~Socket() {
    if (socket_ != INVALID_SOCKET) closesocket(socket_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  SOCKET get() const { return socket_; }
  bool valid() const { return socket_ != INVALID_SOCKET; }

 private:
  SOCKET socket_;
};

WindowsIfRow row_of(const MIB_IF_ROW2& mib) {
  WindowsIfRow row;
  row.alias = utf8(mib.Alias);
  row.description = utf8(mib.Description);
  wchar_t luid_name[NDIS_IF_MAX_STRING_SIZE + 1] = {};
  if (ConvertInterfaceLuidToNameW(&mib.InterfaceLuid, luid_name, NDIS_IF_MAX_STRING_SIZE + 1) ==
      NO_ERROR)
    row.luid_name = utf8(luid_name);
  row.mtu = mib.Mtu;
  row.transmit_bps = mib.TransmitLinkSpeed;
  row.receive_bps = mib.ReceiveLinkSpeed;
  row.if_type = mib.Type;
  row.physical_medium = static_cast<std::uint32_t>(mib.PhysicalMediumType);
  row.hardware_interface = mib.InterfaceAndOperStatusFlags.HardwareInterface;
  row.filter_interface = mib.InterfaceAndOperStatusFlags.FilterInterface;
  row.connector_present = mib.InterfaceAndOperStatusFlags.ConnectorPresent;
  row.oper_status = static_cast<std::uint32_t>(mib.OperStatus);
  return row;
}

Expected<std::vector<WindowsIfRow>> interface_rows() {
  MIB_IF_TABLE2* table = nullptr;
  if (const DWORD status = GetIfTable2(&table); status != NO_ERROR)
    return fail("GetIfTable2: " + error_text(status));
  std::unique_ptr<MIB_IF_TABLE2, decltype(&FreeMibTable)> owned(table, FreeMibTable);
  std::vector<WindowsIfRow> rows;
  for (ULONG i = 0; i < table->NumEntries; ++i) rows.push_back(row_of(table->Table[i]));
  return rows;
}

// SIO_QUERY_RSS_SCALABILITY_INFO on a UDP socket: whether the stack spreads receives (RSS).
Expected<bool> rss_enabled() {
  if (Status started = start_winsock(); !started) return started.error();
  Socket socket(AF_INET, SOCK_DGRAM);
  if (!socket.valid())
    return fail("no socket to ask SIO_QUERY_RSS_SCALABILITY_INFO: " +
                error_text(static_cast<DWORD>(WSAGetLastError())));
  RssScalabilityInfo info{};
  DWORD returned = 0;
  if (WSAIoctl(socket.get(), SIO_QUERY_RSS_SCALABILITY_INFO, nullptr, 0, &info, sizeof info,
               &returned, nullptr, nullptr) != 0)
    return fail("SIO_QUERY_RSS_SCALABILITY_INFO: " +
                error_text(static_cast<DWORD>(WSAGetLastError())));
  if (returned < sizeof info) return fail("SIO_QUERY_RSS_SCALABILITY_INFO answered nothing");
  return info.rss_enabled != 0;
}

// The alias (FriendlyName) of the adapter holding `local`, or "".
std::string interface_holding(const sockaddr_storage& local) {
  const ULONG flags = GAA_FLAG_SKIP_ANYCAST | GAA_FLAG_SKIP_MULTICAST | GAA_FLAG_SKIP_DNS_SERVER;
  ULONG size = 16 * 1024;
  std::vector<unsigned char> buffer;
  ULONG status = ERROR_BUFFER_OVERFLOW;
  for (int attempt = 0; attempt < 3 && status == ERROR_BUFFER_OVERFLOW; ++attempt) {
    buffer.resize(size);  // an adapter added between two calls needs one more try
    status = GetAdaptersAddresses(AF_UNSPEC, flags, nullptr,
                                  reinterpret_cast<IP_ADAPTER_ADDRESSES*>(buffer.data()), &size);
  }
  if (status != NO_ERROR) return {};
  for (auto* adapter = reinterpret_cast<IP_ADAPTER_ADDRESSES*>(buffer.data()); adapter != nullptr;
       adapter = adapter->Next) {
    for (IP_ADAPTER_UNICAST_ADDRESS* address = adapter->FirstUnicastAddress; address != nullptr;
         address = address->Next) {
      if (same_host_address(address->Address.lpSockaddr, local)) return utf8(adapter->FriendlyName);
    }
  }
  return {};
}

}  // namespace

Expected<NicInfo> discover_nic(const std::string& ifname) {
  Expected<std::vector<WindowsIfRow>> rows = interface_rows();
  if (!rows) return fail(fmt::format("cannot list network interfaces: {}", rows.error().message));
  // The adapter's own row before the rows filter drivers stack on it under the same name.
  const WindowsIfRow* found = nullptr;
  for (const WindowsIfRow& row : *rows) {
    if (names_interface(row, ifname) && (found == nullptr || found->filter_interface)) found = &row;
  }
  if (found == nullptr) return fail(fmt::format("no network interface '{}'", ifname));
  return nic_info_from_row(*found, rss_enabled());
}

std::vector<std::string> device_interfaces() {
  std::vector<std::string> names;
  if (Expected<std::vector<WindowsIfRow>> rows = interface_rows()) {
    for (const WindowsIfRow& row : *rows) {
      if (is_device_interface(row)) names.push_back(row.alias);
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

bool is_loopback_interface(const std::string& ifname) {
  Expected<std::vector<WindowsIfRow>> rows = interface_rows();
  return rows && std::any_of(rows->begin(), rows->end(), [&](const WindowsIfRow& row) {
           return row.if_type == kIfTypeSoftwareLoopback && names_interface(row, ifname);
         });
}

Expected<std::string> interface_toward(const std::string& address) {
  if (Status started = start_winsock(); !started) return started.error();
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (int error = getaddrinfo(address.c_str(), "9", &hints, &found); error != 0)
    return fail(
        fmt::format("cannot resolve '{}': {}", address, error_text(static_cast<DWORD>(error))));
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owned(found, freeaddrinfo);
  sockaddr_storage target{};
  std::memcpy(&target, found->ai_addr, std::min(sizeof target, found->ai_addrlen));
  if (std::string local = interface_holding(target); !local.empty()) return local;
  Socket socket(found->ai_family, SOCK_DGRAM);
  if (!socket.valid())
    return fail(fmt::format("no socket to find the route: {}",
                            error_text(static_cast<DWORD>(WSAGetLastError()))));
  // A UDP connect only chooses the route and the local address; nothing is sent.
  if (connect(socket.get(), found->ai_addr, static_cast<int>(found->ai_addrlen)) != 0)
    return fail(fmt::format("no route to {}: {}", address,
                            error_text(static_cast<DWORD>(WSAGetLastError()))));
  sockaddr_storage local{};
  int length = sizeof local;
  if (getsockname(socket.get(), reinterpret_cast<sockaddr*>(&local), &length) != 0)
    return fail(fmt::format("no local address toward {}: {}", address,
                            error_text(static_cast<DWORD>(WSAGetLastError()))));
  std::string name = interface_holding(local);
  if (name.empty()) return fail(fmt::format("no interface holds the address toward {}", address));
  return name;
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
