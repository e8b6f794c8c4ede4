#include "nsq/flags/go_flags.h"

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace nsq::flags {
namespace {

using namespace std::chrono_literals;

// A small flag set covering every typed helper, defaults as nsqd's.
struct Fixture {
  bool snappy = true;
  bool verbose = false;
  std::string tcp_address = "0.0.0.0:4150";
  std::string data_path;
  std::int64_t mem_queue_size = 10000;
  int max_deflate_level = 6;
  std::chrono::nanoseconds msg_timeout = 1min;
  std::vector<std::string> lookupd;
  FlagSet fs{"nsqd"};

  Fixture() {
    fs.add_bool("snappy", &snappy, "enable snappy");
    fs.add_bool("verbose", &verbose, "deprecated");
    fs.add_string("tcp-address", &tcp_address, "<addr>:<port> to listen on for TCP clients");
    fs.add_string("data-path", &data_path, "path to store disk-backed messages");
    fs.add_int64("mem-queue-size", &mem_queue_size, "number of messages to keep in memory");
    fs.add_int("max-deflate-level", &max_deflate_level, "max deflate level");
    fs.add_duration("msg-timeout", &msg_timeout, "default duration to wait");
    fs.add_string_list("lookupd-tcp-address", &lookupd, "lookupd TCP address");
  }

  tl::expected<void, FlagError> parse(std::vector<std::string> args) { return fs.parse(args); }
};

std::string error_of(const tl::expected<void, FlagError>& r) {
  EXPECT_FALSE(r.has_value());
  if (r) return {};
  EXPECT_EQ(r.error().kind, FlagError::Kind::invalid);
  return r.error().message;
}

TEST(GoFlags, EveryDashAndValueForm) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"-mem-queue-size", "5"},
           {"-mem-queue-size=5"},
           {"--mem-queue-size", "5"},
           {"--mem-queue-size=5"},
       }) {
    Fixture f;
    ASSERT_TRUE(f.parse(args).has_value()) << args[0];
    EXPECT_EQ(f.mem_queue_size, 5) << args[0];
    EXPECT_TRUE(f.fs.is_set("mem-queue-size"));
    EXPECT_FALSE(f.fs.is_set("snappy"));
    EXPECT_TRUE(f.fs.args().empty());
  }
}

TEST(GoFlags, BoolForms) {
  {
    Fixture f;
    ASSERT_TRUE(f.parse({"-snappy=false"}).has_value());
    EXPECT_FALSE(f.snappy);
    EXPECT_TRUE(f.fs.is_set("snappy"));
  }
  {
    Fixture f;
    ASSERT_TRUE(f.parse({"--verbose"}).has_value());
    EXPECT_TRUE(f.verbose);
  }
  {
    Fixture f;
    f.snappy = false;
    ASSERT_TRUE(f.parse({"--snappy"}).has_value());
    EXPECT_TRUE(f.snappy);
  }
  for (const char* v : {"0", "f", "F", "FALSE", "False"}) {
    Fixture f;
    ASSERT_TRUE(f.parse({std::string("--snappy=") + v}).has_value()) << v;
    EXPECT_FALSE(f.snappy) << v;
  }
}

TEST(GoFlags, WordAfterBoolIsPositionalAndStopsParsing) {
  Fixture f;
  ASSERT_TRUE(f.parse({"-snappy", "false", "--mem-queue-size=5"}).has_value());
  EXPECT_TRUE(f.snappy);
  EXPECT_EQ(f.mem_queue_size, 10000);  // after the first positional nothing is a flag
  EXPECT_FALSE(f.fs.is_set("mem-queue-size"));
  EXPECT_EQ(f.fs.args(), (std::vector<std::string>{"false", "--mem-queue-size=5"}));
}

TEST(GoFlags, OnlyPositionals) {
  Fixture f;
  ASSERT_TRUE(f.parse({"extra", "--snappy=false"}).has_value());
  EXPECT_TRUE(f.snappy);
  EXPECT_EQ(f.fs.args(), (std::vector<std::string>{"extra", "--snappy=false"}));
  Fixture g;
  ASSERT_TRUE(g.parse({}).has_value());
  EXPECT_TRUE(g.fs.args().empty());
}

