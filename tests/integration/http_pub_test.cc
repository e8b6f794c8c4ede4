// POST /pub and POST /mpub (http-api.md §3), checked end to end: what the
// HTTP publisher sends is what a raw TCP consumer receives.

#include <algorithm>
#include <set>
#include <tuple>

#include "integration/http_harness.h"

namespace nsq::integration {
namespace {

using Clock = std::chrono::steady_clock;
using HttpPubTest = HttpTest;

const HttpClient::Headers kChunked = {{"Transfer-Encoding", "chunked"}};

// Bodies of the next n messages (each FINed), in arrival order.
std::vector<std::string> receive(RawClient& c, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    auto m = read_message(c);
    if (!m) break;
    out.push_back(m->body);
    c.fin(m->id);
  }
  return out;
}

// §3 /pub: 200 OK, the raw body (any bytes) reaches a TCP consumer.
TEST_F(HttpPubTest, PubDelivers) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 10);
  const std::string body("hello\nworld\r\n\0\xff end", 18);
  EXPECT_TRUE(is_v1_ok(post("/pub?topic=t", body), "OK"));
  auto m = read_message(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body, body);
  EXPECT_EQ(m->attempts, 1);
  c.fin(m->id);
  EXPECT_TRUE(got_nothing(c));
  EXPECT_EQ(topic_stat("t", "message_count"), 1);
  EXPECT_EQ(topic_stat("t", "message_bytes"), static_cast<int64_t>(body.size()));
}

// §3 /pub creates the topic; the message waits for the first channel.
TEST_F(HttpPubTest, PubCreatesTopicAndBuffers) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_ok(post("/pub?topic=fresh", "one"), "OK"));
  EXPECT_TRUE(is_v1_ok(post("/pub?topic=fresh&topic=other", "two"), "OK"))
      << "first value of a repeated key";
  EXPECT_EQ(topic_stat("fresh", "depth"), 2);
  ASSERT_TRUE(stats());
  EXPECT_EQ(topic("other"), nullptr) << stats_body_;
  auto c = consumer("fresh", "c", 10);
  EXPECT_EQ(receive(c, 2), (std::vector<std::string>{"one", "two"}));
}

// §3 /pub defer: DPUB semantics - delivered not before the delay, counted as deferred meanwhile.
TEST_F(HttpPubTest, PubDeferDelays) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 10);
  auto t0 = Clock::now();
  ASSERT_TRUE(is_v1_ok(post("/pub?topic=t&defer=1200", "later"), "OK"));
  EXPECT_TRUE(is_v1_ok(post("/pub?topic=t&defer=0", "now"), "OK"));
  auto m = read_message(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body, "now");
  c.fin(m->id);
  EXPECT_EQ(channel_stat("t", "c", "deferred_count"), 1);
  m = read_message(c, 5000ms);
  ASSERT_TRUE(m);
  auto waited = Clock::now() - t0;
  EXPECT_EQ(m->body, "later");
  EXPECT_EQ(m->attempts, 1);
  EXPECT_GE(waited, 1190ms) << "deferred message delivered early";
  EXPECT_LE(waited, 4000ms);
  c.fin(m->id);
  EXPECT_EQ(channel_stat("t", "c", "deferred_count"), 0);
}

