// A fixture of tests/layers/check_layers_test.py, never compiled: planted into a copy of the
// source tree as topology/planted_back_edge.hh, it must make scripts/check_layers.py fail.
#pragma once

#include "engine/spec.hh"  // topology/ may not include engine/
