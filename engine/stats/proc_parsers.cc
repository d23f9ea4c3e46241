#include "engine/stats/proc_parsers.hh"

#include <charconv>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace xttcp {
namespace {

// Calls `visit(line)` for each line, without its '\n' (and without a trailing '\r').
template <class Visit>
void for_each_line(std::string_view text, Visit&& visit) {
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!visit(line)) return;
    if (end == std::string_view::npos) return;
    text.remove_prefix(end + 1);
  }
}

std::vector<std::string_view> split(std::string_view line, std::string_view separators) {
  std::vector<std::string_view> tokens;
  std::size_t pos = 0;
  while (pos < line.size()) {
    std::size_t start = line.find_first_not_of(separators, pos);
    if (start == std::string_view::npos) break;
    std::size_t end = line.find_first_of(separators, start);
    if (end == std::string_view::npos) end = line.size();
    tokens.push_back(line.substr(start, end - start));
    pos = end;
  }
  return tokens;
}

std::string_view trim(std::string_view s) {
  constexpr std::string_view blanks = " \t\r\n";
  std::size_t start = s.find_first_not_of(blanks);
  if (start == std::string_view::npos) return {};
  std::size_t end = s.find_last_not_of(blanks);
  return s.substr(start, end - start + 1);
}

// True only when the whole token is an unsigned decimal that fits in 64 bits.
bool parse_u64(std::string_view token, uint64_t& value) {
  if (token.empty()) return false;
  auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && ptr == token.data() + token.size();
}

bool all_digits(std::string_view token) {
  if (token.empty()) return false;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// The value after the ':' of a "key<tabs>: value" line of /proc/cpuinfo.
std::string_view value_after_colon(std::string_view line) {
  std::size_t colon = line.find(':');
  return colon == std::string_view::npos ? std::string_view{} : trim(line.substr(colon + 1));
}

// At most this much of a token an error message quotes.
std::string_view shown(std::string_view token) { return token.substr(0, 40); }

// "cpu" or "cpuN" when the line starts with it and a blank, else "".
std::string_view cpu_line_name(std::string_view line) {
  if (line.substr(0, 3) != "cpu") return {};
  const std::size_t end = line.find_first_of(" \t");
  return end == std::string_view::npos ? std::string_view{} : line.substr(0, end);
}

// The fields of a /proc/stat "cpu"/"cpuN" line after its name: at least user, nice, system and
// idle, at most up to steal; what follows is not looked at, so a line of any length costs at most
// eight fields. "" when read, else why.
std::string read_cpu_fields(std::string_view name, std::string_view rest, CpuTicks& ticks) {
  uint64_t* fields[] = {&ticks.user,   &ticks.nice, &ticks.system,  &ticks.idle,
                        &ticks.iowait, &ticks.irq,  &ticks.softirq, &ticks.steal};
  constexpr std::string_view blanks = " \t";
  std::size_t parsed = 0, pos = 0;
  while (parsed < std::size(fields)) {
    const std::size_t start = rest.find_first_not_of(blanks, pos);
    if (start == std::string_view::npos) break;
    std::size_t end = rest.find_first_of(blanks, start);
    if (end == std::string_view::npos) end = rest.size();
    const std::string_view token = rest.substr(start, end - start);
    if (!parse_u64(token, *fields[parsed]))
      return fmt::format("/proc/stat: field {} of the '{}' line is not a number: '{}'", parsed + 1,
                         name, shown(token));
    ++parsed;
    pos = end;
  }
  if (parsed < 4)
    return fmt::format("/proc/stat: the '{}' line has fewer than 4 fields (user nice system idle)",
                       name);
  return {};
}

}  // namespace

Expected<CpuTimes> parse_proc_stat(std::string_view text) {
  CpuTimes times;
  bool found_aggregate = false;
  std::string error;
  for_each_line(text, [&](std::string_view line) {
    const std::string_view name = cpu_line_name(line);
    if (name == "cpu") {
      if (found_aggregate) return true;  // keep the first one
      found_aggregate = true;
      error = read_cpu_fields(name, line.substr(name.size()), times);
      return error.empty();
    }
    if (name.size() > 3 && all_digits(name.substr(3))) ++times.cores;
    return true;
  });
  if (!error.empty()) return fail(error);
  if (!found_aggregate) return fail("/proc/stat: no aggregate 'cpu' line");
  return times;
}

Expected<std::vector<CpuLineTicks>> parse_proc_stat_cpus(std::string_view text) {
  std::vector<CpuLineTicks> cpus;
  std::vector<bool> seen;
  std::string error;
  for_each_line(text, [&](std::string_view line) {
    const std::string_view name = cpu_line_name(line);
    if (name.size() <= 3 || !all_digits(name.substr(3))) return true;
    uint64_t id = 0;
    if (!parse_u64(name.substr(3), id) || id >= max_proc_stat_cpus) {
      error = fmt::format("/proc/stat: CPU id out of range (at most {}): '{}'",
                          max_proc_stat_cpus - 1, shown(name));
      return false;
    }
    if (seen.size() <= id) seen.resize(id + 1);
    if (seen[id]) {
      error = fmt::format("/proc/stat: '{}' is listed twice", name);
      return false;
    }
    seen[id] = true;
    CpuLineTicks cpu{static_cast<uint32_t>(id), {}};
    error = read_cpu_fields(name, line.substr(name.size()), cpu.ticks);
    if (!error.empty()) return false;
    cpus.push_back(cpu);
    return true;
  });
  if (!error.empty()) return fail(error);
  return cpus;
}

