#include "engine/rss/rss_json.hh"

#include <fmt/format.h>

#include <fstream>
#include <iterator>

#include "base/hex.hh"
#include "engine/control/sync_codes.hh"
#include "engine/report/bounded_json.hh"

namespace xttcp {

namespace {

constexpr std::size_t kMaxFileBytes = 256 * 1024;

Expected<std::vector<std::uint8_t>> unhex(const std::string& text) {
  if (text.size() > 2 * rss_limits::max_key_bytes || text.empty() || text.size() % 2 != 0)
    return fail(fmt::format("rss.key: {} hex digits; an even number, 2 to {}", text.size(),
                            2 * rss_limits::max_key_bytes));
  std::optional<std::vector<std::uint8_t>> bytes = bytes_from_hex(text);
  if (!bytes) return fail("rss.key: not hexadecimal");
  return std::move(*bytes);
}

// A short string member: printable ASCII only (it reaches the console and the result).
Expected<std::string> short_text(const nlohmann::ordered_json& value, const std::string& name) {
  if (!value.is_string()) return fail(name + ": not a string");
  const std::string& text = value.get_ref<const std::string&>();
  if (text.size() > rss_limits::max_fields_text)
    return fail(fmt::format("{}: {} characters; at most {}", name, text.size(),
                            rss_limits::max_fields_text));
  for (char c : text)
    if (c < 0x20 || c > 0x7e) return fail(name + ": not printable text");
  return text;
}

Expected<std::uint32_t> small_count(const nlohmann::ordered_json& value, const std::string& name,
                                    std::uint64_t max) {
  if (!value.is_number_unsigned() || value.get<std::uint64_t>() > max)
    return fail(fmt::format("{}: not a whole number 0 to {}", name, max));
  return static_cast<std::uint32_t>(value.get<std::uint64_t>());
}

const nlohmann::ordered_json* member(const nlohmann::ordered_json& object, const char* name) {
  const auto found = object.find(name);
  return found == object.end() ? nullptr : &*found;
}

}  // namespace

std::string rss_key_hex(const std::vector<std::uint8_t>& key) { return hex_text(key); }

Expected<std::vector<std::uint8_t>> rss_key_from_hex(const std::string& text) {
  return unhex(text);
}

nlohmann::ordered_json rss_to_json(const Expected<RssDescription>& rss) {
  if (!rss) return {{"not_available", rss.error().message}};
  nlohmann::ordered_json out;
  out["nic"] = rss->nic;
  out["hash_function"] = rss->hash_function;
  out["key"] = hex_text(rss->key);
  out["queues"] = rss->queues;
  out["indirection"] = rss->indirection;
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
  for (const auto& [type, words] : rss->hash_fields) fields[type] = words;
  out["hash_fields"] = fields;
  nlohmann::ordered_json ports = nlohmann::ordered_json::array();
  for (const auto& [port, queue] : rss->port_queues) ports.push_back({port, queue});
  out["port_queues"] = ports;
  return out;
}

Expected<RssDescription> rss_from_json(const nlohmann::ordered_json& object) {
  if (!object.is_object()) return fail("rss: not an object");
  RssDescription rss;
  const auto* nic = member(object, "nic");
  const auto* function = member(object, "hash_function");
  const auto* key = member(object, "key");
  const auto* queues = member(object, "queues");
  const auto* table = member(object, "indirection");
  if (key == nullptr || queues == nullptr || table == nullptr)
    return fail("rss: needs key, queues and indirection");
  if (nic != nullptr) {
    auto text = short_text(*nic, "rss.nic");
    if (!text) return text.error();
    rss.nic = *text;
  }
  if (function != nullptr) {
    auto text = short_text(*function, "rss.hash_function");
    if (!text) return text.error();
    rss.hash_function = *text;
  }
  if (!key->is_string()) return fail("rss.key: not a string of hex digits");
  auto key_bytes = unhex(key->get_ref<const std::string&>());
  if (!key_bytes) return key_bytes.error();
  rss.key = std::move(*key_bytes);
  auto queue_count = small_count(*queues, "rss.queues", rss_limits::max_queues);
  if (!queue_count) return queue_count.error();
  rss.queues = *queue_count;
  if (!table->is_array() || table->size() > rss_limits::max_table)
    return fail(
        fmt::format("rss.indirection: not an array of at most {} queues", rss_limits::max_table));
  for (const auto& entry : *table) {
    auto queue = small_count(entry, "rss.indirection", rss_limits::max_queues);
    if (!queue) return queue.error();
    rss.indirection.push_back(*queue);
  }
  if (const auto* fields = member(object, "hash_fields")) {
    if (!fields->is_object() || fields->size() > 4)
      return fail("rss.hash_fields: not an object of at most 4 flow types");
    for (const auto& [type, words] : fields->items()) {
      if (type.size() > 8) return fail("rss.hash_fields: not one of tcp4, udp4, tcp6, udp6");
      auto text = short_text(words, "rss.hash_fields." + type);
      if (!text) return text.error();
      rss.hash_fields.emplace_back(type, *text);
    }
  }
  if (const auto* ports = member(object, "port_queues")) {
    if (!ports->is_array() || ports->size() > rss_limits::max_port_queues)
      return fail(fmt::format("rss.port_queues: not an array of at most {} [port, queue] pairs",
                              rss_limits::max_port_queues));
    for (const auto& pair : *ports) {
      if (!pair.is_array() || pair.size() != 2) return fail("rss.port_queues: not [port, queue]");
      auto port = small_count(pair[0], "rss.port_queues port", 65535);
      if (!port) return port.error();
      auto queue = small_count(pair[1], "rss.port_queues queue", rss_limits::max_queues);
      if (!queue) return queue.error();
      rss.port_queues.emplace_back(static_cast<std::uint16_t>(*port), *queue);
    }
  }
  if (Status checked = check_rss_description(rss); !checked) return checked.error();
  return rss;
}

Expected<PeerRss> read_peer_rss(const std::string& receiver_hello) {
  auto hello = parse_bounded_json(receiver_hello, {sync_code::kMaxHelloBytes, 16}, "hello");
  if (!hello) return hello.error();
  if (!hello->is_object()) return fail("the hello is not a JSON object");
  PeerRss out;
  const auto* rss = member(*hello, "rss");
  if (rss == nullptr) {
    out.why_none = "the receiver's xttcp sends no RSS description (an older version)";
    return out;
  }
  if (rss->is_object()) {
    if (const auto* why = member(*rss, "not_available"); why != nullptr && rss->size() == 1) {
      if (!why->is_string() || why->get_ref<const std::string&>().size() > 512)
        return fail("rss.not_available: not a string of at most 512 characters");
      std::string text;
      for (char c : why->get_ref<const std::string&>()) text += (c < 0x20 || c > 0x7e) ? '?' : c;
      out.why_none = "the receiver has no RSS description: " + text;
      return out;
    }
  }
  auto description = rss_from_json(*rss);
  if (!description) return description.error();
  out.rss = std::move(*description);
  return out;
}

Expected<RssDescription> read_rss_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(fmt::format("cannot read {}", path));
  std::string text;
  char buffer[4096];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes)
      return fail(fmt::format("{}: larger than {} bytes", path, kMaxFileBytes));
  }
  auto json = parse_bounded_json(text, {kMaxFileBytes, 4}, path);
  if (!json) return json.error();
  auto rss = rss_from_json(*json);
  if (!rss) return fail(fmt::format("{}: {}", path, rss.error().message));
  if (rss->nic.empty()) rss->nic = "file " + path;
  return rss;
}

}  // namespace xttcp
