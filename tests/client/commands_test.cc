#include "commands.h"

#include <gtest/gtest.h>

#include "nsq/mpub.h"

namespace nsq::client {
namespace {

using namespace std::chrono_literals;

MessageId id_of(std::string_view s) {
  MessageId id{};
  std::copy(s.begin(), s.end(), id.begin());
  return id;
}

TEST(ClientCommands, Bytes) {
  using namespace std::string_literals;
  EXPECT_EQ(commands::pub("t", "hi"), "PUB t\n\0\0\0\x02hi"s);
  EXPECT_EQ(commands::dpub("t", 1500ms, "x"), "DPUB t 1500\n\0\0\0\x01x"s);
  EXPECT_EQ(commands::sub("t", "c"), "SUB t c\n");
  EXPECT_EQ(commands::rdy(25), "RDY 25\n");
  auto id = id_of("0123456789abcdef");
  EXPECT_EQ(commands::fin(id), "FIN 0123456789abcdef\n");
  EXPECT_EQ(commands::req(id, 90s), "REQ 0123456789abcdef 90000\n");
  EXPECT_EQ(commands::touch(id), "TOUCH 0123456789abcdef\n");
}

TEST(ClientCommands, MpubBodyParsesBack) {
  std::string cmd = commands::mpub("t", {"a", "bb", "ccc"});
  const std::string head = "MPUB t\n";
  ASSERT_EQ(cmd.substr(0, head.size()), head);
  std::string_view body = std::string_view(cmd).substr(head.size() + 4);
  auto parsed = parse_mpub_body(body, {});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, (std::vector<std::string_view>{"a", "bb", "ccc"}));
}

}  // namespace
}  // namespace nsq::client
