// A sweep's document (engine/report/native_sweep) reads back what it wrote; a bad one fails in
// one line naming the cell; compare of two sweeps (tools/compare/sweep_comparison) judges every
// cell both measured, worst first, and lists every other cell with the reason.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/report/native_sweep.hh"
#include "tests/unit/golden_file.hh"
#include "tools/compare/compare_inputs.hh"
#include "tools/compare/sweep_comparison.hh"

namespace xttcp {
namespace {

Result sweep_run_of(double gbit_per_s, uint32_t connections, uint32_t size) {
  Result r;
  r.role = Role::sender;
  r.tool_version = "9.9";
  r.duration_s = 2;
  r.total_bytes = static_cast<uint64_t>(gbit_per_s * 2e9 / 8);
  r.cpu.process_system_s = 1;
  r.spec.layout.ports = connections;
  r.spec.layout.threads_per_port = 1;
  r.spec.workload.send_buffer = size;
  r.host.cpu_model = "Test CPU";
  return r;
}

SweepCellResult measured(SweepCell cell, std::vector<double> gbit_per_s) {
  SweepCellResult result{cell};
  for (double g : gbit_per_s)
    result.runs.runs.push_back(sweep_run_of(g, cell.connections, cell.size_bytes));
  return result;
}

const SweepCell cell_one{CellKind::tcp, 1, 65536, ""};
const SweepCell cell_four{CellKind::tcp, 4, 65536, ""};
const SweepCell cell_udp{CellKind::udp, 1, 1400, "epoll"};

Sweep sweep_of(std::vector<double> one_rates, std::vector<double> four_rates) {
  Sweep s;
  s.sender_args = "-s 10.0.0.2 -t 10";
  s.repeat = 3;
  s.plan = {cell_one, cell_four, cell_udp};
  s.cells = {measured(cell_one, one_rates), measured(cell_four, four_rates)};
  SweepCellResult failed{cell_udp, CellOutcome::failed, "the receiver listens for TCP"};
  s.cells.push_back(failed);
  return s;
}

TEST(NativeSweep, CellsHaveStableIdsAndLabels) {
  EXPECT_EQ(cell_one.id(), "tcp/c1/s65536");
  EXPECT_EQ(cell_udp.id(), "udp/c1/s1400/epoll");
  EXPECT_EQ(cell_four.label(), "TCP, 4 connections, 64K writes");
  EXPECT_EQ(cell_udp.label(), "UDP, 1 flow, 1400 datagrams, epoll");
  EXPECT_EQ((SweepCell{CellKind::rr, 2, 1048576, ""}).label(), "RR, 2 flows, 1M requests");
}

TEST(NativeSweep, RoundTrip) {
  Sweep s = sweep_of({10, 11, 12}, {30, 31, 32});
  s.interrupted = true;
  const std::string text = render_native_sweep(s);
  auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema"], "xttcp-sweep");
  EXPECT_EQ(doc["environment"]["cpu_model"], "Test CPU");  // once, from the first measured run
  EXPECT_EQ(doc["cells"][1]["runs"]["statistics"]["metrics"]["throughput_gbps"]["median"], 31.0);
  EXPECT_TRUE(is_native_sweep(text));
  auto back = parse_native_sweep(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->plan, s.plan);
  ASSERT_EQ(back->cells.size(), 3u);
  EXPECT_EQ(back->cells[0].runs.runs.size(), 3u);
  EXPECT_EQ(back->cells[2].outcome, CellOutcome::failed);
  EXPECT_EQ(back->cells[2].error, "the receiver listens for TCP");
  EXPECT_TRUE(back->interrupted);
  EXPECT_EQ(back->sender_args, "-s 10.0.0.2 -t 10");
}

// The sweep file as written (schema "xttcp-sweep"): plan, cells, a failed cell's reason, the
// environment once, interrupted and complete.
TEST(NativeSweep, TheFileAsWritten) {
  Sweep s = sweep_of({10, 11}, {30, 31});
  s.repeat = 2;
  test::expect_golden_in("sweep", "sweep-file.json", render_native_sweep(s));
}

TEST(NativeSweep, BadDocumentsFailNamingThePlace) {
  const std::string good = render_native_sweep(sweep_of({10}, {30}));
  const auto broken = [&](auto change) {
    auto doc = nlohmann::ordered_json::parse(good);
    change(doc);
    auto read = parse_native_sweep(doc.dump());
    return read ? std::string("(read)") : read.error().message;
  };
  EXPECT_EQ(broken([](auto& d) { d["cells"][0]["connections"] = 0; }),
            "cells[0]: connections: 0 is outside 1..4294967295");
  EXPECT_EQ(broken([](auto& d) { d["cells"][1]["kind"] = "sctp"; }),
            "cells[1]: kind: \"sctp\" is not \"tcp\", \"udp\" or \"rr\"");
  EXPECT_EQ(broken([](auto& d) { d["cells"][1] = d["cells"][0]; }),
            "cells[1]: tcp/c1/s65536 is not a planned cell, or ran twice");
  EXPECT_EQ(broken([](auto& d) { d["plan"][1] = d["plan"][0]; }),
            "plan[1]: the cell tcp/c1/s65536 is planned twice");
  EXPECT_EQ(
      broken([](auto& d) { d["cells"][0]["runs"]["runs"] = nlohmann::ordered_json::array(); }),
      "cells[0]: result file: runs: expected a non-empty array of results");
  EXPECT_EQ(broken([](auto& d) { d["schema_version"] = 2; }),
            "sweep file: schema_version: 2 is not supported (this xttcp reads 1 to 1)");
  EXPECT_FALSE(is_native_sweep("{\"schema\": \"xttcp-runs\"}"));
  EXPECT_FALSE(is_native_sweep("not json"));
  // Only the top level's "schema" string says it (read without building the document).
  EXPECT_TRUE(
      is_native_sweep("{\"a\": {\"schema\": 1, \"b\": [1, {}]}, \"schema\": "
                      "\"xttcp-sweep\", \"rest\": [ broken"));
  EXPECT_FALSE(is_native_sweep("{\"a\": {\"schema\": \"xttcp-sweep\"}}"));
  EXPECT_FALSE(is_native_sweep("{\"schema\": 1}"));
  EXPECT_FALSE(is_native_sweep("{\"schema\": {\"x\": \"xttcp-sweep\"}}"));
  EXPECT_FALSE(is_native_sweep("[\"schema\", \"xttcp-sweep\"]"));
  EXPECT_FALSE(is_native_sweep(std::string(100, '[') + "\"schema\""));
  // A schema that is not a string is refused, not thrown.
  EXPECT_FALSE(parse_native_sweep("{\"schema\": 1}"));
  auto odd = nlohmann::ordered_json::parse(good);
  odd["cells"][0]["backend"] = "ep\u001b[31moll";
  EXPECT_FALSE(parse_native_sweep(odd.dump()));
  odd = nlohmann::ordered_json::parse(good);
  odd["cells"][2]["error"] = "two\nlines \u001b[2J";
  auto read = parse_native_sweep(odd.dump());
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->cells[2].error, "two lines  [2J");
}

TEST(SweepComparison, EveryCellJudgedWorstFirstAndTheRestListed) {
  Sweep base = sweep_of({10, 10.1, 9.9}, {30, 30.2, 29.8});
  Sweep changed = sweep_of({10, 10.1, 9.9}, {15, 15.1, 14.9});  // 4 connections halved
  changed.plan.push_back({CellKind::tcp, 16, 65536, ""});       // planned, never reached
  auto report = compare_sweeps("base.json", base, "new.json", changed, CompareOptions{}, false);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->overall, Verdict::regression);
  ASSERT_EQ(report->cells.size(), 2u);
  EXPECT_EQ(report->cells[0].cell, cell_four);  // the regression first
  EXPECT_NEAR(report->cells[0].worse_by_pct, 50, 1e-9);
  EXPECT_EQ(report->cells[1].report.comparison.overall, Verdict::same);
  ASSERT_EQ(report->unmatched.size(), 2u);
  EXPECT_EQ(report->unmatched[0].why,
            "failed in base.json: the receiver listens for TCP; failed in new.json: the "
            "receiver listens for TCP");
  EXPECT_EQ(report->unmatched[1].why,
            "not in base.json's plan; not reached in new.json (the sweep was stopped)");
  const std::string table = render_sweep_compare_table(*report);
  EXPECT_NE(table.find("TCP, 4 connections, 64K writes  throughput (Gbit/s)"), std::string::npos)
      << table;
  EXPECT_NE(table.find("REGRESSION (throughput)"), std::string::npos) << table;
  EXPECT_NE(table.find("verdict: REGRESSION in 1 of 2 cells"), std::string::npos) << table;
  EXPECT_NE(table.find("TCP, 16 connections, 64K writes: not in base.json's plan; not reached"),
            std::string::npos)
      << table;
  auto doc = nlohmann::json::parse(render_sweep_compare_json(*report));
  EXPECT_EQ(doc["verdict"], "regression");
  EXPECT_EQ(doc["cells"][0]["id"], "tcp/c4/s65536");
  EXPECT_EQ(doc["cells"][0]["comparison"]["verdict"], "regression");
  EXPECT_EQ(doc["not_judged"].size(), 2u);
}

