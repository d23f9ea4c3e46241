// The process exit codes xttcp documents (docs/usage.md, --help, xttcp(1)).
#pragma once

namespace xttcp::exit_code {
inline constexpr int success = 0;     // the test ran and every result was written
inline constexpr int run_failed = 1;  // the run failed (an error line says why)
inline constexpr int usage = 2;  // bad command line or option value; compare: inputs not comparable
inline constexpr int regression = 3;  // compare: the new runs regressed against the base
}  // namespace xttcp::exit_code
