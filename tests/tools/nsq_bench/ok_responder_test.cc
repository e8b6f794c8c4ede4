#include "ok_responder.h"

#include <gtest/gtest.h>

#include <string>

#include "commands.h"
#include "frame_buffer.h"

namespace nsq::bench {
namespace {

using namespace std::chrono_literals;

std::string with_body(std::string line, std::string_view body) {
  const auto n = static_cast<uint32_t>(body.size());
  line += '\n';
  for (int shift = 24; shift >= 0; shift -= 8) line += static_cast<char>((n >> shift) & 0xff);
  line += body;
  return line;
}

// Reads frames until `count` arrived or nothing more comes within a second.
std::vector<std::string> responses(Socket& s, FrameBuffer& in, std::size_t count) {
  std::vector<std::string> got;
  while (got.size() < count) {
    while (auto f = in.next()) got.emplace_back(f->data);
    if (got.size() >= count) break;
    auto n = s.read_some(in.prepare(), 1s);
    if (!n || *n == 0) break;
    in.commit(*n);
  }
  return got;
}

TEST(OkResponder, AnswersEachPublishOnceCompleteAndNothingElse) {
  OkResponder responder;
  auto address = responder.start();
  ASSERT_TRUE(address) << address.error();
  auto s = connect_tcp(*address);
  ASSERT_TRUE(s) << s.error();
  FrameBuffer in;
  const std::string pub = with_body("PUB t", "hello");
  // The magic and half a PUB: no answer yet.
  ASSERT_TRUE(s->write_all(std::string(kMagic) + pub.substr(0, 8)));
  ASSERT_TRUE(s->write_all(pub.substr(8) + "NOP\n" + with_body("MPUB t", std::string(12, 'x')) +
                           with_body("DPUB t 10", "b")));
  const auto got = responses(*s, in, 3);
  EXPECT_EQ(got, (std::vector<std::string>{"OK", "OK", "OK"}));
  // No fourth answer (the NOP has none).
  ASSERT_TRUE(s->write_all(pub));
  EXPECT_EQ(responses(*s, in, 2).size(), 1u);
  s = Socket();
  EXPECT_EQ(responder.stop(), "");
}

TEST(OkResponder, StopsWhenNoClientEverCame) {
  OkResponder responder;
  ASSERT_TRUE(responder.start());
  EXPECT_EQ(responder.stop(), "");
}

}  // namespace
}  // namespace nsq::bench
