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

}  // namespace xttcp
