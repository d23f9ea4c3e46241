#include "engine/report/spec_json.hh"

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "engine/report/json_fields.hh"
#include "engine/report/spec_fields.hh"

namespace xttcp {

namespace {

using namespace json_fields;  // NOLINT: this file is one of their two users
using spec_table::spec_fields;
using ordered_json = nlohmann::ordered_json;

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
struct EnumNames<Defaults> {
  static constexpr std::array<std::pair<Defaults, const char*>, 2> names{
      {{Defaults::xttcp, "xttcp"}, {Defaults::ntttcp, "ntttcp"}}};
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
      {{PlacementMode::spread, "spread"},
       {PlacementMode::numa, "numa"},
       {PlacementMode::irq, "irq"},
       {PlacementMode::irq_sibling, "irq-sibling"},
       {PlacementMode::avoid_irq, "avoid-irq"}}};
};
template <>
struct EnumNames<UdpPayload> {
  static constexpr std::array<std::pair<UdpPayload, const char*>, 5> names{
      {{UdpPayload::automatic, "auto"},
       {UdpPayload::native, "native"},
       {UdpPayload::compat, "compat"},
       {UdpPayload::iperf2, "iperf2"},
       {UdpPayload::iperf3, "iperf3"}}};
};
template <>
struct EnumNames<Dialect> {
  static constexpr std::array<std::pair<Dialect, const char*>, 4> names{
      {{Dialect::linux, "linux"},
       {Dialect::windows, "windows"},
       {Dialect::iperf2, "iperf2"},
       {Dialect::iperf3, "iperf3"}}};
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
requires std::is_integral_v<T> ordered_json encode(T v) { return v; }
template <class E>
requires std::is_enum_v<E> ordered_json encode(E v) { return enum_name(v); }
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
  template <class T, class... Echo>
  void operator()(const char* key, const T& value, const LinuxEcho&, const Echo&...) {
    (*this)(key, value);  // the -V block's view (linux_flags.cc)
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
  template <class T, class... Echo>
  void operator()(const char* key, T& out, const LinuxEcho&, const Echo&...) {
    (*this)(key, out);  // the -V block's view (linux_flags.cc)
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
