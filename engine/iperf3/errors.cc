#include "engine/iperf3/errors.hh"

#include <cstring>
#include <fmt/format.h>
#include <string_view>

namespace xttcp::iperf3 {

namespace {

struct KnownError {
  int32_t code;
  std::string_view text;
  bool with_errno;  // 3.12 appends ": " and, when errno is not 0, strerror(errno)
};

// 3.12's iperf_strerror, code by code (its limits written in).
constexpr KnownError known_errors[] = {
    {0, "no error", false},                                                    // IENONE
    {1, "cannot be both server and client", false},                            // IESERVCLIENT
    {2, "must either be a client (-c) or server (-s)", false},                 // IENOROLE
    {3, "some option you are trying to set is server only", false},            // IESERVERONLY
    {4, "some option you are trying to set is client only", false},            // IECLIENTONLY
    {5, "test duration too long (maximum = 86400 seconds)", false},            // IEDURATION
    {6, "number of parallel streams too large (maximum = 128)", false},        // IENUMSTREAMS
    {7, "block size too large (maximum = 1048576 bytes)", false},              // IEBLOCKSIZE
    {8, "socket buffer size too large (maximum = 536870912 bytes)", false},    // IEBUFSIZE
    {9, "invalid report interval (min = 0.1, max = 60 seconds)", false},       // IEINTERVAL
    {10, "TCP MSS too large (maximum = 9216 bytes)", false},                   // IEMSS
    {11, "this OS does not support sendfile", false},                          // IENOSENDFILE
    {12, "bogus value for --omit", false},                                     // IEOMIT
    {13, "an option you are trying to set is not implemented yet", false},     // IEUNIMP
    {14, "unable to open -F file", true},                                      // IEFILE
    {15, "invalid burst count (maximum = 1000)", false},                       // IEBURST
    {16, "only one test end condition (-t, -n, -k) may be specified", false},  // IEENDCONDITIONS
    {17, "unable to open log file", true},                                     // IELOGFILE
    {18, "no SCTP support available", false},                                  // IENOSCTP
    {19, "--bind must be specified to use --cport", false},                    // IEBIND
    {20, "block size invalid (minimum = 16 bytes, maximum = 65507 bytes)",
     false},                                                             // IEUDPBLOCKSIZE
    {21, "bad TOS value (must be between 0 and 255 inclusive)", false},  // IEBADTOS
    {22, "you must specify a username, password, and path to a valid RSA public key",
     false},  // IESETCLIENTAUTH
    {23, "you must specify a path to a valid RSA private key and a user credential file",
     false},  // IESETSERVERAUTH
    {24, "bad format specifier (valid formats are in the set [kmgtKMGT])", false},  // IEBADFORMAT
    {25, "cannot be both reverse and bidirectional", false},              // IEREVERSEBIDIR
    {26, "port number must be between 1 and 65535 inclusive", false},     // IEBADPORT
    {27, "total required bandwidth is larger than server limit", false},  // IETOTALRATE
    {29, "skew threshold must be a positive number", false},              // IESKEWTHRESHOLD
    {30, "idle timeout parameter is not positive or larger than allowed limit",
     false},                                                               // IEIDLETIMEOUT
    {31, "receive timeout value is incorrect or not in range", true},      // IERCVTIMEOUT
    {32, "client receive timeout is valid only in receiving mode", true},  // IERVRSONLYRCVTIMEOUT
    {33, "send timeout value is incorrect or not in range", true},         // IESNDTIMEOUT
    {100, "unable to create a new test", true},                            // IENEWTEST
    {101, "test initialization failed", true},                             // IEINITTEST
    {102, "unable to start listener for connections", true},               // IELISTEN
    {103, "unable to connect to server", true},                            // IECONNECT
    {104, "unable to accept connection from client", true},                // IEACCEPT
    {105, "unable to send cookie to server", true},                        // IESENDCOOKIE
    {106, "unable to receive cookie at server", true},                     // IERECVCOOKIE
    {107, "unable to write to the control socket", true},                  // IECTRLWRITE
    {108, "unable to read from the control socket", true},                 // IECTRLREAD
    {109, "control socket has closed unexpectedly", false},                // IECTRLCLOSE
    {110, "received an unknown control message", false},                   // IEMESSAGE
    {111, "unable to send control message", true},                         // IESENDMESSAGE
    {112, "unable to receive control message", true},                      // IERECVMESSAGE
    {113, "unable to send parameters to server", true},                    // IESENDPARAMS
    {114, "unable to receive parameters from client", true},               // IERECVPARAMS
    {115, "unable to package results", true},                              // IEPACKAGERESULTS
    {116, "unable to send results", true},                                 // IESENDRESULTS
    {117, "unable to receive results", true},                              // IERECVRESULTS
    {118, "select failed", true},                                          // IESELECT
    {119, "the client has terminated", false},                             // IECLIENTTERM
    {120, "the server has terminated", false},                             // IESERVERTERM
    {121, "the server is busy running a test. try again later", false},    // IEACCESSDENIED
    {122, "unable to set TCP/SCTP NODELAY", true},                         // IESETNODELAY
    {123, "unable to set TCP/SCTP MSS", true},                             // IESETMSS
    {124, "unable to set socket buffer size", true},                       // IESETBUF
    {125, "unable to set IP TOS", true},                                   // IESETTOS
    {126, "unable to set IPv6 traffic class", true},                       // IESETCOS
    {127, "unable to set IPv6 flow label", false},                         // IESETFLOW
    {128, "unable to reuse address on socket", true},                      // IEREUSEADDR
    {129, "unable to set socket to non-blocking", true},                   // IENONBLOCKING
    {130, "unable to set socket window size", true},                       // IESETWINDOWSIZE
    {131, "protocol does not exist", false},                               // IEPROTOCOL
    {132, "unable to set CPU affinity", true},                             // IEAFFINITY
    {133, "unable to become a daemon", true},                              // IEDAEMON
    {134,
     "unable to set TCP_CONGESTION: Supplied congestion control algorithm not supported on this "
     "host",
     false},                                                     // IESETCONGESTION
    {135, "unable to write PID file", true},                     // IEPIDFILE
    {136, "Unable to set/reset IPV6_V6ONLY", true},              // IEV6ONLY
    {137, "unable to set SCTP_DISABLE_FRAGMENTS", true},         // IESETSCTPDISABLEFRAG
    {138, "unable to set SCTP_INIT num of SCTP streams", true},  // IESETSCTPNSTREAM
    {140, "unable to set socket pacing", true},                  // IESETPACING
    {141, "socket buffer size not set correctly", false},        // IESETBUF2
    {142, "test authorization failed", false},                   // IEAUTHTEST
    {143, "Unable to bind-to-device (check perror, maybe permissions?)", false},  // IEBINDDEV
    {144, "idle timeout for receiving data", false},                              // IENOMSG
    {145, "unable to set IP Do-Not-Fragment flag", false},  // IESETDONTFRAGMENT
    {146, "`<ip>%<dev>` is not supported as system does not support bind to device",
     false},  // IEBINDDEVNOSUPPORT
    {147,
     "host device name (ip%<dev>) is supported (and required) only for IPv6 link-local address",
     false},                                                // IEHOSTDEV
    {148, "unable to set TCP/SCTP MSS", true},              // IESETUSERTIMEOUT
    {200, "unable to create a new stream", true},           // IECREATESTREAM
    {201, "unable to initialize stream", true},             // IEINITSTREAM
    {202, "unable to start stream listener", true},         // IESTREAMLISTEN
    {203, "unable to connect stream", true},                // IESTREAMCONNECT
    {204, "unable to accept stream connection", true},      // IESTREAMACCEPT
    {205, "unable to write to stream socket", true},        // IESTREAMWRITE
    {206, "unable to read from stream socket", true},       // IESTREAMREAD
    {207, "stream socket has closed unexpectedly", false},  // IESTREAMCLOSE
    {208, "stream has an invalid id", false},               // IESTREAMID
    {300, "unable to create new timer", true},              // IENEWTIMER
    {301, "unable to update timer", true},                  // IEUPDATETIMER
};

}  // namespace

std::string error_text(int32_t code, int32_t os_errno) {
  for (const KnownError& e : known_errors) {
    if (e.code != code) continue;
    std::string text(e.text);
    if (e.with_errno) text += ": ";
    if (e.with_errno && os_errno != 0) text += std::strerror(os_errno);
    return text;
  }
  std::string text = fmt::format("int_errno={}: ", code);
  if (os_errno != 0) text += std::strerror(os_errno);
  return text;
}

std::string error_text(int32_t code, std::string_view detail) {
  std::string text = error_text(code, 0);
  if (!text.ends_with(": ")) text += ": ";
  return text + std::string(detail);
}

}  // namespace xttcp::iperf3
