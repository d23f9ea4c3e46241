// --repeat N [--repeat-pause S] (sender): N synchronised tests against one receiver that stays
// (-H), written together as a set of runs with their statistics (docs/regression.md).
#pragma once

#include <cstdint>

namespace xttcp {

namespace limits {
inline constexpr uint32_t max_repeat = 1000;
inline constexpr double max_repeat_pause_s = 3600;
}  // namespace limits

struct RepeatOptions {
  uint32_t count = 1;  // --repeat: tests in a row; 1 = one test, written as a plain result
  double pause_s = 0;  // --repeat-pause: seconds between the end of one and the next one's start
};

}  // namespace xttcp
