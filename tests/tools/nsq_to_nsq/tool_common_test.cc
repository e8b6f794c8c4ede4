// tools/common pieces every tool relies on: version strings, the source
// selection texts, --consumer-opt through the FlagSet, and signals taken
// through the signalfd (no handler runs).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <future>
#include <string>
#include <vector>

#include "common/client_option_flags.h"
#include "common/source_flags.h"
#include "common/termination_signals.h"
#include "common/version.h"

namespace nsq::tools {
namespace {

using namespace std::chrono_literals;

TEST(ToolVersion, LinesAndUserAgent) {
  EXPECT_EQ(version_line("nsq_tail"), "nsq_tail v1.3.0");
  EXPECT_EQ(user_agent("nsq_to_nsq"), "nsq_to_nsq/1.3.0 go-nsq/1.1.0");
}

TEST(SourceSelection, ExactlyOneKind) {
  SourceAddresses none;
  EXPECT_EQ(source_selection_error(none), "--nsqd-tcp-address or --lookupd-http-address required");
  SourceAddresses both{{"a:1"}, {"b:2"}};
  EXPECT_EQ(source_selection_error(both),
            "use --nsqd-tcp-address or --lookupd-http-address not both");
  SourceAddresses nsqd{{"a:1", "a:2"}, {}};
  EXPECT_FALSE(source_selection_error(nsqd));
  SourceAddresses lookupd{{}, {"b:2"}};
  EXPECT_FALSE(source_selection_error(lookupd));
}

TEST(ClientOptionFlag, AppliesEachOccurrenceAndFailsLikeABadFlag) {
  client::Config config;
  SourceAddresses sources;
  flags::FlagSet fs("tool");
  add_source_flags(fs, &sources);
  add_client_option_flag(fs, "consumer-opt", &config, kConsumerOptUsage);
  std::vector<std::string> args = {"--consumer-opt=max_in_flight,7", "--consumer-opt",     "snappy",
                                   "--nsqd-tcp-address=a:1",         "--nsqd-tcp-address", "b:2"};
  ASSERT_TRUE(fs.parse(args));
  EXPECT_EQ(config.max_in_flight, 7);
  EXPECT_TRUE(config.snappy);
  EXPECT_EQ(sources.nsqd_tcp, (std::vector<std::string>{"a:1", "b:2"}));
  EXPECT_NE(fs.usage().find("  -consumer-opt value\n"), std::string::npos) << fs.usage();

  flags::FlagSet bad("tool");
  add_client_option_flag(bad, "consumer-opt", &config, kConsumerOptUsage);
  std::vector<std::string> bad_args = {"--consumer-opt=no_such_option,1"};
  auto r = bad.parse(bad_args);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, flags::FlagError::Kind::invalid);
  EXPECT_EQ(
      r.error().message.rfind("invalid value \"no_such_option,1\" for flag -consumer-opt: ", 0), 0u)
      << r.error().message;
}

TEST(TerminationSignals, PendingSignalIsReadNotHandled) {
  TerminationSignals signals;
  EXPECT_FALSE(signals.next());
  ASSERT_EQ(::raise(SIGTERM), 0);  // blocked: stays pending for the signalfd
  EXPECT_EQ(signals.wait(), SIGTERM);
  EXPECT_FALSE(signals.next());
}

TEST(TerminationSignals, WatcherThreadSeesEachSignal) {
  TerminationSignals signals({SIGHUP});
  std::promise<int> first;
  auto seen = first.get_future();
  std::atomic<int> count{0};
  signals.watch([&](int sig) {
    if (count.fetch_add(1) == 0) first.set_value(sig);
  });
  ASSERT_EQ(::kill(::getpid(), SIGHUP), 0);
  ASSERT_EQ(seen.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(seen.get(), SIGHUP);
}

}  // namespace
}  // namespace nsq::tools
