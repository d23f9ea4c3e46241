// `xttcp sweep`'s command line and its plan (docs/regression.md, "Sweeps"): the matrix of cells,
// each cell's sender options beside those every cell shares, and the presets. Pure: a library
// unit-tested without the program; the run is sweep_command.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.hh"
#include "engine/report/native_sweep.hh"
#include "engine/spec.hh"

namespace xttcp {

struct SweepAxes {
  std::vector<uint32_t> connections;      // --connections: TCP cells (empty: the shared -P/-n/-l)
  std::vector<uint32_t> sizes;            // --sizes: TCP writes (empty: the shared -b)
  std::vector<uint32_t> udp_sizes;        // --udp-sizes: datagrams (empty: no UDP cells)
  std::vector<uint32_t> udp_connections;  // --udp-connections (empty: as --connections)
  std::vector<uint32_t> rr_sizes;         // --rr-sizes: requests (empty: no --rr cells)
  std::vector<uint32_t> rr_connections;   // --rr-connections (empty: 1)
  std::vector<std::string> backends;      // --backends (empty: the shared --backend)
};

struct SweepRequest {
  std::vector<std::string> shared_args;  // every cell's sender options, as given
  TestSpec shared;                       // those options, parsed
  SweepAxes axes;
  std::string json_file;  // --json FILE: rewritten after every cell
  // --udp-port, --rr-port: the base port of the receiver that serves UDP (-u) and --rr cells
  // (a receiver serves one protocol); 0: the shared -p, the same receiver.
  uint16_t udp_port = 0, rr_port = 0;
  std::vector<SweepCell> cells;  // the plan, in the order the cells run
};

// The words after "sweep". The sweep's own options are taken out; the rest must be a sender's
// command line of the NTTTCP-for-Linux dialect (-s HOST ...) without the options a cell sets.
// Every cell's full command line is checked here, before anything runs. Errors are one line
// naming the option and the rule.
Expected<SweepRequest> parse_sweep_args(const std::vector<std::string>& args);

// The options the cell adds to the shared ones: -P/-n/-l for its connections (below the
// receiver's -P one port each, as LISA maps them; above, -P ports of N/P connections each),
// -b, -u or --rr, --backend.
std::vector<std::string> cell_args(const SweepRequest& request, const SweepCell& cell);

// The cells of `axes` in run order: TCP, then UDP, then --rr; within each, connections, then
// size, then backend (so a cell's data paths run one after another).
std::vector<SweepCell> plan_cells(const SweepAxes& axes, const TestSpec& shared);

std::string sweep_help();

}  // namespace xttcp
