// The native hello frame both xttcp peers send: who they are and their full effective spec.
#pragma once

#include <string>

#include "engine/spec.hh"

namespace xttcp {

std::string hello_json(const TestSpec& spec);

}  // namespace xttcp
