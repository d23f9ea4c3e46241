// Per-socket TCP tuning of the Linux data paths: --congestion (TCP_CONGESTION), --busy-poll
// (SO_BUSY_POLL, SO_PREFER_BUSY_POLL) and --receive-mark (SO_RCVLOWAT following the rate,
// engine/stats/rate_mark.hh). Control path, except follow_receive_rate: one clock-free check
// per call, a system call only when a sample completes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.hh"
#include "engine/spec.hh"
#include "engine/stats/rate_mark.hh"

namespace xttcp {

// --congestion and --busy-poll on `fd` (a connected socket, or a listener: accepted sockets
// inherit both). Error: "--congestion NAME: not allowed here; the kernel allows reno bbr
// (net.ipv4.tcp_allowed_congestion_control; root may take any of
// tcp_available_congestion_control)".
Status apply_tcp_tuning(int fd, const TestSpec& spec);

// --busy-poll alone, for UDP sockets (their notes come from tcp_tuning_note too: --congestion is
// TCP's and refused for UDP).
Status apply_busy_poll(int fd, const TestSpec& spec);

// What the socket got, for the worker's notes ("" when nothing was asked), e.g.
// "--congestion bbr: TCP_CONGESTION is bbr; --busy-poll 50: SO_BUSY_POLL 50 us, SO_PREFER_BUSY_POLL
// on".
std::string tcp_tuning_note(int fd, const TestSpec& spec);

// The algorithm TCP_CONGESTION reads back on `fd` ("" when it cannot be read).
std::string congestion_of(int fd);

// --receive-mark: re-measures the connection's rate when a sample is due and sets SO_RCVLOWAT
// when the mark changes. `total_bytes` is what the connection delivered so far; `now_ns` is
// call_clock_ticks() (CLOCK_MONOTONIC ns on Linux).
void follow_receive_rate(int fd, RateMark& mark, uint64_t total_bytes, uint64_t now_ns);

// The length of each TCP receive. With --skip-rx-copy (MSG_TRUNC) the kernel writes nothing, so
// one receive may take all a wakeup brings: at least rate_mark::max_mark, not one -b buffer
// (sixteen receives per 1 MiB mark otherwise; the buffer is allocated at that size, so tools
// that check the range, like ASan, see it whole). -b when the data is copied, or with -wa.
std::size_t tcp_receive_length(const TestSpec& spec);

// The worker's note on what --receive-mark did, when it set a mark: the highest SO_RCVLOWAT.
std::string receive_mark_note(uint32_t highest);

}  // namespace xttcp
