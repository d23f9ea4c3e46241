#include "engine/run/publish.hh"

#include <fmt/format.h>

#include "engine/report/interval_csv.hh"
#include "engine/report/iperf2_console.hh"
#include "engine/report/iperf2_live.hh"
#include "engine/report/linux_console.hh"
#include "engine/report/log.hh"
#include "engine/report/native_json.hh"
#include "engine/report/ntttcp_json.hh"
#include "engine/report/ntttcp_xml.hh"
#include "engine/report/result_file.hh"
#include "engine/report/windows_console.hh"
#include "engine/report/windows_xml.hh"

namespace xttcp {

namespace {

// The console without its last "\n": Log::raw ends the text with one.
void print_block(Log& log, std::string text) {
  if (text.ends_with('\n')) text.pop_back();
  if (!text.empty()) log.raw(text);
}

// Writes `content` to `path` (replacing it, or appending for NTttcp for Windows' -xml); false and
// an error line if it could not.
bool write_file(Log& log, const std::string& path, const std::string& content, bool append) {
  Status status =
      append ? append_file_atomically(path, content) : write_file_atomically(path, content);
  if (!status) log.error(status.error().message);
  return static_cast<bool>(status);
}

// NTttcp for Windows: its tables on the console, or with -xml only the CPU note (the XML goes to
// the file instead). With -sam, one block per sample and no block for the whole window, as the
// original.
void print_windows_result(const Result& result, Log& log) {
  const bool to_xml = result.spec.output.xml_file.has_value();
  auto render = to_xml ? windows_cpu_note : render_windows_console;
  if (result.samples.empty()) {
    print_block(log, render(result));
  } else {
    for (const Result& sample : result.samples) print_block(log, render(sample));
  }
}

// Under the original's name (--defaults ntttcp) the console holds one set of figures, as
// NTTTCP-for-Linux prints: a second block repeating "throughput", "cycles/byte"... would give a
// script that greps a label or keeps its last value the peer's figure. --json keeps both.
bool console_shows_peer(const Result& result) {
  return result.peer && result.spec.defaults != Defaults::ntttcp;
}
// --bidir: the other direction's figures follow, for the same reason only outside the
// original's name.
const Result* console_other_direction(const Result& result) {
  return result.spec.defaults != Defaults::ntttcp ? result.other_direction.get() : nullptr;
}

void print_linux_result(const Result& result, Log& log) {
  for (const std::string& line : linux_summary_lines(result)) log.info(line);
  for (const std::string& line : xttcp_extra_lines(result)) log.info(line);
}

}  // namespace

void print_result(const Result& result, Log& log) {
  switch (result.spec.dialect) {
    case Dialect::windows: print_windows_result(result, log); return;
    case Dialect::iperf2:
      for (const std::string& line :
           iperf2_report_lines(result, Iperf2LiveReport::prints(result.spec)))
        log.raw(line);
      for (const std::string& note : result.notes) log.info(note);
      return;
    case Dialect::iperf3:  // its server prints its own rows (engine/iperf3/server_run.cc)
      for (const std::string& note : result.notes) log.info(note);
      return;
    case Dialect::linux:
      print_linux_result(result, log);
      if (const Result* other = console_other_direction(result)) {
        log.info(fmt::format("#####  --bidir, the other direction: this end as {}  #####",
                             to_string(other->role)));
        print_linux_result(*other, log);
      }
      return;
  }
}

bool finish_result(const Result& result, Log& log, bool native_json) {
  const TestSpec& spec = result.spec;
  bool written = true;
  auto write = [&](const std::optional<std::string>& path, auto render, bool append = false) {
    if (path) written = write_file(log, *path, render(), append) && written;
  };
  if (spec.dialect == Dialect::linux) {
    if (console_shows_peer(result))
      for (const std::string& line : peer_summary_lines(*result.peer)) log.info(line);
    if (const Result* other = console_other_direction(result); other && other->peer)
      for (const std::string& line : peer_summary_lines(*other->peer)) log.info(line);
    log.raw(linux_separator);
    write(spec.output.xml_file, [&] { return render_ntttcp_xml(result); });
    write(spec.output.json_file, [&] { return render_ntttcp_json(result); });
  } else if (spec.dialect == Dialect::windows) {
    // -xml appends, as the original does; with -sam the samples within <samples>.
    write(
        spec.output.xml_file,
        [&] {
          return result.samples.empty() ? render_windows_xml(result)
                                        : render_windows_xml_samples(result.samples);
        },
        true);
  }
  if (native_json) write(spec.output.native_json_file, [&] { return render_native_json(result); });
  write(spec.output.csv_file, [&] { return render_interval_csv(result); });  // every dialect
  return written;
}

bool publish_result(const Result& result, Log& log) {
  print_result(result, log);
  return finish_result(result, log);
}

}  // namespace xttcp
