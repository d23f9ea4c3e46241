#include "tools/cli/defaults_profile.hh"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "tools/cli/subcommands.hh"

namespace xttcp {

namespace {

std::string lower_basename(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  std::string name(slash == std::string_view::npos ? path : path.substr(slash + 1));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name.ends_with(".exe")) name.resize(name.size() - 4);
  return name;
}

bool mentions_defaults(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& word) {
    return word == "--defaults" || word.starts_with("--defaults=");
  });
}

}  // namespace

bool invoked_as_original(std::string_view program_name) {
  const std::string name = lower_basename(program_name);
  return name == "ntttcp" || name == "ntttcps" || name == "ntttcpr";
}

void add_implied_defaults(std::string_view program_name, std::vector<std::string>& args) {
  if (!invoked_as_original(program_name) || mentions_defaults(args) ||
      starts_with_command_word(args))
    return;
  args.insert(args.begin(), "--defaults=ntttcp");
}

Expected<Defaults> parse_defaults_name(std::string_view value) {
  if (value == "xttcp") return Defaults::xttcp;
  if (value == "ntttcp") return Defaults::ntttcp;
  return fail(fmt::format("'{}' is not one of xttcp, ntttcp", value));
}

void apply_defaults_profile(TestSpec& spec, const std::function<bool(std::string_view)>& given) {
  if (spec.defaults != Defaults::ntttcp) return;
  if (!given("skip-rx-copy")) spec.io.skip_rx_copy = false;
  if (!given("udp-gso")) spec.io.udp_gso = false;
  if (!given("udp-gro")) spec.io.udp_gro = false;
  spec.io.udp_send_batching = false;
#ifndef _WIN32
  // NTTTCP-for-Linux's loop: epoll, then one send()/recv() per buffer. Windows builds keep
  // auto (iocp, NTttcp for Windows' own path).
  if (!given("backend")) spec.backend = "epoll";
#endif
}

}  // namespace xttcp
