// The rule for a TCP congestion control's name, shared by the dialects that take one (the Linux
// dialect's --congestion, iperf 2's -Z). Whether the kernel allows it is known only when a socket
// asks; the data path then names what it allows.
#pragma once

#include <string_view>

#include "base/status.hh"

namespace xttcp {

// A name the kernel could hold (TCP_CA_NAME_MAX is 16 with the NUL): 1..15 letters, digits, '_'
// or '-'. Error: "'NAME' is not an algorithm name (...)".
Status check_congestion_name(std::string_view name);

}  // namespace xttcp
