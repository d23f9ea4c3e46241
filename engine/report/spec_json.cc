#include "engine/report/spec_json.hh"

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "engine/report/json_fields.hh"

namespace xttcp {

namespace {

using namespace json_fields;  // NOLINT: this file is one of their two users
using ordered_json = nlohmann::ordered_json;

// ---- the table -----------------------------------------------------------------------------
// Every key of the spec, in the order it is written. `v` is a Writer or a Reader (below): one
// list of fields gives both directions. The keys are flat, as format 1 has them (the parts of
// TestSpec are not in the JSON); the NTttcp-for-Windows options sit under "windows" with that
// grammar's names (docs/native-json.md).
template <class Spec, class Visitor>
void windows_fields(Spec& s, Visitor& v) {
  v("mappings", s.layout.mappings);
  v("async_buffers", s.io.outstanding);
  v("socket_recv_buffer", s.io.socket_recv_buffer);
  v("socket_send_buffer", s.io.socket_send_buffer);
  v("send_buffer_implied", s.io.send_buffer_implied);
  v("buffer_count", s.workload.buffer_count);
  v("count_timeout_s", s.workload.count_timeout_s);
  v("wait_timeout_ms", s.io.wait_timeout_ms);
  v("sync_port", s.control.port_assignment);
  v("sample_s", s.output.sample_s);
  v("numa_node", s.layout.numa_node);
  v("hide_per_thread", s.output.hide_per_thread);
  v("latency_measurement", s.io.time_each_call);
  v("verify_data", s.workload.verify_data);
  v("udp_unconnected", s.io.udp_unconnected);
  v("wait_all", s.io.wait_all);
  v("wsa", s.accepted.wsa);
  v("throttle_kBps", s.workload.thread_rate_kBps);
  v("udp_send_offload", s.io.udp_send_offload);
  v("udp_receive_coalescing", s.io.udp_receive_coalescing);
  v("no_stdio_buffer", s.accepted.no_stdio_buffer);
  v("xml_append", s.output.xml_append);
}

template <class Spec, class Visitor>
void spec_fields(Spec& s, Visitor& v) {
  v("role", s.role);
  v("address", s.layout.address);
  v("protocol", s.workload.protocol);
  v("ipv6", s.layout.ipv6);
  v("ports", s.layout.ports);
  v("threads_per_port", s.layout.threads_per_port);
  v("conns_per_thread", s.layout.conns_per_thread);
  v("base_port", s.layout.base_port);
  v("source_base_port", s.layout.source_base_port);
  v("source_address", s.layout.source_address);
  v("mapping_cpu", s.layout.mapping_cpu);
  v("mapping_text", s.layout.mapping_text);
  v("send_buffer", s.workload.send_buffer);
  v("recv_buffer", s.workload.recv_buffer);
  v("rate_limit_bps", s.workload.rate_limit_bps);
  v("fq_rate_limit_bps", s.workload.fq_rate_limit_bps);
  v("no_delay", s.io.no_delay);
  v("warmup_s", s.workload.warmup_s);
  v("duration_s", s.workload.duration_s);
  v("cooldown_s", s.workload.cooldown_s);
  v("no_sync", s.control.no_sync);
  v("multi_clients", s.control.multi_clients);
  v("last_client", s.control.last_client);
  v("hold", s.control.hold);
  v("daemonize", s.control.daemonize);
  v("use_epoll", s.accepted.use_epoll);
  v("log_file", s.output.log_file);
  v("xml_file", s.output.xml_file);
  v("json_file", s.output.json_file);
  v("quiet", s.output.quiet);
  v("verbose", s.output.verbose);
  v("show_tcp_retrans", s.output.show_tcp_retrans);
  v("show_nic_packets", s.output.show_nic_packets);
  v("show_dev_interrupts", s.output.show_dev_interrupts);
  v("backend", s.backend);
  v("native_json_file", s.output.native_json_file);
  v("interval_s", s.output.interval_s);
  v("worker_threads", s.layout.worker_threads);
  v("pin_workers", s.layout.pin_workers);
  v("placement", s.placement.mode);
  v("nic", s.placement.nic);
  v("zerocopy", s.io.zerocopy);
  v("skip_rx_copy", s.io.skip_rx_copy);
  v("congestion", s.io.congestion);
  v("busy_poll_us", s.io.busy_poll_us);
  v("receive_mark", s.io.receive_mark);
  v("sqpoll", s.uring.sqpoll);
  v("udp_payload", s.workload.udp_payload);
  v("udp_gso", s.io.udp_gso);
  v("udp_gro", s.io.udp_gro);
  v("dpdk_args", s.dpdk.args);
  v("dpdk_port", s.dpdk.port);
  v("peer_mac", s.dpdk.peer_mac);
  v("connect_timeout_s", s.control.connect_timeout_s);
  v("wait_timeout_s", s.control.wait_timeout_s);
  // Written only when they say something: a list given, a Windows command line.
  v.when(!s.layout.source_addresses.empty(), "source_addresses", s.layout.source_addresses);
  v.object_when(s.access.restricted(), "access", [&](auto& inner) {
    inner("allow", s.access.allow);
    inner("max_clients", s.access.max_clients);
  });
  v.object_when(s.rr.on, "rr", [&](auto& inner) {
    inner.present(s.rr.on);  // the block's presence is --rr itself
    inner("depth", s.rr.depth);
    inner("response_size", s.rr.response_size);
    inner("delay_us", s.rr.delay_us);
  });
  v.object_when(s.repeat.count > 1, "repeat", [&](auto& inner) {
    inner("count", s.repeat.count);
    inner("pause_s", s.repeat.pause_s);
  });
  const bool windows = s.dialect == Dialect::windows;
  v.when(windows, "dialect", s.dialect);
  v.object_when(windows, "windows", [&](auto& inner) { windows_fields(s, inner); });
}

// ---- enums as text -------------------------------------------------------------------------
// In the order a refusal lists them.
template <class E>
struct EnumNames;
template <>
struct EnumNames<Role> {
  static constexpr std::array<std::pair<Role, const char*>, 3> names{
      {{Role::receiver, "receiver"}, {Role::sender, "sender"}, {Role::local, "local"}}};
};
template <>
struct EnumNames<Protocol> {
  static constexpr std::array<std::pair<Protocol, const char*>, 2> names{
      {{Protocol::tcp, "tcp"}, {Protocol::udp, "udp"}}};
};
template <>
struct EnumNames<ZeroCopy> {
  static constexpr std::array<std::pair<ZeroCopy, const char*>, 3> names{
      {{ZeroCopy::on, "on"}, {ZeroCopy::off, "off"}, {ZeroCopy::automatic, "auto"}}};
};
template <>
struct EnumNames<PlacementMode> {
  static constexpr std::array<std::pair<PlacementMode, const char*>, 5> names{
      {{PlacementMode::spread, "spread"}, {PlacementMode::numa, "numa"},
       {PlacementMode::irq, "irq"}, {PlacementMode::irq_sibling, "irq-sibling"},
       {PlacementMode::avoid_irq, "avoid-irq"}}};
};
template <>
struct EnumNames<UdpPayload> {
  static constexpr std::array<std::pair<UdpPayload, const char*>, 3> names{
      {{UdpPayload::automatic, "auto"}, {UdpPayload::native, "native"},
       {UdpPayload::compat, "compat"}}};
};
template <>
struct EnumNames<Dialect> {
  static constexpr std::array<std::pair<Dialect, const char*>, 2> names{
      {{Dialect::linux, "linux"}, {Dialect::windows, "windows"}}};
};

template <class E>
const char* enum_name(E value) {
  for (const auto& [e, name] : EnumNames<E>::names)
    if (e == value) return name;
  return "?";
}

// "expected \"a\", \"b\" or \"c\""
template <class E>
std::string enum_rule() {
  const auto& names = EnumNames<E>::names;
  std::string rule = "expected ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) rule += i + 1 == names.size() ? " or " : ", ";
    rule += fmt::format("\"{}\"", names[i].second);
  }
  return rule;
}

// ---- writing -------------------------------------------------------------------------------

ordered_json encode(bool v) { return v; }
ordered_json encode(const std::string& v) { return v; }
ordered_json encode(double v) { return number(v); }
template <class T>
  requires std::is_integral_v<T>
ordered_json encode(T v) {
  return v;
}
template <class E>
  requires std::is_enum_v<E>
ordered_json encode(E v) {
  return enum_name(v);
}
template <class T>
ordered_json encode(const std::optional<T>& v) {
  return v ? encode(*v) : ordered_json(nullptr);
}
ordered_json encode(const std::vector<std::string>& v) { return v; }
ordered_json encode(const std::vector<ThreadMapping>& mappings) {
  ordered_json out = ordered_json::array();
  for (const ThreadMapping& m : mappings)
    out.push_back({{"threads", m.threads}, {"cpu", encode(m.cpu)}, {"host", m.host}});
  return out;
}

struct Writer {
  ordered_json& j;
  void present(bool) {}  // a block's presence is written by object_when
  template <class T>
  void operator()(const char* key, const T& value) {
    j[key] = encode(value);
  }
  template <class T>
  void when(bool write, const char* key, const T& value) {
    if (write) (*this)(key, value);
  }
  template <class Fields>
  void object_when(bool write, const char* key, Fields fields) {
    if (!write) return;
    ordered_json inner = ordered_json::object();
    Writer writer{inner};
    fields(writer);
    j[key] = std::move(inner);
  }
};

// ---- reading -------------------------------------------------------------------------------

template <class Json>
struct Reader {
  const Json& j;
  std::string path;  // "spec", "spec.windows"

