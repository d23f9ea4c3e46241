// The typed binders (tools/cli/option_binders.hh): each writes its field, reads its value with
// its parser and returns that parser's message; one binder fits both dialects' apply types.
#include <gtest/gtest.h>

#include "tools/cli/option_binders.hh"
#include "tools/cli/option_table.hh"
#include "tools/cli/windows_options.hh"

namespace xttcp {
namespace {

using Value = std::optional<std::string>;

TEST(OptionBinders, FlagSetsItsFieldInEitherDialect) {
  ApplyFn linux_hold = bind::flag<&Control::hold>;
  ParseState state;
  ASSERT_TRUE(linux_hold(state, std::nullopt));
  EXPECT_TRUE(state.spec().control.hold);

  WindowsApplyFn windows_udp = bind::flag<&Workload::protocol, Protocol::udp>;
  WindowsParseState windows;
  ASSERT_TRUE(windows_udp(windows, {}));
  EXPECT_EQ(windows.spec().workload.protocol, Protocol::udp);
}

TEST(OptionBinders, ParsedStoresOrSaysWhy) {
  ApplyFn backend = bind::parsed<&TestSpec::backend, bind::non_empty<"a backend name">>;
  ParseState state;
  ASSERT_TRUE(backend(state, Value("epoll")));
  EXPECT_EQ(state.spec().backend, "epoll");
  Status empty = backend(state, Value(""));
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message, "the value is empty (expected a backend name)");
  Status option = backend(state, Value("-x"));
  ASSERT_FALSE(option);
  EXPECT_EQ(option.error().message, "'-x' is not a backend name");
}

TEST(OptionBinders, CountKeepsItsRange) {
  ApplyFn repeat = bind::parsed<&RepeatOptions::count, bind::count<1, 10, "at least 1">>;
  ParseState state;
  ASSERT_TRUE(repeat(state, Value("7")));
  EXPECT_EQ(state.spec().repeat.count, 7u);
  Status zero = repeat(state, Value("0"));
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().message, "at least 1");
  EXPECT_FALSE(repeat(state, Value("11")));  // parse_count's own message
  EXPECT_EQ(state.spec().repeat.count, 7u);  // a refused value writes nothing
}

TEST(OptionBinders, OnOffAndFileOrDefault) {
  ApplyFn gso = bind::parsed_optional<&IoOptions::udp_gso, bind::on_off>;
  ParseState state;
  ASSERT_TRUE(gso(state, Value("off")));
  EXPECT_FALSE(state.spec().io.udp_gso);
  ASSERT_TRUE(gso(state, std::nullopt));
  EXPECT_TRUE(state.spec().io.udp_gso);
  EXPECT_EQ(gso(state, Value("maybe")).error().message, "'maybe' is not one of on, off");

  ApplyFn log = bind::file_or_default<&Output::log_file, defaults::log_file>;
  ASSERT_TRUE(log(state, std::nullopt));
  EXPECT_EQ(state.spec().output.log_file, std::string(defaults::log_file));
  ASSERT_TRUE(log(state, Value("run.log")));
  EXPECT_EQ(state.spec().output.log_file, std::string("run.log"));
}

}  // namespace
}  // namespace xttcp
