#include "tools/cli/mapping.hh"

#include <vector>

#include "base/units.hh"

namespace xttcp {

namespace {

std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    fields.push_back(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

}  // namespace

Expected<Mapping> parse_mapping(std::string_view text, unsigned cpu_count) {
  std::string quoted = "'";  // appended: "'" + std::string&& trips GCC 12's false -Wrestrict
  quoted.append(text).append("'");
  if (text.empty()) return fail("empty mapping (expected PORTS,CPU,ADDR such as 8,*,10.0.0.1)");
  const std::vector<std::string_view> fields = split_fields(text);
  if (fields.size() > 3)
    return fail(quoted + " has more than 3 fields (expected PORTS,CPU,ADDR such as 8,*,10.0.0.1)");

  Mapping mapping;
  if (!fields[0].empty()) {
    auto ports = parse_count(fields[0], UINT32_MAX);
    if (!ports) return fail("ports " + ports.error().message);
    if (*ports == 0) return fail("ports must be at least 1 in " + quoted);
    mapping.ports = *ports;
  }
  if (fields.size() > 1 && !fields[1].empty() && fields[1] != "*") {
    auto cpu = parse_count(fields[1], UINT32_MAX);
    if (!cpu) return fail("CPU '" + std::string(fields[1]) + "' is not '*' or a CPU id");
    if (*cpu >= cpu_count)
      return fail("CPU " + std::to_string(*cpu) + " does not exist (this machine has " +
                  std::to_string(cpu_count) + " CPUs: 0.." + std::to_string(cpu_count - 1) + ")");
    mapping.cpu = static_cast<int>(*cpu);
  }
  if (fields.size() > 2 && fields[2] != "*") mapping.address = std::string(fields[2]);
  return mapping;
}

}  // namespace xttcp
