// Windows has one data path (iocp): compare-paths has nothing to put beside it, and says so.
#include "tools/paths/process_pair.hh"

namespace xttcp {

namespace {
constexpr const char* one_path =
    "compare-paths: this Windows build has one data path (iocp) and nothing to compare it with; "
    "run compare-paths on Linux";
}  // namespace

Status can_run_pairs() { return fail(one_path); }

std::optional<PairFailure> run_process_pair(const PairCommand&) {
  return PairFailure{one_path, true};
}

Expected<uint16_t> free_port_block(uint32_t) { return fail(one_path); }

std::string machine_load() { return ""; }

}  // namespace xttcp
