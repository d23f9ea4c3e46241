// What an iperf3 peer sends on the control connection as JSON: a client's parameters (a server
// reads them) or either end's results, read within bounds (read_parameters, read_results) and
// written again (write_parameters, write_results). Whatever the bytes: a refusal is one line;
// what is accepted keeps its bounds (streams 1 to 128, ids unique) and reads back as the same.
// Input: a byte choosing the message ('p': parameters, else results), then its JSON text.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "engine/iperf3/control_wire.hh"
#include "engine/iperf3/parameters.hh"
#include "engine/iperf3/results.hh"
#include "tests/fuzz/fuzz_check.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xttcp::iperf3;
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] == 'p') {
    auto p = read_parameters(text);
    if (!p) {
      FUZZ_CHECK(p.error().message.find('\n') == std::string::npos);
      return 0;
    }
    FUZZ_CHECK(p->parallel >= 1 && p->parallel <= max_parallel);
    FUZZ_CHECK(p->time_s <= max_time_s && p->omit_s <= max_omit_s);
    FUZZ_CHECK(!(p->reverse && p->bidirectional));
    FUZZ_CHECK(p->length <= max_tcp_length);
    auto again = read_parameters(write_parameters(*p));
    FUZZ_CHECK(again);
    again->authenticated = p->authenticated;  // xttcp writes no token
    FUZZ_CHECK(*again == *p);
    return 0;
  }
  auto r = read_results(text, max_results_bytes);
  if (!r) {
    FUZZ_CHECK(r.error().message.find('\n') == std::string::npos);
    return 0;
  }
  FUZZ_CHECK(r->streams.size() <= max_result_streams);
  std::set<int32_t> ids;
  for (const StreamTotals& s : r->streams) FUZZ_CHECK(s.id >= 1 && ids.insert(s.id).second);
  auto again = read_results(write_results(*r), max_results_with_output_bytes);
  FUZZ_CHECK(again);
  FUZZ_CHECK(*again == *r);
  return 0;
}
