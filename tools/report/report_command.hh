// `xttcp report`: runs the page's generator (xttcp_report.py, installed beside the program's
// data) with this program for its comparisons, bounded in time, and writes the page whole or not
// at all (write_file_atomically). Linux: report_command_linux.cc; Windows says it cannot.
#pragma once

#include "tools/report/report_args.hh"

namespace xttcp {

// The process's exit code: 0 written, 2 usage or an input that is not a result, 1 otherwise.
int run_report(const ReportRequest& request);

}  // namespace xttcp
