// Typed binders: an option row's `apply` (option_table.hh) made from the TestSpec field it
// writes and how its value reads, so a dialect's table names the field and the parser instead of
// a hand-written setter. A binder is an ApplyFn, one plain function per (field, parser) pair:
//
//   {'H', "", none, "", for_receiver, ..., bind::flag<&Control::hold>}
//   {'t', "", required, "SEC", ..., bind::parsed<&Workload::duration_s, whole_seconds>}
//
// The row keeps its names, value kind, roles and help text, which the parser, the help text and
// tools/docgen (man page, completion) read. An option whose value interacts with the state beyond
// one field (a note, two fields, the role) keeps a setter of its own. Any dialect may use these.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "base/status.hh"
#include "base/units.hh"
#include "tools/cli/parse_state.hh"

namespace xttcp::bind {

// Where each part of TestSpec sits, so a field is named by its member pointer alone
// (&Control::hold).
constexpr auto part(const Workload*) { return &TestSpec::workload; }
constexpr auto part(const Layout*) { return &TestSpec::layout; }
constexpr auto part(const IoOptions*) { return &TestSpec::io; }
constexpr auto part(const Control*) { return &TestSpec::control; }
constexpr auto part(const Output*) { return &TestSpec::output; }
constexpr auto part(const UringOptions*) { return &TestSpec::uring; }
constexpr auto part(const DpdkOptions*) { return &TestSpec::dpdk; }
constexpr auto part(const AcceptedOptions*) { return &TestSpec::accepted; }
constexpr auto part(const PlacementSpec*) { return &TestSpec::placement; }
constexpr auto part(const AccessSpec*) { return &TestSpec::access; }
constexpr auto part(const RrSpec*) { return &TestSpec::rr; }
constexpr auto part(const RepeatOptions*) { return &TestSpec::repeat; }

template <class M>
struct MemberOf;
template <class C, class T>
struct MemberOf<T C::*> {
  using type = C;
};

// The field `Member` points to (&Control::hold, or &TestSpec::backend) in the state's spec. Any
// dialect's state with a spec() will do.
template <auto Member, class State>
auto& field(State& state) {
  using Part = typename MemberOf<decltype(Member)>::type;
  if constexpr (std::is_same_v<Part, TestSpec>)
    return state.spec().*Member;
  else
    return state.spec().*part(static_cast<const Part*>(nullptr)).*Member;
}

// A string literal as a template argument (the "what" of a message).
template <std::size_t N>
struct Text {
  char value[N];
  constexpr Text(const char (&text)[N]) { std::copy_n(text, N, value); }  // NOLINT: implicit
};

// The option's value: the one word (getopt style) or the first of its words (NTttcp style).
inline const std::string& first_value(const std::optional<std::string>& value) { return *value; }
inline const std::string& first_value(const std::vector<std::string>& values) { return values[0]; }

// A flag: sets the field to `Value` (true unless said). A function template, so one row's binder
// fits any dialect's apply signature (its state and value types are deduced from the row).
template <auto Member, auto Value = true, class State, class Values>
Status flag(State& state, const Values&) {
  field<Member>(state) = Value;
  return ok();
}

// A required value read by `Parse` (Expected<T>(const std::string&)) into the field. The
// parser's error is the message (the caller prefixes the option's name).
template <auto Member, auto Parse, class State, class Values>
Status parsed(State& state, const Values& value) {
  auto read = Parse(first_value(value));
  if (!read) return read.error();
  field<Member>(state) = *read;
  return ok();
}

// An optional value read by `Parse` (Expected<T>(const std::optional<std::string>&)): the
// parser says what a bare option means.
template <auto Member, auto Parse>
Status parsed_optional(ParseState& state, const std::optional<std::string>& value) {
  auto read = Parse(value);
  if (!read) return read.error();
  field<Member>(state) = *read;
  return ok();
}

// A file name that may be left out: the one given, else `Default`.
template <auto Member, const char* const& Default>
Status file_or_default(ParseState& state, const std::optional<std::string>& value) {
  field<Member>(state) = value.value_or(Default);
  return ok();
}

// ---- parsers ------------------------------------------------------------------------------

// Text that is not empty and is not the next option: "the value is empty (expected WHAT)",
// "'-x' is not WHAT".
template <Text What>
Expected<std::string> non_empty(const std::string& text) {
  if (text.empty()) return fail(std::string("the value is empty (expected ") + What.value + ")");
  if (text[0] == '-') return fail("'" + text + "' is not " + What.value);
  return text;
}

// As non_empty, or "-" (standard output).
template <Text What>
Expected<std::string> file_or_dash(const std::string& text) {
  if (text == "-") return text;
  return non_empty<What>(text);
}

// A whole number up to `Max` (parse_count's rule and message) and at least `Min`, else
// `BelowMin`.
template <uint64_t Min, uint64_t Max, Text BelowMin>
Expected<uint32_t> count(const std::string& text) {
  static_assert(Max <= UINT32_MAX);
  auto n = parse_count(text, Max);
  if (!n) return n.error();
  if (*n < Min) return fail(BelowMin.value);
  return static_cast<uint32_t>(*n);
}

// Any text, as given.
inline Expected<std::string> as_is(const std::string& text) { return text; }

// "on" (or nothing) and "off".
inline Expected<bool> on_off(const std::optional<std::string>& value) {
  if (!value || *value == "on") return true;
  if (*value == "off") return false;
  return fail("'" + *value + "' is not one of on, off");
}

}  // namespace xttcp::bind
