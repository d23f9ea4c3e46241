// iperf3 3.12's error codes (its i_errno) as they travel after SERVER_ERROR, and the line its
// client prints for each (src/iperf_api.h and src/iperf_error.c of 3.12; the table in
// errors.cc is those facts, written here): xttcp as a client prints a server's error as iperf3
// does, and as a server sends the code whose line says what it refused.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace xttcp::iperf3 {

// The codes xttcp sends or must tell apart.
enum ErrorCode : int32_t {
  error_duration = 5,              // IEDURATION
  error_streams = 6,               // IENUMSTREAMS
  error_block_size = 7,            // IEBLOCKSIZE
  error_buffer_size = 8,           // IEBUFSIZE
  error_mss = 10,                  // IEMSS
  error_omit = 12,                 // IEOMIT
  error_not_implemented = 13,      // IEUNIMP
  error_burst = 15,                // IEBURST
  error_no_sctp = 18,              // IENOSCTP
  error_udp_block_size = 20,       // IEUDPBLOCKSIZE
  error_bad_tos = 21,              // IEBADTOS
  error_reverse_bidir = 25,        // IEREVERSEBIDIR
  error_receive_parameters = 114,  // IERECVPARAMS
  error_receive_results = 117,     // IERECVRESULTS
  error_client_terminated = 119,   // IECLIENTTERM
  error_server_terminated = 120,   // IESERVERTERM
  error_access_denied = 121,       // IEACCESSDENIED
  error_control_closed = 109,      // IECTRLCLOSE
  error_unknown_message = 110,     // IEMESSAGE
  error_set_buffer = 141,          // IESETBUF2
  error_auth = 142,                // IEAUTHTEST
  error_no_message = 144,          // IENOMSG
  error_stream_id = 208,           // IESTREAMID
};

// The line 3.12 prints for `code` (after "iperf3: error - "), with ": " and strerror(os_errno)
// where 3.12 appends them; "int_errno=N" for a code it does not know, as it does.
std::string error_text(int32_t code, int32_t os_errno);

// The line for `code` with what this end found instead of an OS error: "unable to receive
// results: iperf3 results: 4294967295 bytes announced, over the limit of 65536".
std::string error_text(int32_t code, std::string_view detail);

}  // namespace xttcp::iperf3
