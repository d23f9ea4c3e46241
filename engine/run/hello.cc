#include "engine/run/hello.hh"

#include <nlohmann/json.hpp>

#include "engine/report/native_json.hh"
#include "xttcp_config.h"

namespace xttcp {

std::string hello_json(const TestSpec& spec) {
  nlohmann::ordered_json hello;
  hello["type"] = "hello";
  hello["tool"] = "xttcp";
  hello["version"] = XTTCP_VERSION;
  hello["spec"] = spec_to_json(spec);
  return hello.dump();
}

}  // namespace xttcp
