// Golden-file and sample helpers for the report tests.
// Regenerate every golden file of this suite with: XTTCP_UPDATE_GOLDEN=1 meson test unit-report
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/unit/golden_file.hh"

#ifndef SAMPLES_DIR
#error "SAMPLES_DIR must point at the reference samples (<source root>/../shared/reference/samples)"
#endif

namespace xttcp::test {

inline std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

// The Windows samples were saved with CRLF line ends; our renderers write '\n'.
inline std::string without_carriage_returns(std::string text) {
  std::erase(text, '\r');
  return text;
}

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Byte-for-byte comparison with tests/golden/report/<name>; XTTCP_UPDATE_GOLDEN=1 rewrites it.
inline void expect_golden(const std::string& name, const std::string& actual) {
  expect_golden_in("report", name, actual);
}

// The real NTTTCP-for-Linux and NTttcp-for-Windows outputs, kept in the shared reference beside
// the source tree: SAMPLES_DIR, <source root>/../shared/reference/samples (tests/unit/report/
// meson.build); XTTCP_SAMPLES_DIR overrides it. A test that compares with a sample skips where
// the samples are absent, but in CI (CI=true) a missing sample is a failure: it must not pass
// by skipping.
inline std::optional<std::string> read_sample(const std::string& name) {
  const char* dir = std::getenv("XTTCP_SAMPLES_DIR");
  const std::string path = std::string(dir != nullptr ? dir : SAMPLES_DIR) + "/" + name;
  std::optional<std::string> text = read_text(path);
  const char* ci = std::getenv("CI");
  if (!text && ci != nullptr && std::string(ci) == "true")
    ADD_FAILURE() << "missing reference sample " << path
                  << " (CI=true: the samples must be there; XTTCP_SAMPLES_DIR names another place)";
  return text;
}

}  // namespace xttcp::test
