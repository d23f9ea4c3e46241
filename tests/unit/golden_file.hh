// Golden files for every unit suite: a renderer's output compared byte for byte with
// tests/golden/<area>/<name>. Regenerate with XTTCP_UPDATE_GOLDEN=1 (then read the diff).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#ifndef GOLDEN_DIR
#error "GOLDEN_DIR must point at tests/golden"
#endif

namespace xttcp::test {

inline std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void expect_golden_in(const std::string& area, const std::string& name,
                             const std::string& actual) {
  const std::string path = std::string(GOLDEN_DIR) + "/" + area + "/" + name;
  const char* update = std::getenv("XTTCP_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::optional<std::string> expected = read_text(path);
  ASSERT_TRUE(expected.has_value())
      << "missing golden file " << path << " (run with XTTCP_UPDATE_GOLDEN=1 to create it)";
  EXPECT_EQ(*expected, actual) << "differs from " << path;
}

}  // namespace xttcp::test