// §3 /pub error table (checks before the topic is created).
TEST_F(HttpPubTest, PubErrors) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_error(post("/pub?topic=t"), 400, "MSG_EMPTY"));
  EXPECT_TRUE(is_v1_error(post("/pub"), 400, "MSG_EMPTY")) << "body checked before the topic";
  EXPECT_TRUE(is_v1_error(post("/pub", "x"), 400, "MISSING_ARG_TOPIC"));
  EXPECT_TRUE(is_v1_error(post("/pub?channel=t", "x"), 400, "MISSING_ARG_TOPIC"));
  EXPECT_TRUE(is_v1_error(post("/pub?topic=", "x"), 400, "INVALID_TOPIC"));
  EXPECT_TRUE(is_v1_error(post("/pub?topic=bad!", "x"), 400, "INVALID_TOPIC"));
  EXPECT_TRUE(is_v1_error(post("/pub?topic=" + std::string(65, 'a'), "x"), 400, "INVALID_TOPIC"));
  EXPECT_TRUE(is_v1_error(post("/pub?topic=a%20b", "x"), 400, "INVALID_TOPIC"));
  EXPECT_TRUE(is_v1_ok(post("/pub?topic=" + std::string(64, 'a'), "x"), "OK"));
  EXPECT_TRUE(is_v1_ok(post("/pub?topic=eph%23ephemeral", "x"), "OK"));
  ASSERT_TRUE(stats());
  EXPECT_EQ(topic("t"), nullptr) << "MSG_EMPTY created the topic: " << stats_body_;
  EXPECT_NE(topic("eph#ephemeral"), nullptr) << stats_body_;
}

// §3 /pub MSG_TOO_BIG by Content-Length and (chunked, no length) by body; the limit itself is fine.
TEST_F(HttpPubTest, PubMsgTooBig) {
  start_http({"--max-msg-size=100"});
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_error(post("/pub?topic=t", std::string(101, 'x')), 413, "MSG_TOO_BIG"));
  EXPECT_TRUE(is_v1_error(req("POST", "/pub?topic=t", std::string(101, 'y'), kChunked), 413,
                          "MSG_TOO_BIG"));
  EXPECT_TRUE(is_v1_error(req("POST", "/pub?topic=t", std::string(5000, 'z'), kChunked), 413,
                          "MSG_TOO_BIG"));
  // Size checks come before the topic checks.
  EXPECT_TRUE(is_v1_error(post("/pub?topic=bad!", std::string(101, 'x')), 413, "MSG_TOO_BIG"));
  ASSERT_TRUE(stats());
  EXPECT_EQ(topic("t"), nullptr) << "a too big message created the topic: " << stats_body_;
  EXPECT_TRUE(is_v1_ok(post("/pub?topic=t", std::string(100, 'a')), "OK"));
  EXPECT_TRUE(is_v1_ok(req("POST", "/pub?topic=t", std::string(100, 'b'), kChunked), "OK"));
  auto c = consumer("t", "c", 10);
  EXPECT_EQ(receive(c, 2),
            (std::vector<std::string>{std::string(100, 'a'), std::string(100, 'b')}));
  EXPECT_TRUE(got_nothing(c));
}

// §3 /pub, /mpub: the Content-Length check comes before the body is read: a
// request announcing a too big body is answered without waiting for it.
TEST_F(HttpPubTest, TooBigContentLengthAnsweredBeforeBody) {
  start_http({"--max-msg-size=100", "--max-body-size=1000"});
  if (IsSkipped() || HasFatalFailure()) return;
  for (auto [target, len, msg] : {std::tuple{"/pub?topic=t", 1000000, "MSG_TOO_BIG"},
                                  std::tuple{"/mpub?topic=t", 1000000, "BODY_TOO_BIG"}}) {
    HttpClient c(http_port(), 3000ms);
    ASSERT_TRUE(c.connect());
    ASSERT_TRUE(c.send_raw(std::string("POST ") + target +
                           " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(len) +
                           "\r\n\r\n" + std::string(10, 'x')));
    auto r = c.read_response();
    EXPECT_TRUE(is_v1_error(r, 413, msg)) << target << ": " << c.last_error();
  }
  ASSERT_TRUE(stats());
  EXPECT_EQ(topic("t"), nullptr) << stats_body_;
}

