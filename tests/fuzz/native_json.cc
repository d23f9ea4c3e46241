// xttcp's native result file as `compare` and `report` will read it (parse_native_json, within
// native_result_limits), then every renderer that can show a read result. What it reads back
// it must render, and a rendered result must read back to the same rendering.
// Input: the file's bytes, verbatim.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/report/linux_console.hh"
#include "engine/report/native_json.hh"
#include "engine/report/ntttcp_json.hh"
#include "engine/report/ntttcp_xml.hh"
#include "engine/report/windows_console.hh"
#include "engine/report/windows_xml.hh"
#include "tests/fuzz/fuzz_check.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto result =
      xttcp::parse_native_json(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!result) return 0;
  const std::string json = xttcp::render_native_json(*result);
  auto again = xttcp::parse_native_json(json);
  FUZZ_CHECK(again);
  FUZZ_CHECK(xttcp::render_native_json(*again) == json);

  (void)xttcp::linux_summary_lines(*result);
  (void)xttcp::xttcp_extra_lines(*result);
  if (result->peer) (void)xttcp::peer_summary_lines(*result->peer);
  (void)xttcp::render_ntttcp_xml(*result);
  (void)xttcp::render_ntttcp_json(*result);
  (void)xttcp::render_windows_console(*result);
  (void)xttcp::windows_cpu_note(*result);
  (void)xttcp::render_windows_xml(*result);
  if (!result->samples.empty()) (void)xttcp::render_windows_xml_samples(result->samples);
  return 0;
}
