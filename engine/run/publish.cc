#include "engine/run/publish.hh"

#include "engine/report/linux_console.hh"
#include "engine/report/log.hh"
#include "engine/report/native_json.hh"
#include "engine/report/ntttcp_json.hh"
#include "engine/report/ntttcp_xml.hh"
#include "engine/report/result_file.hh"

namespace xttcp {

bool publish_result(const Result& result, Log& log) {
  for (const std::string& line : linux_summary_lines(result)) log.info(line);
  for (const std::string& line : xttcp_extra_lines(result)) log.info(line);
  if (result.peer_result_json)
    for (const std::string& line : peer_summary_lines(*result.peer_result_json)) log.info(line);
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
  if (spec.xml_file) write(spec.xml_file, render_ntttcp_xml(result));
  if (spec.json_file) write(spec.json_file, render_ntttcp_json(result));
  if (spec.native_json_file) write(spec.native_json_file, render_native_json(result));
  return written;
}

}  // namespace xttcp
