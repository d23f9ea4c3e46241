// The operating system's socket API headers, in one place: POSIX on Linux, Winsock 2 on Windows
// (which also has sockaddr_storage, socklen_t, inet_ntop/inet_pton and getaddrinfo). The only
// platform switch of engine/net's headers; implementations differ by file (*_linux.cc,
// *_windows.cc).
#pragma once

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <winsock2.h>
#include <ws2tcpip.h>
#else
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#endif

#include "engine/status.hh"

namespace xttcp {

// Makes the socket API usable by this process: WSAStartup on Windows (once, kept for the
// process's life), nothing to do on Linux. Every engine/net entry point that needs sockets calls
// it, so callers never have to. Error: "Winsock: <reason>".
Status start_sockets();

}  // namespace xttcp
