// protocol::scan_line / split_command against the framing client_conn.cc did
// inline before they were extracted (kept here verbatim as the oracle), on
// hand-picked cases and on every short line over a small alphabet.
#include "protocol/command_line.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace nsq::nsqd::protocol {
namespace {

// The read loop's code before the extraction: nullopt-like empty name with
// found=false when no line; `too_long` when the loop would have closed.
struct OldResult {
  bool found = false;
  bool too_long = false;
  std::size_t consumed = 0;
  std::string name;
  std::vector<std::string> params;
};

OldResult old_framing(std::string_view data, std::size_t max_line) {
  OldResult r;
  std::size_t nl = data.substr(0, max_line).find('\n');
  if (nl == std::string_view::npos) {
    r.too_long = data.size() >= max_line;
    return r;
  }
  r.found = true;
  std::string line(data.data(), nl);
  r.consumed = nl + 1;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::string_view rest = line;
  std::string_view name = rest.substr(0, rest.find(' '));
  r.name = std::string(name);
  if (name.size() < rest.size()) {
    rest.remove_prefix(name.size() + 1);
    for (;;) {
      std::size_t sp = rest.find(' ');
      r.params.emplace_back(rest.substr(0, sp));
      if (sp == std::string_view::npos) break;
      rest.remove_prefix(sp + 1);
    }
  }
  return r;
}

void expect_same(std::string_view data, std::size_t max_line) {
  SCOPED_TRACE(testing::Message() << "input \"" << std::string(data) << "\" max " << max_line);
  OldResult want = old_framing(data, max_line);
  LineScan scan = scan_line(data, max_line);
  if (!want.found) {
    EXPECT_EQ(scan.status, want.too_long ? LineStatus::too_long : LineStatus::need_more);
    return;
  }
  ASSERT_EQ(scan.status, LineStatus::line);
  EXPECT_EQ(scan.consumed, want.consumed);
  CommandLine cmd;
  split_command(scan.line, cmd);
  EXPECT_EQ(cmd.name, want.name);
  ASSERT_EQ(cmd.params.size(), want.params.size());
  for (std::size_t i = 0; i < want.params.size(); ++i) EXPECT_EQ(cmd.params[i], want.params[i]);
}

TEST(CommandLineTest, CommonCommands) {
  LineScan scan = scan_line("SUB topic ch\nRDY 1\n");
  ASSERT_EQ(scan.status, LineStatus::line);
  EXPECT_EQ(scan.consumed, 13u);
  EXPECT_EQ(scan.line, "SUB topic ch");
  CommandLine cmd;
  split_command(scan.line, cmd);
  EXPECT_EQ(cmd.name, "SUB");
  EXPECT_EQ(cmd.params, (std::vector<std::string_view>{"topic", "ch"}));
  split_command("NOP", cmd);  // the params vector is reused: cleared
  EXPECT_EQ(cmd.name, "NOP");
  EXPECT_TRUE(cmd.params.empty());
}

TEST(CommandLineTest, CarriageReturnAndEmptyFields) {
  LineScan scan = scan_line("PUB  t \r\n");
  ASSERT_EQ(scan.status, LineStatus::line);
  EXPECT_EQ(scan.consumed, 9u);
  EXPECT_EQ(scan.line, "PUB  t ");
  CommandLine cmd;
  split_command(scan.line, cmd);
  EXPECT_EQ(cmd.params, (std::vector<std::string_view>{"", "t", ""}));
  // Only one '\r' is stripped, as Go's protocolV2 does.
  EXPECT_EQ(scan_line("NOP\r\r\n").line, "NOP\r");
}

TEST(CommandLineTest, LineLimitIsBufioSize) {
  std::string fits(kMaxLine - 1, 'N');
  fits += '\n';
  EXPECT_EQ(scan_line(fits).status, LineStatus::line);
  std::string over(kMaxLine, 'N');
  EXPECT_EQ(scan_line(over).status, LineStatus::too_long);
  over += '\n';
  EXPECT_EQ(scan_line(over).status, LineStatus::too_long);
  EXPECT_EQ(scan_line(std::string(kMaxLine - 1, 'N')).status, LineStatus::need_more);
  EXPECT_EQ(scan_line("").status, LineStatus::need_more);
}

TEST(CommandLineTest, SameAsTheInlineFramingOnEveryShortInput) {
  // Every string up to length 6 over {a, ' ', '\r', '\n'}, with a line
  // limit below, at and above its length.
  const char alphabet[] = {'a', ' ', '\r', '\n'};
  std::vector<std::string> inputs{""};
  for (int len = 1; len <= 6; ++len) {
    std::vector<std::string> next;
    for (const std::string& s : inputs) {
      if (s.size() + 1 != static_cast<std::size_t>(len)) continue;
      for (char c : alphabet) next.push_back(s + c);
    }
    inputs.insert(inputs.end(), next.begin(), next.end());
  }
  for (const std::string& s : inputs) {
    for (std::size_t max_line : {std::size_t{1}, std::size_t{3}, std::size_t{6}, kMaxLine}) {
      expect_same(s, max_line);
    }
  }
}

}  // namespace
}  // namespace nsq::nsqd::protocol
