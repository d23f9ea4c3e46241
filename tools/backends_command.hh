// `xttcp backends`: each I/O backend of this binary as a block (status, what it is, what was
// found, its capabilities wrapped to the terminal's usual 100 columns), then what
// --backend auto takes for TCP and for UDP and why it passed over the ones before it.
#pragma once

#include "engine/spec.hh"

namespace xttcp {

int print_backends(const TestSpec& options);

}  // namespace xttcp
