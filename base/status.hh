// Error-or-value results for the control path (C++20 has no std::expected).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace xttcp {

// One human-readable line: what failed and, where known, why.
struct Error {
  std::string message;
};

template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Expected(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

using Status = Expected<std::monostate>;

inline Status ok() { return std::monostate{}; }
inline Error fail(std::string message) { return Error{std::move(message)}; }

}  // namespace xttcp
