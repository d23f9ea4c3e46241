// -V's settings block of the NTTTCP-for-Linux console, as one view of the spec's field table:
// every field that carries a LinuxEcho rule (spec_fields.hh) gives its line, in FlagsLine order.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/report/linux_console.hh"
#include "engine/report/spec_fields.hh"

namespace xttcp {

namespace {

// The value's text, or nothing when the rule shows no line for it.
struct EchoText {
  const LinuxEcho& rule;

  std::optional<std::string> operator()(bool on) const {
    if (rule.only_when_set && !on) return std::nullopt;
    return std::string(on ? rule.yes : rule.no);
  }
  std::optional<std::string> operator()(const std::string& text) const {
    return unless_unset(text.empty(), [&] { return text; });
  }
  template <class T>
  requires std::is_arithmetic_v<T> std::optional<std::string>
  operator()(T value) const {
    return unless_unset(value == 0, [&] { return fmt::format("{}", value); });
  }
  template <class T>
  std::optional<std::string> operator()(const std::optional<T>& value) const {
    return unless_unset(!value, [&] { return fmt::format("{}", *value); });  // set: even 0
  }
  std::optional<std::string> operator()(Protocol protocol) const { return to_string(protocol); }
  std::optional<std::string> operator()(Role role) const {
    return std::string(role == Role::local
                           ? "*** local role (receiver and sender in one process, loopback)"
                       : role == Role::sender ? "*** sender role"
                                              : "*** receiver role");
  }

  template <class Text>
  std::optional<std::string> unless_unset(bool unset, Text text) const {
    if (!unset) return text();
    if (rule.only_when_set) return std::nullopt;
    return rule.unset != nullptr ? std::string(rule.unset) : text();
  }
};

class FlagsView {
 public:
  FlagsView(const TestSpec& spec, bool sender) : spec_(spec), sender_(sender) {}

  template <class T>
  void operator()(const char*, const T&) {}
  template <class T, class... Echo>
  void operator()(const char*, const T& value, const LinuxEcho& rule, const Echo&... more) {
    add(value, rule);
    (add(value, more), ...);
  }
  void present(bool) {}
  template <class T>
  void when(bool, const char*, const T&) {}
  template <class Fields>
  void object_when(bool, const char*, Fields) {}

  std::vector<std::string> lines() {
    std::stable_sort(lines_.begin(), lines_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (auto& [line, text] : lines_) out.push_back(std::move(text));
    return out;
  }

 private:
  template <class T>
  void add(const T& value, const LinuxEcho& rule) {
    if (rule.side == LinuxEcho::Side::sender && !sender_) return;
    if (rule.side == LinuxEcho::Side::receiver && sender_) return;
    std::optional<std::string> text = EchoText{rule}(value);
    if (!text) return;
    if (rule.text != nullptr) text = rule.text(spec_);
    lines_.emplace_back(rule.line, rule.label + *text);
  }

  const TestSpec& spec_;
  bool sender_;
  std::vector<std::pair<FlagsLine, std::string>> lines_;
};

}  // namespace

std::vector<std::string> linux_flags_lines(const TestSpec& spec) {
  // --local shows the sender's view: it is the side that connects and reports connections.
  FlagsView view(spec, spec.is_sender() || spec.role == Role::local);
  spec_table::spec_fields(spec, view);
  std::vector<std::string> lines = view.lines();
  lines.emplace_back(linux_separator);
  return lines;
}

}  // namespace xttcp
