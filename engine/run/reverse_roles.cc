#include "engine/run/reverse_roles.hh"

#include <fmt/format.h>

namespace xttcp {

TestSpec reverse_receiving_spec(const TestSpec& own) {
  TestSpec spec = own;
  spec.role = Role::receiver;
  spec.layout.ports = static_cast<uint32_t>(own.sender_connections());
  spec.layout.threads_per_port = 1;
  spec.layout.conns_per_thread = 1;
  spec.layout.source_base_port = 0;
  return spec;
}

Expected<TestSpec> reverse_sending_spec(const TestSpec& own, const TestSpec& asked) {
  if (asked.workload.protocol != Protocol::tcp || own.workload.protocol != Protocol::tcp)
    return fail(fmt::format("{}: TCP streams only; this test is UDP", reverse_option(asked)));
  if (asked.workload.send_buffer == 0 || asked.workload.send_buffer > max_reverse_send_bytes)
    return fail(fmt::format(
        "{}: the sender asks for sends of {} bytes (-b); a receiver sends 1 byte to {} MiB per "
        "call for a peer",
        reverse_option(asked), asked.workload.send_buffer, max_reverse_send_bytes >> 20));
  TestSpec spec = own;
  spec.role = Role::sender;
  // What its sender asked, as it asked it: its second direction with --bidir.
  spec.workload.reverse = asked.workload.reverse;
  spec.workload.bidir = asked.workload.bidir;
  spec.workload.send_buffer = asked.workload.send_buffer;
  spec.workload.rate_limit_bps = asked.workload.rate_limit_bps;
  spec.workload.fq_rate_limit_bps = asked.workload.fq_rate_limit_bps;
  spec.workload.warmup_s = asked.workload.warmup_s;
  spec.workload.duration_s = asked.workload.duration_s;
  spec.workload.cooldown_s = asked.workload.cooldown_s;
  spec.layout.ports = asked.layout.ports;
  spec.layout.threads_per_port = asked.layout.threads_per_port;
  spec.layout.conns_per_thread = asked.layout.conns_per_thread;
  spec.layout.source_base_port = 0;
  return spec;
}

}  // namespace xttcp
