// Windows: the console control handler (Ctrl+C, Ctrl+Break, closing the console) runs on a
// thread of its own, like the Linux signal thread. No daemon mode.
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include "engine/exit_codes.hh"
#include "tools/process_control.hh"

namespace xttcp {
namespace {

std::atomic<bool>* interrupted_flag = nullptr;
PhaseClock* run_clock = nullptr;

BOOL WINAPI on_console_event(DWORD event) {
  if (event != CTRL_C_EVENT && event != CTRL_BREAK_EVENT && event != CTRL_CLOSE_EVENT)
    return FALSE;
  if (interrupted_flag == nullptr || interrupted_flag->exchange(true))
    ExitProcess(exit_code::run_failed);
  run_clock->cancel("interrupted by signal");
  return TRUE;
}

}  // namespace

Status check_process_options(const TestSpec& spec) {
  if (spec.daemonize) return fail("-D: running as a daemon is Linux only (start it as a service)");
  return ok();
}

Status prepare_process(TestSpec&) { return ok(); }

Status detach_process() { return fail("-D: running as a daemon is Linux only"); }

void watch_interrupts(std::atomic<bool>& interrupted, PhaseClock& clock) {
  interrupted_flag = &interrupted;
  run_clock = &clock;
  SetConsoleCtrlHandler(on_console_event, TRUE);
}

}  // namespace xttcp