TEST(GoFlags, DoubleDashEndsFlags) {
  Fixture f;
  ASSERT_TRUE(f.parse({"--verbose", "--", "-snappy=false"}).has_value());
  EXPECT_TRUE(f.snappy);
  EXPECT_EQ(f.fs.args(), std::vector<std::string>{"-snappy=false"});
}

TEST(GoFlags, SingleDashAndShortWordsArePositional) {
  Fixture f;
  ASSERT_TRUE(f.parse({"-", "--verbose"}).has_value());
  EXPECT_FALSE(f.verbose);
  EXPECT_EQ(f.fs.args(), (std::vector<std::string>{"-", "--verbose"}));
}

TEST(GoFlags, ValueMayLookLikeAFlagOrBeEmpty) {
  Fixture f;
  ASSERT_TRUE(
      f.parse({"--data-path", "--verbose", "--tcp-address=", "-mem-queue-size", "-1"}).has_value());
  EXPECT_EQ(f.data_path, "--verbose");
  EXPECT_FALSE(f.verbose);
  EXPECT_EQ(f.tcp_address, "");
  EXPECT_EQ(f.mem_queue_size, -1);
}

TEST(GoFlags, ValueSplitsAtFirstEquals) {
  Fixture f;
  ASSERT_TRUE(f.parse({"--data-path==a=b"}).has_value());
  EXPECT_EQ(f.data_path, "=a=b");
}

TEST(GoFlags, LastOccurrenceWinsForScalarsListsAppend) {
  Fixture f;
  ASSERT_TRUE(f.parse({"--mem-queue-size=1", "--lookupd-tcp-address=a:4160", "-mem-queue-size", "2",
                       "-lookupd-tcp-address", "b:4160", "--lookupd-tcp-address", "c,d"})
                  .has_value());
  EXPECT_EQ(f.mem_queue_size, 2);
  EXPECT_EQ(f.lookupd, (std::vector<std::string>{"a:4160", "b:4160", "c,d"}));
}

TEST(GoFlags, Durations) {
  for (const auto& [text, want] : std::vector<std::pair<std::string, std::chrono::nanoseconds>>{
           {"250ms", 250ms}, {"1m30s", 90s}, {"1.5s", 1500ms}, {"0", 0ns}, {"1h", 1h}}) {
    Fixture f;
    ASSERT_TRUE(f.parse({"--msg-timeout", text}).has_value()) << text;
    EXPECT_EQ(f.msg_timeout, want) << text;
  }
}

TEST(GoFlags, IntegersUseGoBase0Syntax) {
  Fixture f;
  ASSERT_TRUE(f.parse({"--mem-queue-size=0x10", "--max-deflate-level=010"}).has_value());
  EXPECT_EQ(f.mem_queue_size, 16);
  EXPECT_EQ(f.max_deflate_level, 8);
}

TEST(GoFlags, UnknownFlag) {
  Fixture f;
  EXPECT_EQ(error_of(f.parse({"--foo"})), "flag provided but not defined: -foo");
  Fixture g;
  EXPECT_EQ(error_of(g.parse({"-foo=bar"})), "flag provided but not defined: -foo");
  Fixture h;  // names are case-sensitive and never abbreviated
  EXPECT_EQ(error_of(h.parse({"--Snappy"})), "flag provided but not defined: -Snappy");
  Fixture i;
  EXPECT_EQ(error_of(i.parse({"--mem-queue"})), "flag provided but not defined: -mem-queue");
}

TEST(GoFlags, BadValues) {
  Fixture f;
  EXPECT_EQ(error_of(f.parse({"--mem-queue-size=x"})),
            "invalid value \"x\" for flag -mem-queue-size: parse error");
  Fixture g;
  EXPECT_EQ(error_of(g.parse({"-mem-queue-size", "99999999999999999999"})),
            "invalid value \"99999999999999999999\" for flag -mem-queue-size: value out of range");
  Fixture h;
  EXPECT_EQ(error_of(h.parse({"--max-deflate-level=5000000000"})),
            "invalid value \"5000000000\" for flag -max-deflate-level: value out of range");
  Fixture i;
  EXPECT_EQ(error_of(i.parse({"--msg-timeout=10"})),
            "invalid value \"10\" for flag -msg-timeout: parse error");
  Fixture j;
  EXPECT_EQ(error_of(j.parse({"--snappy=yes"})),
            "invalid boolean value \"yes\" for -snappy: parse error");
  Fixture k;
  EXPECT_EQ(error_of(k.parse({"--snappy="})),
            "invalid boolean value \"\" for -snappy: parse error");
}

