// --defaults xttcp|ntttcp: whose defaults a run starts from (engine/spec.hh, Defaults), and the
// original's names that choose ntttcp's (docs/differences.md, "Defaults").
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hh"
#include "engine/spec.hh"

namespace xttcp {

// ntttcp, ntttcp.exe, ntttcps[.exe], ntttcpr[.exe] (any case, any directory): the program was
// installed or invoked under the original's name, so frameworks comparing with years of NTttcp
// results get the original's work unless they ask for --defaults xttcp.
bool invoked_as_original(std::string_view program_name);

// Adds "--defaults=ntttcp" to a run's words when the name is the original's and the line does
// not say --defaults itself. A line that starts with a command (subcommands.hh) is left alone:
// commands have no data path.
void add_implied_defaults(std::string_view program_name, std::vector<std::string>& args);

// The --defaults row's value ("xttcp" or "ntttcp").
Expected<Defaults> parse_defaults_name(std::string_view value);

// Applies spec.defaults: with ntttcp, the receiver copies into user space (--skip-rx-copy off),
// UDP goes one datagram per send (--udp-gso off, no sendmmsg batches), UDP receives are not
// coalesced (--udp-gro off) and auto becomes the plain socket path (epoll; Windows builds keep
// theirs). A field whose option is on the line keeps the line's value: `given` says whether a
// long option was used, so option order never matters.
void apply_defaults_profile(TestSpec& spec, const std::function<bool(std::string_view)>& given);

}  // namespace xttcp
