// What nsqd tells nsqlookupd, ours against Go nsqd v1.3.0: each nsqd gets an
// nsqlookupd of its own (ours, the same binary for both), and what the two
// lookupds end up listing is compared.
#include <string>
#include <thread>

#include "differential/diff_harness.h"
#include "testutil/http_client.h"
#include "testutil/raw_client.h"

namespace nsq::differential {
namespace {

using testutil::http_once;
using testutil::NsqlookupdProcess;
using testutil::RawClient;

class LookupRegistrationDiff : public DifferentialTest {
 protected:
  // Starts a lookupd for each broker, then both brokers registering with it.
  bool start_with_lookupds() {
    for (auto* l : {&go_lookupd_, &ours_lookupd_}) {
      std::string err = l->start({});
      if (!err.empty()) {
        ADD_FAILURE() << "nsqlookupd did not start: " << err;
        return false;
      }
    }
    return start_each(
        {"--lookupd-tcp-address=127.0.0.1:" + std::to_string(go_lookupd_.tcp_port())},
        {"--lookupd-tcp-address=127.0.0.1:" + std::to_string(ours_lookupd_.tcp_port())});
  }

  // GET path on a lookupd until its body contains `want` (registrations
  // arrive asynchronously) or 5 s pass; returns the last body.
  static std::string lookupd_body(NsqlookupdProcess& l, const std::string& path,
                                  const std::string& want) {
    std::string body;
    for (int i = 0; i < 100; ++i) {
      auto r = http_once(l.http_port(), "GET", path);
      body = r ? r->body : "<no answer>";
      if (body.find(want) != std::string::npos) break;
      std::this_thread::sleep_for(ms(50));  // polling another process's state
    }
    return body;
  }

  NsqlookupdProcess go_lookupd_, ours_lookupd_;
};

// Deleting a topic unregisters it and then each of its channels: Go's
// nsqlookupd then lists the durable channel with no producer and forgets the
// ephemeral one (issue 17: ours unregistered only the topic).
TEST_F(LookupRegistrationDiff, TopicDeletionUnregistersItsChannels) {
  ASSERT_TRUE(start_with_lookupds());
  std::string after[2];
  Broker* brokers[2] = {&go(), &ours()};
  NsqlookupdProcess* lookupds[2] = {&go_lookupd_, &ours_lookupd_};
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(brokers[i]->name);
    RawClient durable, ephemeral;
    ASSERT_TRUE(durable.connect(brokers[i]->tcp_port()) && durable.magic() &&
                durable.sub("t", "c"));
    ASSERT_TRUE(ephemeral.connect(brokers[i]->tcp_port()) && ephemeral.magic() &&
                ephemeral.sub("t", "e#ephemeral"));
    // Go registers each channel on its own goroutine: either may come first.
    (void)lookupd_body(*lookupds[i], "/channels?topic=t", "\"c\"");
    std::string before = lookupd_body(*lookupds[i], "/channels?topic=t", "e#ephemeral");
    ASSERT_NE(before.find("\"c\""), std::string::npos) << before;
    ASSERT_NE(before.find("e#ephemeral"), std::string::npos) << before;
    auto del = http_once(brokers[i]->http_port(), "POST", "/topic/delete?topic=t");
    ASSERT_TRUE(del);
    EXPECT_EQ(del->status, 200);
    after[i] = lookupd_body(*lookupds[i], "/channels?topic=t", R"({"channels":["c"]})");
  }
  EXPECT_EQ(after[1], after[0]) << "ours (left), Go's (right)";
  EXPECT_EQ(after[1], R"({"channels":["c"]})");
}

}  // namespace
}  // namespace nsq::differential
