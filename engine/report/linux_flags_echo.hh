// How a spec field shows in -V's settings block of the NTTTCP-for-Linux console (the original's
// print_flags(), parameter.c). The field table (spec_fields.hh) attaches these to the fields the
// block shows, next to their JSON keys: one list of fields, several views. The block's order is
// the order of FlagsLine; its words and tabs are the original's.
#pragma once

#include <string>

namespace xttcp {

struct TestSpec;

// The block's lines, in the order it prints them.
enum class FlagsLine {
  role,
  daemon,
  use_epoll,
  hold,
  multi_clients,
  last_client,
  no_sync,
  connections,  // the sender's
  ports,        // the receiver's
  cpu_affinity,
  server_address,
  client_address,
  domain,
  protocol,
  server_port,
  client_port,
  recv_buffer,
  send_buffer,
  rate_limit,
  fq_rate_limit,
  no_delay,
  warmup,
  duration,
  cooldown,
  tcp_retrans,
  nic_packets,
  interrupts,
  log_file,
  xml_file,
  json_file,
  quiet,
  verbose,
};

struct LinuxEcho {
  enum class Side { both, sender, receiver };  // --local shows the sender's view

  FlagsLine line;
  const char* label;  // up to the value, with the original's tabs
  Side side = Side::both;
  bool only_when_set = false;   // a false, zero, empty or unset value shows no line
  const char* yes = "yes";      // a true bool reads
  const char* no = "no";        // a false bool reads
  const char* unset = nullptr;  // what a zero, empty or unset value reads; null: the value itself
  // The value's text from the whole spec, for a line that is not one field's value alone.
  std::string (*text)(const TestSpec&) = nullptr;
};

// A line that is its label alone, shown when the flag is on ("*** run as daemon").
constexpr LinuxEcho flag_line(FlagsLine line, const char* text,
                              LinuxEcho::Side side = LinuxEcho::Side::both) {
  return LinuxEcho{.line = line, .label = text, .side = side, .only_when_set = true, .yes = ""};
}

}  // namespace xttcp
