// The operating system's socket API headers, in one place for every layer: POSIX on Linux,
// Winsock 2 on Windows (which also has sockaddr_storage, socklen_t, inet_ntop/inet_pton and
// getaddrinfo). Windows' order matters: winsock2.h before anything that pulls in windows.h.
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
