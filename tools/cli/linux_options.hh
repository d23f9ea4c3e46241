// The NTTTCP-for-Linux grammar's option table (getopt string
// "r::s::DMLeHm:P:a:n:l:6up:f::b:B:W:t:C:NO::x::j::QVh", its five long options) plus xttcp's
// native long options. Each row records its value in a ParseState; linux_dialect.cc applies the
// rules between options.
#pragma once

#include <span>

#include "tools/cli/option_table.hh"

namespace xttcp {

std::span<const OptionDef> linux_options();

// Longest accepted -W/-t/-C/--connect-timeout/--wait-timeout: one year, so W+t+C fits the
// sync protocol's signed 32-bit cycle.
inline constexpr uint64_t max_whole_seconds = 365ull * 24 * 3600;

}  // namespace xttcp
