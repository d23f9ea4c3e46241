#include "engine/run/publish.hh"

#include "engine/report/interval_csv.hh"
#include "engine/report/iperf2_console.hh"
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

// NTttcp for Windows: its tables on the console, or with -xml its XML appended to the file
// instead (the original then prints only the CPU note on the console). With -sam, one block per
// sample (in XML wrapped in <samples>), and no block for the whole window, as the original.
bool publish_windows_result(const Result& result, Log& log) {
  const TestSpec& spec = result.spec;
  const bool sampled = !result.samples.empty();
  bool written = true;
  if (spec.output.xml_file) {
    if (sampled) {
      for (const Result& sample : result.samples) print_block(log, windows_cpu_note(sample));
    } else {
      print_block(log, windows_cpu_note(result));
    }
    const std::string xml =
        sampled ? render_windows_xml_samples(result.samples) : render_windows_xml(result);
    if (Status status = append_file_atomically(*spec.output.xml_file, xml); !status) {
      log.error(status.error().message);
      written = false;
    }
  } else if (sampled) {
    for (const Result& sample : result.samples) print_block(log, render_windows_console(sample));
  } else {
    print_block(log, render_windows_console(result));
  }
  if (spec.output.native_json_file) {
    if (Status status =
            write_file_atomically(*spec.output.native_json_file, render_native_json(result));
        !status) {
      log.error(status.error().message);
      written = false;
    }
  }
  return written;
}

// iperf 2's report on standard output; the native JSON with --json.
bool publish_iperf2_result(const Result& result, Log& log) {
  for (const std::string& line : iperf2_report_lines(result)) log.raw(line);
  for (const std::string& note : result.notes) log.info(note);
  if (result.spec.output.native_json_file) {
    if (Status status =
            write_file_atomically(*result.spec.output.native_json_file, render_native_json(result));
        !status) {
      log.error(status.error().message);
      return false;
    }
  }
  return true;
}

// --csv, in every dialect.
bool publish_interval_csv(const Result& result, Log& log) {
  if (!result.spec.output.csv_file) return true;
  if (Status status =
          write_file_atomically(*result.spec.output.csv_file, render_interval_csv(result));
      !status) {
    log.error(status.error().message);
    return false;
  }
  return true;
}

bool publish_dialect_result(const Result& result, Log& log) {
  if (result.spec.dialect == Dialect::windows) return publish_windows_result(result, log);
  if (result.spec.dialect == Dialect::iperf2) return publish_iperf2_result(result, log);
  for (const std::string& line : linux_summary_lines(result)) log.info(line);
  for (const std::string& line : xttcp_extra_lines(result)) log.info(line);
  if (result.peer)
    for (const std::string& line : peer_summary_lines(*result.peer)) log.info(line);
  log.raw(linux_separator);

  bool written = true;
  auto write = [&](const std::optional<std::string>& path, const std::string& content) {
    if (!path) return;
    if (Status status = write_file_atomically(*path, content); !status) {
      log.error(status.error().message);
      written = false;
    }
  };
  const TestSpec& spec = result.spec;
  if (spec.output.xml_file) write(spec.output.xml_file, render_ntttcp_xml(result));
  if (spec.output.json_file) write(spec.output.json_file, render_ntttcp_json(result));
  if (spec.output.native_json_file) write(spec.output.native_json_file, render_native_json(result));
  return written;
}

}  // namespace

bool publish_result(const Result& result, Log& log) {
  const bool dialect_written = publish_dialect_result(result, log);
  return publish_interval_csv(result, log) && dialect_written;
}

}  // namespace xttcp
