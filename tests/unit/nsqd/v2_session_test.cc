// protocol::V2Session: bytes in, commands and bodies out. Every case is fed
// whole, byte by byte, and split in two at every offset: the steps must not
// depend on how the bytes arrive.
#include "protocol/v2_session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nsq/endian.h"

namespace nsq::nsqd::protocol {
namespace {

SessionLimits small_limits() { return SessionLimits{/*max_body_size=*/100, /*max_msg_size=*/20}; }

std::string sized(std::string_view body) {
  std::string out(4, '\0');
  put_u32be(out.data(), static_cast<std::uint32_t>(body.size()));
  out += body;
  return out;
}

std::string size_field(std::int32_t n) {
  std::string out(4, '\0');
  put_u32be(out.data(), static_cast<std::uint32_t>(n));
  return out;
}

// MPUB's stream after the declared size: count, then sized messages.
std::string mpub_stream(const std::vector<std::string>& messages) {
  std::string out = size_field(static_cast<std::int32_t>(messages.size()));
  for (const std::string& m : messages) out += sized(m);
  return out;
}

// What a connection would see, one line per step; commands that carry a
// body ask for it, as their handlers do.
std::vector<std::string> drive(std::string_view input, std::vector<std::size_t> arrivals,
                               SessionLimits limits = small_limits()) {
  V2Session session(limits);
  std::vector<std::string> log;
  std::size_t start = 0, arrived = 0, next_arrival = 0;
  bool ended = false;
  auto arrive = [&] {
    if (next_arrival < arrivals.size()) {
      arrived = std::max(arrived, std::min(input.size(), arrivals[next_arrival++]));
    } else if (arrived < input.size()) {
      arrived = input.size();
    } else {
      ended = true;
    }
  };
  arrive();
  for (int guard = 0; guard < 100000; ++guard) {
    Step s = session.next(input.substr(start, arrived - start), ended);
    switch (s.kind) {
      case Step::Kind::need_more:
        EXPECT_EQ(s.consumed, 0u);
        EXPECT_GT(s.need, arrived - start) << "need_more asks for what is already there";
        arrive();
        continue;
      case Step::Kind::close:
        log.push_back("close");
        return log;
      case Step::Kind::error:
        log.push_back("error " + s.error.render() + (s.error.fatal ? "" : " (not fatal)"));
        return log;
      case Step::Kind::command: {
        std::string line = "cmd " + std::string(s.command->name);
        for (std::string_view p : s.command->params) line += " [" + std::string(p) + "]";
        log.push_back(line);
        const std::string_view name = s.command->name;
        if (name == "PUB" || name == "DPUB") session.expect_body(BodyKind::message);
        if (name == "MPUB") session.expect_body(BodyKind::mpub);
        if (name == "IDENTIFY") session.expect_body(BodyKind::identify);
        if (name == "AUTH") session.expect_body(BodyKind::auth);
        break;
      }
      case Step::Kind::body: {
        std::string line = "body " + std::string(s.command->name);
        if (s.messages.empty()) line += " " + std::string(s.body);
        for (std::string_view m : s.messages) line += " <" + std::string(m) + ">";
        log.push_back(line);
        break;
      }
    }
    EXPECT_GT(s.consumed, 0u);
    start += s.consumed;
    EXPECT_LE(start, arrived);
  }
  ADD_FAILURE() << "no end";
  return log;
}

// Whole, byte by byte, and in two parts split at every offset: one log.
std::vector<std::string> steps(std::string_view input, SessionLimits limits = small_limits()) {
  const std::vector<std::string> whole = drive(input, {input.size()}, limits);
  std::vector<std::size_t> one_by_one;
  for (std::size_t i = 1; i <= input.size(); ++i) one_by_one.push_back(i);
  EXPECT_EQ(drive(input, one_by_one, limits), whole) << "byte by byte";
  for (std::size_t split = 0; split <= input.size(); ++split) {
    EXPECT_EQ(drive(input, {split, input.size()}, limits), whole) << "split at " << split;
  }
  return whole;
}

using Log = std::vector<std::string>;

TEST(V2Session, CommandsAndBodies) {
  const std::string input =
      "  V2"
      "NOP\n"
      "PUB t\n" +
      sized("hello") + "FIN 0123456789abcdef\r\n" + "DPUB t 100\n" + sized("later") + "RDY 5\n";
  EXPECT_EQ(steps(input),
            (Log{"cmd NOP", "cmd PUB [t]", "body PUB hello", "cmd FIN [0123456789abcdef]",
                 "cmd DPUB [t] [100]", "body DPUB later", "cmd RDY [5]", "close"}));
}

TEST(V2Session, BadMagicIsRefused) {
  V2Session session(small_limits());
  Step s = session.next("  V1NOP\n", false);
  ASSERT_EQ(s.kind, Step::Kind::error);
  EXPECT_EQ(s.error.render(), "E_BAD_PROTOCOL");
  EXPECT_EQ(session.bad_magic(), "  V1");
  EXPECT_EQ(steps("GET / HTTP/1.1\r\n"), (Log{"error E_BAD_PROTOCOL"}));
}

TEST(V2Session, StreamEndsBetweenCommandsOrMidLine) {
  EXPECT_EQ(steps(""), (Log{"close"}));
  EXPECT_EQ(steps("  V"), (Log{"close"}));
  EXPECT_EQ(steps("  V2"), (Log{"close"}));
  EXPECT_EQ(steps("  V2NOP\nRD"), (Log{"cmd NOP", "close"}));
}

// (Not split at every offset: 16 KiB of splits, each rescanning the line.)
TEST(V2Session, LineOver16KiBClosesWithoutReply) {
  const std::string too_long = "  V2NOP\n" + std::string(16 * 1024, 'x') + "\nNOP\n";
  EXPECT_EQ(drive(too_long, {too_long.size()}), (Log{"cmd NOP", "close"}));
  EXPECT_EQ(drive(too_long, {6, 9, 5000, 16 * 1024 + 7}), (Log{"cmd NOP", "close"}));
  // 16 KiB including the '\n' still fits.
  const std::string longest = "  V2" + std::string(16 * 1024 - 1, 'x') + "\n";
  EXPECT_EQ(drive(longest, {5000, longest.size()}),
            (Log{"cmd " + std::string(16 * 1024 - 1, 'x'), "close"}));
}

TEST(V2Session, MessageBodyLimits) {
  EXPECT_EQ(steps("  V2PUB t\n" + size_field(0)),
            (Log{"cmd PUB [t]", "error E_BAD_MESSAGE PUB invalid message body size 0"}));
  EXPECT_EQ(steps("  V2DPUB t 1\n" + size_field(-5)),
            (Log{"cmd DPUB [t] [1]", "error E_BAD_MESSAGE DPUB invalid message body size -5"}));
  EXPECT_EQ(steps("  V2PUB t\n" + size_field(21)),
            (Log{"cmd PUB [t]", "error E_BAD_MESSAGE PUB message too big 21 > 20"}));
  EXPECT_EQ(steps("  V2PUB t\n" + sized(std::string(20, 'm'))),
            (Log{"cmd PUB [t]", "body PUB " + std::string(20, 'm'), "close"}));
}

TEST(V2Session, TruncatedBodiesSayWhatWasMissing) {
  EXPECT_EQ(steps("  V2PUB t\n" + std::string(2, '\0')),
            (Log{"cmd PUB [t]", "error E_BAD_MESSAGE PUB failed to read message body size"}));
  EXPECT_EQ(steps("  V2PUB t\n" + size_field(5) + "abc"),
            (Log{"cmd PUB [t]", "error E_BAD_MESSAGE PUB failed to read message body"}));
  EXPECT_EQ(steps("  V2IDENTIFY\n"),
            (Log{"cmd IDENTIFY", "error E_BAD_BODY IDENTIFY failed to read body size"}));
  EXPECT_EQ(steps("  V2AUTH\n" + size_field(10) + "secret"),
            (Log{"cmd AUTH", "error E_BAD_BODY AUTH failed to read body"}));
}

TEST(V2Session, IdentifyAndAuthBodyLimits) {
  // Too big is checked before invalid, as nsqd does for these two.
  EXPECT_EQ(steps("  V2IDENTIFY\n" + size_field(101)),
            (Log{"cmd IDENTIFY", "error E_BAD_BODY IDENTIFY body too big 101 > 100"}));
  EXPECT_EQ(steps("  V2AUTH\n" + size_field(0)),
            (Log{"cmd AUTH", "error E_BAD_BODY AUTH invalid body size 0"}));
  EXPECT_EQ(steps("  V2IDENTIFY\n" + sized("{}") + "NOP\n"),
            (Log{"cmd IDENTIFY", "body IDENTIFY {}", "cmd NOP", "close"}));
}

TEST(V2Session, MpubReadsTheStreamNotTheDeclaredSize) {
  const std::string stream = mpub_stream({"a", "bc"});
  // Declared as the payloads alone (squeaky does this): still two messages,
  // and what follows is the next command.
  EXPECT_EQ(steps("  V2MPUB t\n" + size_field(3) + stream + "NOP\n"),
            (Log{"cmd MPUB [t]", "body MPUB <a> <bc>", "cmd NOP", "close"}));
  EXPECT_EQ(steps("  V2MPUB t\n" + size_field(0) + stream),
            (Log{"cmd MPUB [t]", "error E_BAD_BODY MPUB invalid body size 0"}));
  EXPECT_EQ(steps("  V2MPUB t\n" + size_field(101) + stream),
            (Log{"cmd MPUB [t]", "error E_BAD_BODY MPUB body too big 101 > 100"}));
  EXPECT_EQ(steps("  V2MPUB t\n" + size_field(16) + size_field(0)),
            (Log{"cmd MPUB [t]", "error E_BAD_BODY MPUB invalid message count 0"}));
  EXPECT_EQ(steps("  V2MPUB t\n" + size_field(16) + size_field(2) + sized("a")),
            (Log{"cmd MPUB [t]", "error E_BAD_MESSAGE MPUB failed to read message(1) body size"}));
  EXPECT_EQ(steps("  V2MPUB t\n" + size_field(16) + size_field(1) + sized(std::string(21, 'm'))),
            (Log{"cmd MPUB [t]", "error E_BAD_MESSAGE MPUB message too big 21 > 20"}));
}

}  // namespace
}  // namespace nsq::nsqd::protocol
