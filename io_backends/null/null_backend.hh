#pragma once

#include <memory>

#include "engine/backend/backend.hh"

namespace xttcp {

// Moves no data: a sender "sends" by counting a buffer per loop turn, a receiver counts nothing.
// It measures the engine's own cost and tests the engine without a network (fio's null engine).
std::unique_ptr<Backend> make_null_backend();

}  // namespace xttcp
