// Windows: the page's plots come from matplotlib, which an xttcp.exe cannot count on.
#include <cstdio>

#include "base/exit_codes.hh"
#include "tools/report/report_command.hh"

namespace xttcp {

int run_report(const ReportRequest&) {
  std::fputs(
      "xttcp: report: not on Windows (its plots need python3-matplotlib); copy the --json files "
      "to a Linux machine and run 'xttcp report' there\n",
      stderr);
  return exit_code::run_failed;
}

}  // namespace xttcp