// A real pair (tests/golden/sweep: 8 cells of a loopback sweep in a namespace, then the same
// with lo's MTU at 1500), as compare's table and JSON say it.
TEST(SweepComparison, TheGoldenPairAsTableAndJson) {
  const std::string dir = std::string(GOLDEN_DIR) + "/sweep/";
  auto base = read_sweep_file(dir + "base.json");
  ASSERT_TRUE(base) << base.error().message;
  auto changed = read_sweep_file(dir + "new.json");
  ASSERT_TRUE(changed) << changed.error().message;
  auto report = compare_sweeps("base.json", *base, "new.json", *changed, CompareOptions{}, false);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->overall, Verdict::regression);
  test::expect_golden_in("sweep", "compare.table.txt", render_sweep_compare_table(*report));
  test::expect_golden_in("sweep", "compare.json", render_sweep_compare_json(*report));
}

// Two cells each significant alone (0.025 < p < 0.05) are not significant together: Holm's
// step-down over the sweep's tests calls them noise, so that more cells do not mean more false
// alarms. A cell far more significant stays a regression.
TEST(SweepComparison, ManyCellsAreJudgedTogether) {
  const std::vector<double> base_rates = {10, 10.3, 9.7}, new_rates = {9.0, 9.45, 8.55};
  auto alone = compare_runs(measured(cell_one, base_rates).runs.runs,
                            measured(cell_one, new_rates).runs.runs, CompareOptions{});
  ASSERT_EQ(alone.overall, Verdict::regression);
  const double p = alone.metrics.front().test->p;
  ASSERT_TRUE(p > 0.025 && p < 0.05) << p;
  Sweep base = sweep_of(base_rates, base_rates);
  Sweep changed = sweep_of(new_rates, new_rates);
  auto report = compare_sweeps("b", base, "n", changed, CompareOptions{}, false);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->family_tests, 2u);
  EXPECT_EQ(report->overall, Verdict::same);
  for (const CellComparison& c : report->cells) {
    EXPECT_EQ(c.report.comparison.overall, Verdict::same);
    EXPECT_EQ(c.report.comparison.metrics.front().verdict, Verdict::noise);
  }
  // Step down: once the far more significant cell is taken (p below alpha / 2), the other is
  // tested against alpha / 1 and is a regression too (Bonferroni would have called it noise).
  changed = sweep_of(new_rates, {5, 5.05, 4.95});
  report = compare_sweeps("b", base, "n", changed, CompareOptions{}, false);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->overall, Verdict::regression);
  EXPECT_EQ(report->cells.front().cell, cell_four);
  ASSERT_EQ(report->cells.size(), 2u);
  EXPECT_EQ(report->cells[1].report.comparison.overall, Verdict::regression);
  EXPECT_NEAR(report->cells[1].family_p.front().value(), p, 1e-12);  // the largest: its own p
  EXPECT_NEAR(report->cells[0].family_p.front().value(),
              2 * report->cells[0].report.comparison.metrics.front().test->p, 1e-12);
}

TEST(SweepComparison, NoCellInCommonIsAnError) {
  Sweep base = sweep_of({10}, {30});
  Sweep other = base;
  other.cells.clear();
  auto report = compare_sweeps("a.json", base, "b.json", other, CompareOptions{}, false);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().message, "no cell was measured in both a.json and b.json");
}

}  // namespace
}  // namespace xttcp