TEST(GoFlags, SyntaxErrors) {
  Fixture f;
  EXPECT_EQ(error_of(f.parse({"---snappy"})), "bad flag syntax: ---snappy");
  Fixture g;
  EXPECT_EQ(error_of(g.parse({"-=x"})), "bad flag syntax: -=x");
  Fixture h;
  EXPECT_EQ(error_of(h.parse({"--mem-queue-size"})), "flag needs an argument: -mem-queue-size");
}

TEST(GoFlags, ErrorsComeInArgumentOrder) {
  Fixture f;  // a bad value before an unknown flag is reported first
  EXPECT_EQ(error_of(f.parse({"--mem-queue-size=x", "--foo"})),
            "invalid value \"x\" for flag -mem-queue-size: parse error");
  Fixture g;  // and an unknown flag stops parsing before later bad values
  EXPECT_EQ(error_of(g.parse({"--verbose", "--foo", "--mem-queue-size=x"})),
            "flag provided but not defined: -foo");
  EXPECT_TRUE(g.verbose);
}

TEST(GoFlags, Help) {
  for (const char* h : {"-h", "--h", "-help", "--help", "--help=1"}) {
    Fixture f;
    auto r = f.parse({"--verbose", h, "--foo"});
    ASSERT_FALSE(r.has_value()) << h;
    EXPECT_EQ(r.error().kind, FlagError::Kind::help) << h;
  }
}

TEST(GoFlags, UsageLooksLikeGoPrintDefaults) {
  Fixture f;
  EXPECT_EQ(f.fs.usage(),
            "Usage of nsqd:\n"
            "  -data-path string\n"
            "    \tpath to store disk-backed messages\n"
            "  -lookupd-tcp-address value\n"
            "    \tlookupd TCP address\n"
            "  -max-deflate-level int\n"
            "    \tmax deflate level (default 6)\n"
            "  -mem-queue-size int\n"
            "    \tnumber of messages to keep in memory (default 10000)\n"
            "  -msg-timeout duration\n"
            "    \tdefault duration to wait (default 1m0s)\n"
            "  -snappy\n"
            "    \tenable snappy (default true)\n"
            "  -tcp-address string\n"
            "    \t<addr>:<port> to listen on for TCP clients (default \"0.0.0.0:4150\")\n"
            "  -verbose\n"
            "    \tdeprecated\n");
}

TEST(GoFlags, OneLetterBoolKeepsUsageOnItsLine) {
  bool x = false;
  FlagSet fs("t");
  fs.add_bool("x", &x, "a\nb");
  EXPECT_EQ(fs.defaults(), "  -x\ta\n    \tb\n");
}

TEST(GoFlags, CustomValueErrorsAndBareBool) {
  int calls = 0;
  FlagSet fs("t");
  FlagValue v;
  v.is_bool = true;
  v.set = [&calls](std::string_view s) -> tl::expected<void, std::string> {
    ++calls;
    if (s == "true") return tl::unexpected(std::string("nope"));
    return {};
  };
  fs.add("weird", "", v);
  std::vector<std::string> bare{"--weird"};
  auto r = fs.parse(bare);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "invalid boolean flag weird: nope");
  EXPECT_EQ(calls, 1);
}

TEST(GoFlags, ArgvOverloadSkipsProgramName) {
  Fixture f;
  const char* argv[] = {"nsqd", "--mem-queue-size", "7", "extra"};
  ASSERT_TRUE(f.fs.parse(4, argv).has_value());
  EXPECT_EQ(f.mem_queue_size, 7);
  EXPECT_EQ(f.fs.args(), std::vector<std::string>{"extra"});
}

}  // namespace
}  // namespace nsq::flags
