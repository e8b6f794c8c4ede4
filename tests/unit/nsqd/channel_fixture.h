#pragma once

// ChannelTest: a Channel on a real disk queue in a temp directory, with
// helpers to put and take numbered messages.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/channel.h"
#include "core_test_env.h"
#include "nsq/names.h"

namespace nsq::nsqd {

using namespace std::chrono_literals;

inline constexpr std::chrono::nanoseconds kLongTimeout = 60s;

class ChannelTest : public ::testing::Test {
 protected:
  explicit ChannelTest(Options o = coretest::test_options()) : env_(std::move(o)) {}

  std::shared_ptr<Channel> make_channel(const std::string& name = "ch") {
    std::shared_ptr<diskqueue::DiskQueue> backend;
    if (!is_ephemeral(name)) backend = env_.open_backend("t:" + name);
    return std::make_shared<Channel>("t", name, env_.ctx, std::move(backend));
  }

  // Puts messages 1..n ("body-<i>"), performing any spill.
  std::vector<MessageRef> put_n(Channel& ch, int first, int n,
                                std::chrono::milliseconds defer = 0ms) {
    std::vector<MessageRef> msgs;
    for (int i = first; i < first + n; ++i) {
      msgs.push_back(
          coretest::make_message(static_cast<std::uint64_t>(i), "body-" + std::to_string(i)));
    }
    DiskWrites spill;
    ch.put(msgs, defer, spill);
    EXPECT_FALSE(DiskWriter(nullptr).write(spill));
    return msgs;
  }

  static std::vector<QueuedMessage> take(Channel& ch, ClientId id, std::int64_t rdy,
                                         std::int64_t max_count = 1000,
                                         std::chrono::nanoseconds timeout = kLongTimeout) {
    std::vector<QueuedMessage> out;
    ch.take(id, rdy, max_count, 0, timeout, out);
    return out;
  }

  static std::vector<std::string> bodies(const std::vector<QueuedMessage>& ms) {
    std::vector<std::string> out;
    for (const auto& m : ms) out.emplace_back(m.msg->body());
    return out;
  }

  coretest::CoreEnv env_;
};

}  // namespace nsq::nsqd
