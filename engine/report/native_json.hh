// xttcp's own result format: typed, versioned, self-describing (docs/native-json.md).
// The spec inside it has its own codec (spec_json.hh), included here for its users.
#pragma once

#include <nlohmann/json.hpp>
#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.hh"
#include "engine/result.hh"
#include "engine/report/spec_json.hh"
#include "engine/spec.hh"

namespace xttcp {

inline constexpr int native_schema_version = 1;
inline constexpr const char* native_schema_name = "xttcp-result";

// Pretty (2-space indent), numbers as numbers, keys in a fixed order, ends with '\n'.
std::string render_native_json(const Result& result);
// The result a native peer gets over the sync connection (a frame of at most 16 MiB): the same
// document without indentation, its "connections" cut to the first peer_frame_connections with
// a note saying how many there were (a connection's TCP_INFO is ~200 bytes of JSON: 100,000 of
// them would pass the frame limit, and the peer would spend ~3 KB of memory on each).
inline constexpr size_t peer_frame_connections = 1024;
std::string render_peer_frame(const Result& result);
// Reads what render_native_json writes (any schema_version up to ours). Derived figures
// (throughput_bps, throughput_gbps) are ignored; everything else round-trips.
Expected<Result> parse_native_json(std::string_view text);
// A result frame from the peer: like parse_native_json (within the same bounds), but its own
// "peer" member is never read, and it must be a result of `expected_role`.
Expected<Result> parse_peer_result(std::string_view text, Role expected_role);
// The same document as render_native_json, as a JSON value, and its reader for a document
// already parsed within bounds (a run inside a set of repeated runs: native_runs.hh).
nlohmann::ordered_json result_to_json(const Result& result);
Expected<Result> result_from_json(const nlohmann::ordered_json& doc);

}  // namespace xttcp
