// What `xttcp report` hands its page generator (xttcp_report.py, on its stdin): the result files
// read and checked here, as compare reads them (read_result_file: size first, bounded parse,
// plausible figures), rewritten from the checked model, and each file's comparison with the
// first (compare_sets). The generator then reads no file and no field this side did not check.
#pragma once

#include <string>

#include "base/status.hh"
#include "tools/report/report_args.hh"

namespace xttcp {

// One JSON document: {"title", "files": [{"path", "runs": [result...]}], "comparisons":
// [{"path", "compare": xttcp-compare}]}; for sweeps (every file one: read_sweep_file) "files" and
// "comparisons" are empty and {"sweeps": [{"path", "interrupted", "planned", "cells": [{"id",
// "label", "kind", "connections", "size_bytes", "backend", "outcome", "error", "statistics",
// "runs"}]}], "sweep_comparisons": [{"path", "compare": xttcp-sweep-compare}]} say it. Errors:
// one line naming the file and the field.
// `cells_drawn`, when given, is set to the number of sweep cells the page draws one by one (their
// comparisons), for the generator's time budget.
Expected<std::string> report_input(const ReportRequest& request, size_t* cells_drawn = nullptr);

}  // namespace xttcp