// §3 /pub INVALID_DEFER: not an integer, negative, above --max-req-timeout
// (checked after the topic was created; nothing published).
TEST_F(HttpPubTest, PubInvalidDefer) {
  start_http({"--max-req-timeout=10s"});
  if (IsSkipped() || HasFatalFailure()) return;
  for (const char* d : {"abc", "1.5", "", "1e3", "-1", "10001", "99999999999999999999"}) {
    EXPECT_TRUE(
        is_v1_error(post(std::string("/pub?topic=t&defer=") + d, "x"), 400, "INVALID_DEFER"))
        << "defer=" << d;
  }
  ASSERT_TRUE(stats("topic=t"));
  auto* tp = topic("t");
  ASSERT_NE(tp, nullptr) << "the topic is created before defer is checked: " << stats_body_;
  EXPECT_EQ(int_of(*tp, "message_count"), 0);
  EXPECT_TRUE(is_v1_ok(post("/pub?topic=t&defer=10000", "max"), "OK"))
      << "defer = max-req-timeout is allowed";
  // A '+' must be %-escaped: a bare one decodes to a space, which ParseInt refuses.
  EXPECT_TRUE(is_v1_ok(post("/pub?topic=t&defer=%2B5", "plus"), "OK")) << "signed base-10 integer";
  EXPECT_TRUE(is_v1_error(post("/pub?topic=t&defer=+5", "space"), 400, "INVALID_DEFER"));
  EXPECT_EQ(topic_stat("t", "message_count"), 2);
}

// Go master: defer= bounded by --max-defer-timeout when given, and /mpub
// takes one defer= for all its messages (each delivered only after it).
TEST_F(HttpPubTest, MaxDeferTimeoutAndMpubDefer) {
  start_http({"--max-req-timeout=10s", "--max-defer-timeout=20s"});
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_error(post("/pub?topic=t&defer=20001", "x"), 400, "INVALID_DEFER"));
  EXPECT_TRUE(is_v1_ok(post("/pub?topic=t&defer=20000", "x"), "OK")) << "above max-req-timeout";
  for (const char* d : {"abc", "-1", "20001"}) {
    EXPECT_TRUE(
        is_v1_error(post(std::string("/mpub?topic=m&defer=") + d, "a\nb"), 400, "INVALID_DEFER"))
        << "defer=" << d;
  }
  auto c = consumer("m", "c", 10);
  const auto sent = std::chrono::steady_clock::now();
  EXPECT_TRUE(is_v1_ok(post("/mpub?topic=m&defer=1500", "a\nb"), "OK"));
  EXPECT_TRUE(is_v1_ok(
      post("/mpub?topic=m&binary=true&defer=1500", std::string("\0\0\0\1\0\0\0\1c", 9)), "OK"));
  EXPECT_TRUE(got_nothing(c)) << "deferred: nothing at once";
  auto got = receive(c, 3);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_GE(std::chrono::steady_clock::now() - sent, std::chrono::milliseconds(1400));
  ASSERT_TRUE(stats("topic=m"));
  EXPECT_EQ(topic_stat("m", "message_count"), 3);
}

// §3 /mpub text mode: split on \n, \r kept, empty lines skipped.
TEST_F(HttpPubTest, MpubText) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 10);
  EXPECT_TRUE(is_v1_ok(post("/mpub?topic=t", "a\nb\r\n\n\nc d\n"), "OK"));
  EXPECT_EQ(receive(c, 3), (std::vector<std::string>{"a", "b\r", "c d"}));
  EXPECT_TRUE(got_nothing(c));
  EXPECT_TRUE(is_v1_ok(post("/mpub?topic=t&binary=false", "x\ny"), "OK")) << "no final newline";
  EXPECT_EQ(receive(c, 2), (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(is_v1_ok(post("/mpub?topic=t&binary=0", "z"), "OK"));
  EXPECT_EQ(receive(c, 1), (std::vector<std::string>{"z"}));
  EXPECT_TRUE(got_nothing(c));
  EXPECT_EQ(topic_stat("t", "message_count"), 6);
}

// §3 /mpub text: an empty body (or only newlines) → OK, nothing published, topic created.
TEST_F(HttpPubTest, MpubTextEmptyPublishesNothing) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_ok(post("/mpub?topic=t"), "OK"));
  EXPECT_TRUE(is_v1_ok(post("/mpub?topic=t", "\n\n\n"), "OK"));
  EXPECT_EQ(topic_stat("t", "message_count"), 0);
  auto c = consumer("t", "c", 10);
  EXPECT_TRUE(got_nothing(c));
}

