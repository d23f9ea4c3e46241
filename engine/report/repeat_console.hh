// --repeat N on the console (docs/regression.md): after every test's own block, the summary of
// the set, what the eye lands on last: one line per test, then per metric (the ones `xttcp
// compare` judges) the median, mean, min and max, coefficient of variation and the 95 %
// confidence interval of the mean, from run_set_statistics() as --json's "statistics" holds
// them. Log::info() messages in the NTTTCP-for-Linux log style; never "Totals:" or a label of
// NTTTCP's Totals block, so a script that reads the first Totals block, or a label, reads what
// it read before.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

// "test 2 of 4\t:55.74Gbps over 1.00 s, retrans segs 24, cycles/byte 0.60; receiver 55.78Gbps"
// (--rr: transactions/s and the round trip's p50/p99 instead of bits).
std::string repeat_test_line(const Result& run, uint32_t index, uint32_t count);

// "#####  Summary of 4 tests (--repeat):  #####" ("2 of 4 tests" when fewer ran), a line per
// test, the table, and what its columns mean. Empty without a run.
std::vector<std::string> repeat_summary_lines(const std::vector<Result>& runs, uint32_t requested);

}  // namespace xttcp
