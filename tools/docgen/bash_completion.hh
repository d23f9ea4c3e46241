// The bash completion script for xttcp, rendered from the option tables of both dialects: the
// option names, the words after --backend and --dialect, file names after FILE options, and
// the Windows dialect's options once the line says --dialect windows.
#pragma once

#include <string>

namespace xttcp {

std::string render_bash_completion();

}  // namespace xttcp