// §3 /mpub text: a line longer than max-msg-size → 413 MSG_TOO_BIG, nothing published.
TEST_F(HttpPubTest, MpubTextLineTooLong) {
  start_http({"--max-msg-size=10"});
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 10);
  EXPECT_TRUE(is_v1_error(post("/mpub?topic=t", "short\n" + std::string(11, 'x') + "\nlast"), 413,
                          "MSG_TOO_BIG"));
  EXPECT_TRUE(
      is_v1_error(post("/mpub?topic=t", "first\n" + std::string(11, 'x')), 413, "MSG_TOO_BIG"));
  EXPECT_TRUE(got_nothing(c)) << "part of a rejected MPUB was published";
  EXPECT_EQ(topic_stat("t", "message_count"), 0);
  // Exactly max-msg-size, with the \r counted.
  EXPECT_TRUE(is_v1_ok(
      post("/mpub?topic=t", std::string(10, 'a') + "\n" + std::string(9, 'b') + "\r\n"), "OK"));
  EXPECT_EQ(receive(c, 2),
            (std::vector<std::string>{std::string(10, 'a'), std::string(9, 'b') + "\r"}));
  EXPECT_TRUE(is_v1_error(post("/mpub?topic=t", std::string(10, 'b') + "\r\n"), 413, "MSG_TOO_BIG"))
      << "the \\r is part of the message";
}

std::string binary_body(const std::vector<std::string>& msgs) {
  std::string b = be32(static_cast<uint32_t>(msgs.size()));
  for (auto& m : msgs) b += be32(static_cast<uint32_t>(m.size())) + m;
  return b;
}

// §3 /mpub binary mode: [count]([size][bytes])*, bodies arbitrary bytes.
TEST_F(HttpPubTest, MpubBinary) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 10);
  const std::vector<std::string> msgs = {"one", std::string("t\nw\0o", 5), "three\r\n"};
  EXPECT_TRUE(is_v1_ok(post("/mpub?topic=t&binary=true", binary_body(msgs)), "OK"));
  EXPECT_EQ(receive(c, 3), msgs);
  EXPECT_TRUE(is_v1_ok(post("/mpub?topic=t&binary=1", binary_body({"b1"})), "OK"));
  EXPECT_EQ(receive(c, 1), (std::vector<std::string>{"b1"}));
  // Any other value also means binary (deprecated).
  EXPECT_TRUE(is_v1_ok(post("/mpub?topic=t&binary=yes", binary_body({"x\ny"})), "OK"));
  EXPECT_EQ(receive(c, 1), (std::vector<std::string>{"x\ny"}));
  EXPECT_TRUE(got_nothing(c));
  EXPECT_EQ(topic_stat("t", "message_count"), 5);
}

