#include "engine/spec.hh"

namespace xttcp {

const char* to_string(Role role) {
  switch (role) {
    case Role::receiver: return "receiver";
    case Role::sender: return "sender";
    case Role::local: return "local";
  }
  return "?";
}

const char* to_string(Protocol protocol) { return protocol == Protocol::tcp ? "TCP" : "UDP"; }

const char* to_string(UdpPayload payload) {
  switch (payload) {
    case UdpPayload::automatic: return "auto";
    case UdpPayload::native: return "native";
    case UdpPayload::compat: return "compat";
    case UdpPayload::iperf2: return "iperf2";
    case UdpPayload::iperf3: return "iperf3";
  }
  return "?";
}

const char* to_string(Defaults defaults) {
  return defaults == Defaults::ntttcp ? "ntttcp" : "xttcp";
}

const char* to_string(ZeroCopy zerocopy) {
  switch (zerocopy) {
    case ZeroCopy::off: return "off";
    case ZeroCopy::on: return "on";
    case ZeroCopy::automatic: return "auto";
  }
  return "?";
}

}  // namespace xttcp
