// Windows: the console control handler (Ctrl+C, Ctrl+Break, closing the console) runs on a
// thread of its own, like the Linux signal thread. No daemon mode.
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
// After windows.h:
#include <shellapi.h>

#include "base/exit_codes.hh"
#include "tools/process_control.hh"

namespace xttcp {
namespace {

std::atomic<bool>* interrupted_flag = nullptr;
PhaseClock* run_clock = nullptr;

BOOL WINAPI on_console_event(DWORD event) {
  if (event != CTRL_C_EVENT && event != CTRL_BREAK_EVENT && event != CTRL_CLOSE_EVENT) return FALSE;
  if (interrupted_flag == nullptr || interrupted_flag->exchange(true))
    ExitProcess(exit_code::run_failed);
  run_clock->cancel(StopCause::interrupted, "interrupted by signal");
  return TRUE;
}

std::string utf8_of(const wchar_t* text) {
  const int size = WideCharToMultiByte(CP_UTF8, 0, text, -1, nullptr, 0, nullptr, nullptr);
  if (size <= 1) return "";
  std::string out(static_cast<std::size_t>(size), '\0');
  WideCharToMultiByte(CP_UTF8, 0, text, -1, out.data(), size, nullptr, nullptr);
  out.resize(static_cast<std::size_t>(size - 1));  // the terminating NUL
  return out;
}

}  // namespace

std::vector<std::string> command_line_words(int argc, char** argv) {
  int count = 0;
  LPWSTR* wide = CommandLineToArgvW(GetCommandLineW(), &count);
  if (wide == nullptr) return std::vector<std::string>(argv, argv + argc);
  std::vector<std::string> words;
  for (int i = 0; i < count; ++i) words.push_back(utf8_of(wide[i]));
  LocalFree(wide);
  return words;
}

Status check_process_options(const TestSpec& spec) {
  if (spec.control.daemonize)
    return fail("-D: running as a daemon is Linux only (start it as a service)");
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
