#include "engine/control/sync_codes.hh"

#include <fmt/format.h>

#include <limits>

namespace xttcp {

namespace {

const char* command_name(int32_t value) {
  switch (value) {
    case sync_code::kQueryState: return "'X' command";
    case sync_code::kStart: return "'R' command";
    case sync_code::kLastClientStart: return "'L' command";
    case sync_code::kEarlyExit: return "'E' command";
    case sync_code::kPleaseWait: return "'W' reply";
    default: return "commands";
  }
}

}  // namespace

uint32_t safe_cycle_proposal(uint32_t cycle_s, std::string* note) {
  constexpr uint32_t kLargest = std::numeric_limits<int32_t>::max();
  if (cycle_s > kLargest) {
    if (note != nullptr)
      *note = fmt::format(
          "test cycle of {} s does not fit NTTTCP's signed 32-bit field; "
          "proposing {} s",
          cycle_s, kLargest);
    return kLargest;
  }
  uint32_t proposal = cycle_s;
  while (sync_code::is_command(static_cast<int32_t>(proposal))) ++proposal;
  if (proposal != cycle_s && note != nullptr)
    *note = fmt::format("test cycle of {} s collides with NTTTCP's {}; proposing {} s", cycle_s,
                        command_name(static_cast<int32_t>(cycle_s)), proposal);
  return proposal;
}

}  // namespace xttcp