// §3 /mpub binary: malformed bodies → 413 BAD_BODY / BAD_MESSAGE, nothing published.
TEST_F(HttpPubTest, MpubBinaryMalformed) {
  start_http({"--max-msg-size=50", "--max-body-size=1000"});
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 10);
  const std::string q = "/mpub?topic=t&binary=true";
  EXPECT_TRUE(is_v1_error(post(q, be32(0)), 413, "BAD_BODY")) << "count 0";
  EXPECT_TRUE(is_v1_error(post(q, be32(0xffffffffu)), 413, "BAD_BODY")) << "count -1";
  EXPECT_TRUE(is_v1_error(post(q, be32((1000 - 4) / 5 + 1) + binary_body({"a"}).substr(4)), 413,
                          "BAD_BODY"))
      << "count above (max-body-size - 4) / 5";
  EXPECT_TRUE(is_v1_error(post(q, std::string("\0\0", 2)), 413, "BAD_BODY")) << "count cut";
  EXPECT_TRUE(is_v1_error(post(q, be32(2) + be32(1) + "a"), 413, "BAD_MESSAGE"))
      << "second size missing";
  EXPECT_TRUE(is_v1_error(post(q, be32(1) + std::string("\0\0", 2)), 413, "BAD_MESSAGE"))
      << "size cut";
  EXPECT_TRUE(is_v1_error(post(q, be32(1) + be32(0)), 413, "BAD_MESSAGE")) << "size 0";
  EXPECT_TRUE(
      is_v1_error(post(q, be32(2) + be32(1) + "a" + be32(0xfffffff0u) + "b"), 413, "BAD_MESSAGE"))
      << "negative size";
  EXPECT_TRUE(is_v1_error(post(q, be32(1) + be32(51) + std::string(51, 'x')), 413, "BAD_MESSAGE"))
      << "size > max";
  EXPECT_TRUE(is_v1_error(post(q, be32(1) + be32(10) + "short"), 413, "BAD_MESSAGE")) << "body cut";
  EXPECT_TRUE(is_v1_error(post(q, ""), 413, "BAD_BODY")) << "empty body";
  EXPECT_TRUE(got_nothing(c)) << "a malformed binary MPUB published something";
  EXPECT_EQ(topic_stat("t", "message_count"), 0);
  EXPECT_TRUE(is_v1_ok(post(q, binary_body({std::string(50, 'm')})), "OK"));
  EXPECT_EQ(receive(c, 1), (std::vector<std::string>{std::string(50, 'm')}));
}

// §3 /mpub BODY_TOO_BIG with a small --max-body-size: by Content-Length (before
// any topic check) and, in text mode, by the body read.
TEST_F(HttpPubTest, MpubBodyTooBig) {
  start_http({"--max-body-size=100"});
  if (IsSkipped() || HasFatalFailure()) return;
  const std::string big = std::string(60, 'a') + "\n" + std::string(40, 'b');  // 101 bytes
  EXPECT_TRUE(is_v1_error(post("/mpub?topic=t", big), 413, "BODY_TOO_BIG"));
  EXPECT_TRUE(is_v1_error(post("/mpub?topic=t&binary=true", binary_body({std::string(93, 'x')})),
                          413, "BODY_TOO_BIG"));
  EXPECT_TRUE(is_v1_error(post("/mpub", big), 413, "BODY_TOO_BIG"))
      << "size checked before the topic";
  EXPECT_TRUE(is_v1_error(req("POST", "/mpub?topic=t", big, kChunked), 413, "BODY_TOO_BIG"))
      << "by body";
  auto c = consumer("t", "c", 10);
  EXPECT_TRUE(got_nothing(c));
  EXPECT_EQ(topic_stat("t", "message_count"), 0);
  const std::string fits = std::string(60, 'a') + "\n" + std::string(39, 'b');  // 100 bytes
  EXPECT_TRUE(is_v1_ok(post("/mpub?topic=t", fits), "OK"));
  EXPECT_TRUE(is_v1_ok(req("POST", "/mpub?topic=t", fits, kChunked), "OK"));
  EXPECT_EQ(receive(c, 4).size(), 4u);
}

// §3 /mpub query errors.
TEST_F(HttpPubTest, MpubQueryErrors) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_error(post("/mpub", "a\nb"), 400, "MISSING_ARG_TOPIC"));
  EXPECT_TRUE(is_v1_error(post("/mpub?topic=bad!", "a\nb"), 400, "INVALID_TOPIC"));
  EXPECT_TRUE(is_v1_error(post("/mpub?topic=", "a"), 400, "INVALID_TOPIC"));
  EXPECT_TRUE(is_v1_error(post("/mpub?topic=%zz", "a"), 400, "INVALID_REQUEST"));
  ASSERT_TRUE(stats());
  EXPECT_TRUE((*doc_)["topics"].IsNull() || (*doc_)["topics"].Empty()) << stats_body_;
}

}  // namespace
}  // namespace nsq::integration
