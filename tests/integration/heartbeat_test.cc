// Heartbeats and the read deadline (tcp-protocol.md §9).

#include "integration/harness.h"

namespace nsq::integration {
namespace {

using Clock = std::chrono::steady_clock;
using HeartbeatTest = NsqdTest;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// IDENTIFY heartbeat_interval=1000 → `_heartbeat_` about every second, answered with NOP.
TEST_F(HeartbeatTest, ArriveEveryIntervalAndNopKeepsAlive) {
  start();
  auto c = client();
  c.identify(R"({"heartbeat_interval":1000})");
  ASSERT_TRUE(got_response(c, "OK"));
  auto last = Clock::now();
  for (int i = 0; i < 4; ++i) {
    auto r = c.read(2500ms);
    ASSERT_TRUE(is_response(r, "_heartbeat_")) << "heartbeat #" << i;
    double gap = seconds_since(last);
    // First one: up to one interval after IDENTIFY; later ones: one interval apart.
    if (i > 0) {
      EXPECT_GE(gap, 0.7) << "heartbeat #" << i;
    }
    EXPECT_LE(gap, 1.6) << "heartbeat #" << i;
    last = Clock::now();
    c.nop();
  }
  // Alive after > 2 intervals thanks to the NOPs.
  EXPECT_TRUE(barrier(c));
}

// A client that never answers is disconnected after ~2 intervals without an error frame.
TEST_F(HeartbeatTest, SilentClientIsDisconnected) {
  start();
  auto c = client();
  c.identify(R"({"heartbeat_interval":1000})");
  ASSERT_TRUE(got_response(c, "OK"));
  auto t0 = Clock::now();
  int heartbeats = 0;
  for (;;) {
    auto r = c.read(5000ms);
    if (r.status == RawClient::ReadStatus::frame) {
      ASSERT_TRUE(is_response(r, "_heartbeat_"));
      ++heartbeats;
      continue;
    }
    ASSERT_EQ(r.status, RawClient::ReadStatus::closed) << r.describe();
    break;
  }
  double t = seconds_since(t0);
  EXPECT_GE(t, 1.6) << "closed too early";
  EXPECT_LE(t, 3.0) << "closed too late";
  EXPECT_GE(heartbeats, 1);
  EXPECT_LE(heartbeats, 2);
}

// Subscribed consumers get heartbeats too, interleaved with messages; any
// command (not only NOP) resets the read deadline.
TEST_F(HeartbeatTest, SubscribedConsumerStaysAliveByCommands) {
  start();
  auto c = consumer("t", "c", 1, R"({"heartbeat_interval":1000})");
  auto t0 = Clock::now();
  int heartbeats = 0;
  int i = 0;
  while (seconds_since(t0) < 4.5) {
    // Publish through this connection every ~500 ms: traffic keeps it alive.
    c.pub("t", "b" + std::to_string(i++));
    bool ok = false;
    bool msg = false;
    while (!ok || !msg) {
      auto r = c.read(2000ms);
      ASSERT_EQ(r.status, RawClient::ReadStatus::frame)
          << r.describe() << " after " << seconds_since(t0) << " s";
      if (r.frame.type == FrameType::message) {
        auto m = testutil::to_test_message(r.frame);
        ASSERT_TRUE(m);
        c.fin(m->id);
        msg = true;
      } else if (r.frame.data == "_heartbeat_") {
        ++heartbeats;
      } else {
        ASSERT_TRUE(is_response(r, "OK"));
        ok = true;
      }
    }
    auto quiet = c.read(500ms);
    if (quiet.status == RawClient::ReadStatus::frame) {
      ASSERT_TRUE(is_response(quiet, "_heartbeat_"));
      ++heartbeats;
    }
  }
  EXPECT_GE(heartbeats, 3) << "heartbeats must flow while other traffic flows";
  EXPECT_TRUE(barrier(c));
}

// Default interval: nothing in the first second (30 s default).
TEST_F(HeartbeatTest, DefaultIntervalIsLong) {
  start();
  auto c = client();
  c.identify(R"({"heartbeat_interval":0})");
  ASSERT_TRUE(got_response(c, "OK"));
  auto r = c.read(1500ms);
  EXPECT_EQ(r.status, RawClient::ReadStatus::timeout) << r.describe();
}

}  // namespace
}  // namespace nsq::integration
