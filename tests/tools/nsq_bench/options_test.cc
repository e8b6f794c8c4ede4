#include "options.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace nsq::bench {
namespace {

using namespace std::chrono_literals;

struct Parsed {
  Options options;
  flags::FlagSet fs{"nsq_bench"};
  Parsed() { register_flags(fs, options); }
  bool parse(std::vector<std::string> args) { return fs.parse(args).has_value(); }
};

TEST(Options, Defaults) {
  Parsed p;
  ASSERT_TRUE(p.parse({}));
  const Options& o = p.options;
  EXPECT_EQ(o.mode, "writer");
  EXPECT_EQ(o.nsqd_tcp_address, "127.0.0.1:4150");
  EXPECT_EQ(o.topic, "sub_bench");
  EXPECT_EQ(o.channel, "ch");
  EXPECT_EQ(o.size, 100);
  EXPECT_EQ(o.batch_size, 200);
  EXPECT_EQ(o.runfor, 10s);
  EXPECT_EQ(o.writers, 1);
  EXPECT_EQ(o.readers, 1);
  EXPECT_EQ(o.rdy, 2500);
  EXPECT_EQ(o.pipeline, 1);
  EXPECT_EQ(o.deadline, "");
  EXPECT_FALSE(o.latency);
  EXPECT_EQ(o.rate, 0);
  EXPECT_FALSE(o.pub_latency);
  EXPECT_FALSE(o.progress);
  EXPECT_FALSE(o.identify);
  EXPECT_EQ(o.output_buffer_size, 0);
  EXPECT_EQ(o.output_buffer_timeout, 0ns);
  EXPECT_EQ(o.idle_exit, 1s);
  EXPECT_EQ(o.drain, 5s);
  EXPECT_EQ(validate(o), Mode::writer);
}

TEST(Options, GoStyleFlags) {
  Parsed p;
  ASSERT_TRUE(p.parse({"-mode=both", "--size", "200", "--connections=3", "-runfor=1.5s",
                       "--latency", "--rate=50000", "--readers", "2", "--batch-size=1",
                       "--output-buffer-timeout=-1ms"}));
  const Options& o = p.options;
  EXPECT_EQ(o.mode, "both");
  EXPECT_EQ(o.size, 200);
  EXPECT_EQ(o.writers, 3);
  EXPECT_EQ(o.runfor, 1500ms);
  EXPECT_TRUE(o.latency);
  EXPECT_EQ(o.rate, 50000);
  EXPECT_EQ(o.readers, 2);
  EXPECT_EQ(o.batch_size, 1);
  EXPECT_EQ(o.output_buffer_timeout, -1ms);
  EXPECT_EQ(validate(o), Mode::both);
}

TEST(Options, WritersAndConnectionsAreOneSetting) {
  Parsed p;
  ASSERT_TRUE(p.parse({"--writers=4"}));
  EXPECT_EQ(p.options.writers, 4);
  ASSERT_TRUE(p.parse({"--connections=2"}));
  EXPECT_EQ(p.options.writers, 2);
}

TEST(Options, BadValuesAreFlagErrors) {
  Parsed p;
  EXPECT_FALSE(p.parse({"--runfor=10"}));  // Go: missing unit
  Parsed q;
  EXPECT_FALSE(q.parse({"--size=big"}));
  Parsed r;
  EXPECT_FALSE(r.parse({"--no-such-flag"}));
}

TEST(Options, UsageListsTheFlags) {
  Parsed p;
  const std::string usage = p.fs.usage();
  for (const char* name : {"-mode", "-nsqd-tcp-address", "-batch-size", "-runfor", "-rdy",
                           "-latency", "-rate", "-pub-latency", "-pipeline", "-deadline"}) {
    EXPECT_NE(usage.find(name), std::string::npos) << name;
  }
  EXPECT_NE(usage.find("(default 200)"), std::string::npos);
  EXPECT_NE(usage.find("(default 10s)"), std::string::npos);
}

TEST(Validate, Modes) {
  Options o;
  for (const auto& [text, mode] : std::vector<std::pair<std::string, Mode>>{
           {"writer", Mode::writer},
           {"reader", Mode::reader},
           {"both", Mode::both},
           {"pub-latency", Mode::pub_latency},
           {"pub-latency-limit", Mode::pub_latency_limit},
           {"loopback-limit", Mode::loopback_limit},
           {"group-commit-limit", Mode::group_commit_limit}}) {
    o.mode = text;
    EXPECT_EQ(validate(o), mode) << text;
    EXPECT_EQ(mode_name(mode), text);
  }
  o.mode = "writer";
  o.pub_latency = true;  // the flag wins over --mode
  EXPECT_EQ(validate(o), Mode::pub_latency);
  o.mode = "fast";
  o.pub_latency = false;
  ASSERT_FALSE(validate(o));
  EXPECT_NE(validate(o).error().find("--mode"), std::string::npos);
}

TEST(Validate, Rejects) {
  const auto error_of = [](auto change) {
    Options o;
    change(o);
    auto r = validate(o);
    return r ? std::string() : r.error();
  };
  EXPECT_NE(error_of([](Options& o) { o.size = 0; }), "");
  EXPECT_NE(error_of([](Options& o) { o.batch_size = 0; }), "");
  EXPECT_NE(error_of([](Options& o) { o.writers = 0; }), "");
  EXPECT_NE(error_of([](Options& o) { o.readers = 0; }), "");
  EXPECT_NE(error_of([](Options& o) { o.rdy = 0; }), "");
  EXPECT_NE(error_of([](Options& o) { o.pipeline = 0; }), "");
  EXPECT_NE(error_of([](Options& o) { o.rate = -1; }), "");
  EXPECT_NE(error_of([](Options& o) { o.runfor = 0s; }), "");
  EXPECT_NE(error_of([](Options& o) { o.topic = "bad topic"; }), "");
  EXPECT_NE(error_of([](Options& o) { o.channel = ""; }), "");
  EXPECT_NE(error_of([](Options& o) { o.deadline = "tomorrow"; }), "");
  EXPECT_NE(error_of([](Options& o) {
              o.latency = true;
              o.size = 7;
            }).find("timestamp"),
            std::string::npos);
  // The responder speaks plain PUB only.
  EXPECT_NE(error_of([](Options& o) {
              o.mode = "pub-latency-limit";
              o.snappy = true;
            }).find("pub-latency-limit"),
            std::string::npos);
  // Loopback needs no topic.
  EXPECT_EQ(error_of([](Options& o) {
              o.mode = "loopback-limit";
              o.topic = "";
            }),
            "");
}

TEST(Describe, ShowsEveryMainSetting) {
  Options o;
  const std::string d = describe(o);
  for (const char* part :
       {"--mode=writer", "--nsqd-tcp-address=127.0.0.1:4150", "--topic=sub_bench", "--channel=ch",
        "--size=100", "--batch-size=200", "--runfor=10s", "--writers=1", "--readers=1",
        "--rdy=2500", "--pipeline=1", "--rate=0", "--latency=false"}) {
    EXPECT_NE(d.find(part), std::string::npos) << part << " in " << d;
  }
  EXPECT_EQ(d.find("--deadline"), std::string::npos);
}

TEST(ParseDeadline, GoLayout) {
  auto t = parse_deadline("2030-01-02 15:04:05");
  ASSERT_TRUE(t);
  auto u = parse_deadline("2030-01-02 15:04:06");
  ASSERT_TRUE(u);
  EXPECT_EQ(*u - *t, 1s);
  EXPECT_FALSE(parse_deadline("2030-01-02"));
  EXPECT_FALSE(parse_deadline("2030-01-02 15:04:05 extra"));
}

}  // namespace
}  // namespace nsq::bench
