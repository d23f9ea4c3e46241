// Winsock error codes as one readable phrase: a short text and the symbolic name for the codes a
// data path meets ("address in use (WSAEADDRINUSE)"), FormatMessage's text for the others.
#pragma once

#include <string>
#include <string_view>

namespace xttcp::iocp {

// Wine completes a receive that was pending when its socket closed with this code, where Windows
// says ERROR_OPERATION_ABORTED (995) or ERROR_NETNAME_DELETED (64): all mean "cancelled".
inline constexpr int wine_closed_while_pending = 676;

// "address in use (WSAEADDRINUSE)"; unknown codes: FormatMessage's text and "(error N)".
std::string wsa_error_text(int code);

// "<what>: <wsa_error_text(code)>", e.g. "bind: address in use (WSAEADDRINUSE)".
std::string wsa_failure(std::string_view what, int code);

// wsa_failure(what, WSAGetLastError()).
std::string last_wsa_failure(std::string_view what);

// The codes by which a pending operation ends because it was cancelled or its socket closed.
bool is_cancellation(int code);

// The codes by which the peer ends a connection (reset, abort): counted as closed_by_peer.
bool is_peer_gone(int code);

// Accepting (a socket for AcceptEx, or AcceptEx itself) failed with `code`:
// - a shortage of sockets or buffers (WSAEMFILE, WSAENOBUFS): the listener rests a while and
//   tries again, as the Linux listeners do (io_backends/common/accept_failure.hh);
// - a failure no wait mends (the listener itself is broken): it stops accepting for good.
bool accept_shortage(int code);
bool accept_failure_ends_listener(int code);

}  // namespace xttcp::iocp