Expected<std::map<std::string, uint64_t>> parse_snmp_section(std::string_view text,
                                                             std::string_view section) {
  std::string prefix(section);
  if (prefix.empty() || prefix.back() != ':') prefix += ':';

  std::vector<std::string_view> names;
  std::vector<std::string_view> values;
  for_each_line(text, [&](std::string_view line) {
    std::vector<std::string_view> tokens = split(line, " \t");
    if (tokens.empty() || tokens[0] != prefix) return true;
    if (names.empty()) {
      names.assign(tokens.begin() + 1, tokens.end());
      return true;
    }
    values.assign(tokens.begin() + 1, tokens.end());
    return false;  // first header/value pair only
  });
  if (names.empty()) return fail(fmt::format("no '{}' section", prefix));
  if (values.size() != names.size()) {
    return fail(fmt::format("section '{}' has {} names but {} values", prefix, names.size(),
                            values.size()));
  }
  std::map<std::string, uint64_t> counters;
  for (std::size_t i = 0; i < names.size(); ++i) {
    uint64_t value = 0;
    if (parse_u64(values[i], value)) counters.emplace(std::string(names[i]), value);
  }
  return counters;
}

uint64_t sum_interrupts(std::string_view proc_interrupts, std::string_view pattern) {
  if (pattern.empty()) return 0;
  uint64_t total = 0;
  for_each_line(proc_interrupts, [&](std::string_view line) {
    if (line.find(pattern) == std::string_view::npos) return true;
    // Space-separated like the original (strtok on " "): a tab-joined token is not a number.
    for (std::string_view token : split(line, " ")) {
      uint64_t value = 0;
      if (all_digits(token) && parse_u64(token, value)) total += value;
    }
    return true;
  });
  return total;
}

double parse_cpu_mhz(std::string_view cpuinfo) {
  double mhz = 0;
  for_each_line(cpuinfo, [&](std::string_view line) {
    if (line.find("cpu MHz") == std::string_view::npos) return true;
    std::string_view value = value_after_colon(line);
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), mhz);
    if (ec != std::errc()) mhz = 0;
    (void)ptr;
    return false;
  });
  return mhz;
}

std::string parse_cpu_model(std::string_view cpuinfo) {
  std::string model;
  for_each_line(cpuinfo, [&](std::string_view line) {
    if (line.substr(0, 10) != "model name") return true;
    model = std::string(value_after_colon(line));
    return false;
  });
  return model;
}

Expected<TaskTicks> parse_task_stat(std::string_view text) {
  // comm sits between the first '(' and the last ')': a name may itself hold ')'.
  const std::size_t open = text.find('(');
  const std::size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return fail("task stat: no '(name)'");
  TaskTicks task{std::string(text.substr(open + 1, close - open - 1)), 0};
  // After the name: state (field 3), ..., flags (9), ..., utime (14) and stime (15): the 7th,
  // 12th and 13th here.
  std::istringstream fields{std::string(text.substr(close + 1))};
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int index = 1; index <= 13; ++index) {
    if (!(fields >> field)) return fail("task stat: fewer than 15 fields");
    if ((index == 7 && !parse_u64(field, task.flags)) ||
        (index == 12 && !parse_u64(field, utime)) || (index == 13 && !parse_u64(field, stime)))
      return fail(fmt::format("task stat: flags, utime or stime '{}' is not a number", field));
  }
  task.ticks = utime + stime;
  return task;
}

Expected<NetSoftirqs> parse_proc_softirqs(std::string_view text) {
  std::istringstream lines{std::string(text)};
  std::string line;
  std::size_t cpus = 0;
  if (std::getline(lines, line)) {
    std::istringstream header(line);
    std::string word;
    while (header >> word)
      if (word.rfind("CPU", 0) == 0) ++cpus;
  }
  if (cpus == 0) return fail("/proc/softirqs: no 'CPU0 ...' header");
  NetSoftirqs out;
  bool rx = false, tx = false;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    if (name != "NET_RX:" && name != "NET_TX:") continue;
    std::vector<uint64_t>& counts = name == "NET_RX:" ? out.net_rx : out.net_tx;
    (name == "NET_RX:" ? rx : tx) = true;
    uint64_t count = 0;
    while (counts.size() < cpus && words >> count) counts.push_back(count);
    if (counts.size() < cpus)
      return fail(
          fmt::format("/proc/softirqs: {} has {} counts for {} CPUs", name, counts.size(), cpus));
  }
  if (!rx || !tx) return fail("/proc/softirqs: no NET_RX and NET_TX lines");
  return out;
}

}  // namespace xttcp