  template <class T>
  void operator()(const char* key, T& out) {
    if constexpr (std::is_enum_v<T>) {
      if (member(j, key) == nullptr) return;
      std::string text;
      read(j, key, text, path);
      for (const auto& [e, name] : EnumNames<T>::names) {
        if (text == name) {
          out = e;
          return;
        }
      }
      bad(path + "." + key, enum_rule<T>().c_str());
    } else {
      read(j, key, out, path);
    }
  }
  void operator()(const char* key, std::vector<std::string>& out) {
    const Json* list = member(j, key);
    if (list == nullptr) return;
    if (!list->is_array()) bad(path + "." + key, "expected an array");
    out.clear();
    for (const Json& item : *list) {
      if (!item.is_string()) bad(path + "." + key + "[]", "expected a string");
      out.push_back(item.template get<std::string>());
    }
  }
  void operator()(const char* key, std::vector<ThreadMapping>& out) {
    const Json* mappings = member(j, key);
    if (mappings == nullptr) return;
    const std::string at = path + "." + key;
    if (!mappings->is_array()) bad(at, "expected an array");
    for (const Json& m : *mappings) {
      if (!m.is_object()) bad(at + "[]", "expected an object");
      ThreadMapping mapping;
      read(m, "threads", mapping.threads, at + "[]");
      read(m, "cpu", mapping.cpu, at + "[]");
      read(m, "host", mapping.host, at + "[]");
      out.push_back(std::move(mapping));
    }
  }
  void present(bool& flag) { flag = true; }  // the block was there
  template <class T>
  void when(bool, const char* key, T& out) {  // present = read, whatever the condition
    (*this)(key, out);
  }
  template <class Fields>
  void object_when(bool, const char* key, Fields fields) {
    if (const Json* inner = object_member(j, key, path)) {
      Reader<Json> reader{*inner, path + "." + key};
      fields(reader);
    }
  }
};

template <class Json>
TestSpec read_spec_from(const Json& j) {
  if (!j.is_object()) bad("spec", "expected an object");
  TestSpec s;
  Reader<Json> reader{j, "spec"};
  spec_fields(s, reader);
  return s;
}

}  // namespace

nlohmann::ordered_json spec_to_json(const TestSpec& s) {
  ordered_json j = ordered_json::object();
  Writer writer{j};
  spec_fields(s, writer);
  return j;
}

Expected<TestSpec> spec_from_json(const nlohmann::json& j) {
  try {
    return read_spec_from(j);
  } catch (const BadField& e) {
    return fail("spec JSON: " + e.message);
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("spec JSON: ") + e.what());
  }
}

TestSpec json_fields::read_spec(const nlohmann::ordered_json& j) { return read_spec_from(j); }

}  // namespace xttcp
