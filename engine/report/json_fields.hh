// The JSON field readers and writers xttcp's own JSON shares: the result (native_json.cc) and
// the spec (spec_json.cc). Readers throw BadField, which the public functions of those two
// files turn into an Error naming the field; nothing else sees it.
#pragma once

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

namespace xttcp::json_fields {

using ordered_json = nlohmann::ordered_json;

// Non-finite numbers (a probe that divided by zero) are written as null, read back as 0.
inline ordered_json number(double v) {
  return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr);
}

template <class T>
ordered_json optional_value(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

// ---- reading -------------------------------------------------------------------------------

struct BadField {
  std::string message;
};

[[noreturn]] inline void bad(const std::string& path, const char* rule) {
  throw BadField{fmt::format("{}: {}", path, rule)};
}

template <class Json>
const Json* member(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

template <class Json, class T>
void read(const Json& obj, const char* key, T& out, const std::string& parent) {
  const Json* v = member(obj, key);
  if (v == nullptr) return;  // absent: keep the default
  const std::string path = parent.empty() ? key : parent + "." + key;
  if constexpr (std::is_same_v<T, bool>) {
    if (!v->is_boolean()) bad(path, "expected true or false");
    out = v->template get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v->is_string()) bad(path, "expected a string");
    out = v->template get<std::string>();
  } else if constexpr (std::is_same_v<T, double>) {
    if (v->is_null()) {
      out = 0;
    } else if (v->is_number()) {
      out = v->template get<double>();
    } else {
      bad(path, "expected a number");
    }
  } else if constexpr (std::is_unsigned_v<T>) {
    if (!v->is_number_unsigned()) bad(path, "expected a non-negative integer");
    uint64_t n = v->template get<uint64_t>();
    if (n > std::numeric_limits<T>::max()) bad(path, "value out of range");
    out = static_cast<T>(n);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    if (!v->is_number_integer()) bad(path, "expected an integer");
    out = v->template get<int64_t>();
  } else if constexpr (std::is_same_v<T, int>) {
    if (!v->is_number_integer()) bad(path, "expected an integer");
    int64_t n = v->template get<int64_t>();
    if (n < std::numeric_limits<int>::min() || n > std::numeric_limits<int>::max()) {
      bad(path, "value out of range");
    }
    out = static_cast<int>(n);
  } else {
    static_assert(sizeof(T) == 0, "no reader for this type");
  }
}

// null or absent = nullopt.
template <class Json, class T>
void read(const Json& obj, const char* key, std::optional<T>& out, const std::string& parent) {
  const Json* v = member(obj, key);
  if (v == nullptr || v->is_null()) {
    out.reset();
    return;
  }
  T value{};
  read(obj, key, value, parent);
  out = std::move(value);
}

template <class Json>
const Json* object_member(const Json& obj, const char* key, const std::string& parent) {
  const Json* v = member(obj, key);
  if (v != nullptr && !v->is_object())
    bad(parent.empty() ? key : parent + "." + key, "expected an object");
  return v;
}

template <class Json>
const Json* array_member(const Json& obj, const char* key) {
  const Json* v = member(obj, key);
  if (v != nullptr && !v->is_array()) bad(key, "expected an array");
  return v;
}

}  // namespace xttcp::json_fields
