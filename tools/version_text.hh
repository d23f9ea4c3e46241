// What `xttcp --version` prints: the version, the git commit of the build, the data paths and
// libraries compiled in, and the compiler, so a result can be traced to the binary behind it.
#pragma once

#include <string>

namespace xttcp {

// The commit the build was made from ("git describe --always --dirty" without tags, e.g.
// "aaf6269abcd0" or "aaf6269abcd0-dirty"), or "unknown" outside a git checkout. Defined in the
// file the build generates from tools/build_commit.cc.in.
const char* build_commit();

// "0.1.0 (aaf6269abcd0)": the version and commit, which a measurement of this build is valid for.
std::string build_identity();
// Every line of `xttcp --version`, the first "xttcp VERSION" as before.
std::string version_text();

}  // namespace xttcp
