// The record `--backend auto` reads at the start of every run and `xttcp calibrate` rewrites
// ($XDG_CACHE_HOME/xttcp/auto-backend.json, parse_auto_record): whatever the file holds, what
// is accepted is within its bounds, every entry's choice is what its own figures decide, it
// writes back to the same text, and the sentence auto prints from it has only finite figures.
// Input: the file's bytes, verbatim.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_check.hh"
#include "tools/paths/auto_record.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto entries = xttcp::parse_auto_record(text);
  if (!entries) {
    FUZZ_CHECK(!entries.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(size <= xttcp::auto_record_max_bytes);
  FUZZ_CHECK(entries->size() <= xttcp::auto_record_max_entries);
  for (const xttcp::AutoEntry& e : *entries) {
    FUZZ_CHECK(e.paths.size() <= xttcp::auto_record_max_backends);
    FUZZ_CHECK(e.chosen == xttcp::choose_measured(e.paths));
    for (const xttcp::MeasuredPath& p : e.paths)
      FUZZ_CHECK(p.runs >= 1 && p.throughput_min_gbps <= p.throughput_gbps &&
                 p.throughput_gbps <= p.throughput_max_gbps);
    // The figures of the sentence, that is: its words are the file's own (a host "infra").
    std::string words = e.shape + e.measured_on + e.chosen;
    for (const xttcp::MeasuredPath& p : e.paths) words += p.backend;
    const std::string why = xttcp::auto_reason(e);
    for (const char* word : {"inf", "nan"})
      FUZZ_CHECK(words.find(word) != std::string::npos || why.find(word) == std::string::npos);
  }
  // What we read, we write back; and that reads back to the same text.
  const std::string written = xttcp::render_auto_record(*entries);
  auto again = xttcp::parse_auto_record(written);
  FUZZ_CHECK(again);
  FUZZ_CHECK(xttcp::render_auto_record(*again) == written);
  return 0;
}
