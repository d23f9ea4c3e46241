// The spec's JSON form: in result files (the "spec" member, docs/native-json.md) and in the
// native peer protocol (engine/run/hello). Written and read from one table of fields
// (spec_fields.hh), so a key is named once.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.hh"
#include "engine/spec.hh"

namespace xttcp {

// The effective spec, every TestSpec field including defaults; absent optionals are null.
nlohmann::ordered_json spec_to_json(const TestSpec& spec);
// Missing keys keep their defaults (a newer peer may omit nothing, an older one may lack
// keys); unknown keys are ignored; a wrong type or range fails naming the key.
Expected<TestSpec> spec_from_json(const nlohmann::json& j);

namespace json_fields {
// spec_from_json for a reader of a larger document (native_json.cc): throws BadField.
TestSpec read_spec(const nlohmann::ordered_json& j);
}  // namespace json_fields

}  // namespace xttcp
