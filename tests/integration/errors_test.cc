// Every error of tcp-protocol.md §6 with its exact text and fatality, while a
// background publisher/consumer pair checks other connections are unaffected.

#include "integration/harness.h"

namespace nsq::integration {
namespace {

class ErrorsTest : public NsqdTest {
 protected:
  void start_with_traffic(std::vector<std::string> extra = {}) {
    start(std::move(extra));
    if (HasFatalFailure()) return;
    traffic_ = std::make_unique<BackgroundTraffic>(port(), "isolation");
  }
  void TearDown() override {
    if (traffic_) {
      auto err = traffic_->stop();
      EXPECT_TRUE(err.empty()) << err;
      traffic_.reset();
    }
    NsqdTest::TearDown();
  }

  // A new connection (magic sent) that sends `bytes` and must get the fatal error `want`.
  void expect_fatal_for(const std::string& bytes, const std::string& want) {
    auto c = client();
    c.send_raw(bytes);
    EXPECT_TRUE(got_fatal(c, want)) << "sent: " << printable(bytes);
  }

  // Same, after SUB t c.
  void expect_fatal_subscribed(const std::string& bytes, const std::string& want) {
    auto c = consumer("t", "c", 0);
    c.send_raw(bytes);
    EXPECT_TRUE(got_fatal(c, want)) << "sent after SUB: " << printable(bytes);
  }

  // An MPUB whose declared body size matches the bytes sent (zero padded):
  // clients always send consistent sizes, and nsqd may read either way.
  static std::string mpub_raw(const std::string& topic, uint32_t declared,
                              const std::string& payload) {
    std::string out = "MPUB " + topic + "\n" + be32(declared) + payload;
    if (payload.size() < declared) out.append(declared - payload.size(), '\0');
    return out;
  }

  static std::string printable(const std::string& s) {
    std::string out;
    for (unsigned char ch : s.substr(0, 200)) {
      if (ch >= 32 && ch < 127)
        out += static_cast<char>(ch);
      else
        out += "\\x" + std::string(1, "0123456789abcdef"[ch >> 4]) + "0123456789abcdef"[ch & 15];
    }
    return out;
  }

  std::unique_ptr<BackgroundTraffic> traffic_;
};

// §1: wrong magic → E_BAD_PROTOCOL, then close.
TEST_F(ErrorsTest, BadMagic) {
  start_with_traffic();
  for (const std::string& magic :
       std::vector<std::string>{"  V1", "V2  ", "GET ", std::string("\0\0\0\0", 4)}) {
    RawClient c;
    ASSERT_TRUE(c.connect(port()));
    c.send_raw(magic);
    EXPECT_TRUE(got_fatal(c, "E_BAD_PROTOCOL")) << printable(magic);
  }
}

// §2: unknown, lowercase, empty and garbage command names.
TEST_F(ErrorsTest, InvalidCommand) {
  start_with_traffic();
  expect_fatal_for("FOO\n", "E_INVALID invalid command FOO");
  expect_fatal_for("pub t\n", "E_INVALID invalid command pub");
  expect_fatal_for("NOP2\n", "E_INVALID invalid command NOP2");
  expect_fatal_for("\n", "E_INVALID invalid command ");
  expect_fatal_for(" NOP\n", "E_INVALID invalid command ");
  expect_fatal_for(std::string("\x01\x02\xff\n", 4),
                   std::string("E_INVALID invalid command \x01\x02\xff", 29));
  // After a valid command too.
  expect_fatal_for("NOP\nFOO BAR\n", "E_INVALID invalid command FOO");
}

// §6 valid-state table.
TEST_F(ErrorsTest, WrongState) {
  start_with_traffic();
  expect_fatal_for("RDY 1\n", "E_INVALID cannot RDY in current state");
  expect_fatal_for("FIN " + id16() + "\n", "E_INVALID cannot FIN in current state");
  expect_fatal_for("REQ " + id16() + " 0\n", "E_INVALID cannot REQ in current state");
  expect_fatal_for("TOUCH " + id16() + "\n", "E_INVALID cannot TOUCH in current state");
  expect_fatal_for("FIN\n", "E_INVALID cannot FIN in current state");
  expect_fatal_for("CLS\n", "E_INVALID cannot CLS in current state");
  expect_fatal_subscribed("SUB t c\n", "E_INVALID cannot SUB in current state");
  expect_fatal_subscribed("SUB t other\n", "E_INVALID cannot SUB in current state");
  expect_fatal_subscribed("IDENTIFY\n" + be32(2) + "{}",
                          "E_INVALID cannot IDENTIFY in current state");
  expect_fatal_subscribed("AUTH\n" + be32(1) + "x", "E_INVALID cannot AUTH in current state");
  {
    // After CLS: SUB and CLS are refused.
    auto c = consumer("t", "c", 0);
    c.cls();
    EXPECT_TRUE(got_response(c, "CLOSE_WAIT"));
    c.send_raw("CLS\n");
    EXPECT_TRUE(got_fatal(c, "E_INVALID cannot CLS in current state"));
  }
  {
    auto c = consumer("t", "c", 0);
    c.cls();
    EXPECT_TRUE(got_response(c, "CLOSE_WAIT"));
    c.sub("t", "c");
    EXPECT_TRUE(got_fatal(c, "E_INVALID cannot SUB in current state"));
  }
}

// §6.2: AUTH without --auth-http-address.
TEST_F(ErrorsTest, AuthDisabled) {
  start_with_traffic();
  expect_fatal_for("AUTH\n" + be32(6) + "secret", "E_AUTH_DISABLED AUTH disabled");
  expect_fatal_for("AUTH x\n", "E_INVALID AUTH invalid number of parameters");
  expect_fatal_for("AUTH\n" + be32(0), "E_BAD_BODY AUTH invalid body size 0");
  expect_fatal_for("AUTH\n" + be32(5242881), "E_BAD_BODY AUTH body too big 5242881 > 5242880");
}

// §6.3, §6.5-6.7, §6.10-6.12: missing parameters.
TEST_F(ErrorsTest, InsufficientParameters) {
  start_with_traffic();
  expect_fatal_for("SUB\n", "E_INVALID SUB insufficient number of parameters");
  expect_fatal_for("SUB t\n", "E_INVALID SUB insufficient number of parameters");
  expect_fatal_for("PUB\n", "E_INVALID PUB insufficient number of parameters");
  expect_fatal_for("MPUB\n", "E_INVALID MPUB insufficient number of parameters");
  expect_fatal_for("DPUB\n", "E_INVALID DPUB insufficient number of parameters");
  expect_fatal_for("DPUB t\n", "E_INVALID DPUB insufficient number of parameters");
  expect_fatal_subscribed("FIN\n", "E_INVALID FIN insufficient number of params");
  expect_fatal_subscribed("REQ\n", "E_INVALID REQ insufficient number of params");
  expect_fatal_subscribed("REQ " + id16() + "\n", "E_INVALID REQ insufficient number of params");
  expect_fatal_subscribed("TOUCH\n", "E_INVALID TOUCH insufficient number of params");
}

// §7 names, §6.3/6.10-6.12 messages with Go %q quoting; MPUB doubles the code.
TEST_F(ErrorsTest, BadTopicAndChannelNames) {
  start_with_traffic();
  const std::string long65(65, 'a');
  expect_fatal_for("PUB a!b\n", R"(E_BAD_TOPIC PUB topic name "a!b" is not valid)");
  expect_fatal_for("PUB \n", R"(E_BAD_TOPIC PUB topic name "" is not valid)");
  expect_fatal_for("PUB " + long65 + "\n",
                   "E_BAD_TOPIC PUB topic name \"" + long65 + "\" is not valid");
  expect_fatal_for("PUB #ephemeral\n", R"(E_BAD_TOPIC PUB topic name "#ephemeral" is not valid)");
  expect_fatal_for("PUB a#ephemeralx\n",
                   R"(E_BAD_TOPIC PUB topic name "a#ephemeralx" is not valid)");
  expect_fatal_for("PUB a\"b\n", R"(E_BAD_TOPIC PUB topic name "a\"b" is not valid)");
  expect_fatal_for("PUB a\tb\n", R"(E_BAD_TOPIC PUB topic name "a\tb" is not valid)");
  expect_fatal_for("PUB a\\b\n", R"(E_BAD_TOPIC PUB topic name "a\\b" is not valid)");
  expect_fatal_for("PUB a\rb\n", R"(E_BAD_TOPIC PUB topic name "a\rb" is not valid)");
  expect_fatal_for("PUB \x01\n", R"(E_BAD_TOPIC PUB topic name "\x01" is not valid)");
  expect_fatal_for("PUB \xff\n", R"(E_BAD_TOPIC PUB topic name "\xff" is not valid)");
  expect_fatal_for("PUB \xc3\xa9t\xc3\xa9\n",
                   "E_BAD_TOPIC PUB topic name \"\xc3\xa9t\xc3\xa9\" is not valid");
  expect_fatal_for("MPUB a!b\n", R"(E_BAD_TOPIC E_BAD_TOPIC MPUB topic name "a!b" is not valid)");
  expect_fatal_for("DPUB a!b 0\n", R"(E_BAD_TOPIC DPUB topic name "a!b" is not valid)");
  expect_fatal_for("SUB a!b c\n", R"(E_BAD_TOPIC SUB topic name "a!b" is not valid)");
  expect_fatal_for("SUB t c!\n", R"(E_BAD_CHANNEL SUB channel name "c!" is not valid)");
  expect_fatal_for("SUB t " + long65 + "\n",
                   "E_BAD_CHANNEL SUB channel name \"" + long65 + "\" is not valid");
  // Two spaces make an empty parameter (§2).
  expect_fatal_for("SUB  t c\n", R"(E_BAD_TOPIC SUB topic name "" is not valid)");
  // The longest valid names are accepted.
  auto c = client();
  const std::string n64(64, 'n');
  const std::string e64 = std::string(54, 'e') + "#ephemeral";
  c.pub(n64, "x");
  EXPECT_TRUE(got_response(c, "OK"));
  c.sub(n64, e64);
  EXPECT_TRUE(got_response(c, "OK"));
}

// §6.10, §6.12: body size errors of PUB and DPUB (size read as signed int32).
TEST_F(ErrorsTest, PubBodySize) {
  start_with_traffic();
  expect_fatal_for("PUB t\n" + be32(0), "E_BAD_MESSAGE PUB invalid message body size 0");
  expect_fatal_for("PUB t\n" + be32(0xffffffff), "E_BAD_MESSAGE PUB invalid message body size -1");
  expect_fatal_for("PUB t\n" + be32(0x80000000),
                   "E_BAD_MESSAGE PUB invalid message body size -2147483648");
  expect_fatal_for("PUB t\n" + be32(0x7fffffff),
                   "E_BAD_MESSAGE PUB message too big 2147483647 > 1048576");
  expect_fatal_for("PUB t\n" + be32(1048577),
                   "E_BAD_MESSAGE PUB message too big 1048577 > 1048576");
  expect_fatal_for("DPUB t 0\n" + be32(0), "E_BAD_MESSAGE DPUB invalid message body size 0");
  expect_fatal_for("DPUB t 10\n" + be32(0x80000000),
                   "E_BAD_MESSAGE DPUB invalid message body size -2147483648");
  expect_fatal_for("DPUB t 10\n" + be32(1048577),
                   "E_BAD_MESSAGE DPUB message too big 1048577 > 1048576");
}

// --max-msg-size applies to PUB/DPUB/each MPUB message, independently of --max-body-size.
TEST_F(ErrorsTest, MaxMsgSizeFlag) {
  start_with_traffic({"--max-msg-size=100", "--max-body-size=1000"});
  expect_fatal_for("PUB t\n" + be32(101), "E_BAD_MESSAGE PUB message too big 101 > 100");
  expect_fatal_for("DPUB t 5\n" + be32(101), "E_BAD_MESSAGE DPUB message too big 101 > 100");
  expect_fatal_for(mpub_raw("t", 200, be32(2) + be32(3) + "abc" + be32(101)),
                   "E_BAD_MESSAGE MPUB message too big 101 > 100");
  expect_fatal_for("MPUB t\n" + be32(1001), "E_BAD_BODY MPUB body too big 1001 > 1000");
  expect_fatal_for("IDENTIFY\n" + be32(1001), "E_BAD_BODY IDENTIFY body too big 1001 > 1000");
  // (1000 - 4) / 5 = 199 messages at most.
  expect_fatal_for(mpub_raw("t", 1000, be32(200)), "E_BAD_BODY MPUB invalid message count 200");
  auto c = client();
  c.pub("t", std::string(100, 'x'));
  EXPECT_TRUE(got_response(c, "OK"));
  c.mpub("t", {std::string(100, 'y'), "z"});
  EXPECT_TRUE(got_response(c, "OK"));
}

// §6.11: MPUB framing errors.
TEST_F(ErrorsTest, MpubBody) {
  start_with_traffic();
  expect_fatal_for("MPUB t\n" + be32(0), "E_BAD_BODY MPUB invalid body size 0");
  expect_fatal_for("MPUB t\n" + be32(0x80000000), "E_BAD_BODY MPUB invalid body size -2147483648");
  expect_fatal_for("MPUB t\n" + be32(5242881), "E_BAD_BODY MPUB body too big 5242881 > 5242880");
  expect_fatal_for("MPUB t\n" + be32(0x7fffffff),
                   "E_BAD_BODY MPUB body too big 2147483647 > 5242880");
  expect_fatal_for(mpub_raw("t", 8, be32(0)), "E_BAD_BODY MPUB invalid message count 0");
  expect_fatal_for(mpub_raw("t", 8, be32(0xffffffff)), "E_BAD_BODY MPUB invalid message count -1");
  expect_fatal_for(mpub_raw("t", 5242880, be32(1048576)),
                   "E_BAD_BODY MPUB invalid message count 1048576");
  expect_fatal_for(mpub_raw("t", 12, be32(1) + be32(0)),
                   "E_BAD_MESSAGE MPUB invalid message(0) body size 0");
  expect_fatal_for(mpub_raw("t", 20, be32(2) + be32(1) + "a" + be32(0xfffffffe)),
                   "E_BAD_MESSAGE MPUB invalid message(1) body size -2");
  expect_fatal_for(mpub_raw("t", 20, be32(1) + be32(1048577)),
                   "E_BAD_MESSAGE MPUB message too big 1048577 > 1048576");
  // None of the messages of a failed MPUB is queued (all validated first).
  auto c = consumer("mpubfail", "c", 10);
  expect_fatal_for(mpub_raw("mpubfail", 100, be32(2) + be32(4) + "good" + be32(0)),
                   "E_BAD_MESSAGE MPUB invalid message(1) body size 0");
  EXPECT_TRUE(got_nothing(c, 500ms)) << "a message of a rejected MPUB was queued";
}

// §6.4: RDY parsing and range.
TEST_F(ErrorsTest, RdyErrors) {
  start_with_traffic();
  expect_fatal_subscribed("RDY 2501\n", "E_INVALID RDY count 2501 out of range 0-2500");
  expect_fatal_subscribed("RDY abc\n", "E_INVALID RDY could not parse count abc");
  expect_fatal_subscribed("RDY -1\n", "E_INVALID RDY could not parse count -1");
  expect_fatal_subscribed("RDY +1\n", "E_INVALID RDY could not parse count +1");
  expect_fatal_subscribed("RDY 1.5\n", "E_INVALID RDY could not parse count 1.5");
  // Valid extremes.
  auto c = consumer("t", "c", 0);
  c.rdy(2500);
  c.rdy(0);
  c.send_raw("RDY \n");  // empty digit string = 0
  EXPECT_TRUE(barrier(c));
}

TEST_F(ErrorsTest, RdyRangeFollowsFlag) {
  start_with_traffic({"--max-rdy-count=10"});
  expect_fatal_subscribed("RDY 11\n", "E_INVALID RDY count 11 out of range 0-10");
  auto c = consumer("t", "c", 10);
  EXPECT_TRUE(barrier(c));
}

// §6.5-6.7: unknown id → non-fatal *_FAILED, the connection stays usable.
TEST_F(ErrorsTest, FinReqTouchUnknownIdNonFatal) {
  start_with_traffic();
  auto c = consumer("t", "c", 0);
  const std::string id = "0123456789abcdef";
  c.fin(id);
  EXPECT_TRUE(got_error(c, "E_FIN_FAILED FIN 0123456789abcdef failed ID not in flight"));
  c.req(id, 0);
  EXPECT_TRUE(got_error(c, "E_REQ_FAILED REQ 0123456789abcdef failed ID not in flight"));
  c.touch(id);
  EXPECT_TRUE(got_error(c, "E_TOUCH_FAILED TOUCH 0123456789abcdef failed ID not in flight"));
  EXPECT_TRUE(barrier(c));
  // Still a working consumer.
  publish("t", "after");
  c.rdy(1);
  auto m = read_message(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body, "after");
  // FIN twice: the second is not in flight any more.
  c.fin(m->id);
  c.fin(m->id);
  EXPECT_TRUE(got_error(c, "E_FIN_FAILED FIN " + m->id + " failed ID not in flight"));
  EXPECT_TRUE(barrier(c));
}

// §6.5-6.7: a message owned by another connection of the same channel.
TEST_F(ErrorsTest, FinReqTouchNotOwner) {
  start_with_traffic();
  auto a = consumer("t", "c", 1);
  publish("t", "mine");
  auto m = read_message(a);
  ASSERT_TRUE(m);
  auto b = consumer("t", "c", 0);
  b.fin(m->id);
  EXPECT_TRUE(got_error(b, "E_FIN_FAILED FIN " + m->id + " failed client does not own message"));
  b.req(m->id, 0);
  EXPECT_TRUE(got_error(b, "E_REQ_FAILED REQ " + m->id + " failed client does not own message"));
  b.touch(m->id);
  EXPECT_TRUE(
      got_error(b, "E_TOUCH_FAILED TOUCH " + m->id + " failed client does not own message"));
  EXPECT_TRUE(barrier(b));
  // A consumer of another channel does not see the id as in flight at all.
  auto o = consumer("t", "other", 0);
  o.fin(m->id);
  EXPECT_TRUE(got_error(o, "E_FIN_FAILED FIN " + m->id + " failed ID not in flight"));
  // The owner still can.
  a.fin(m->id);
  EXPECT_TRUE(barrier(a));
}

// §2, §6.5: an id that is not 16 bytes is fatal.
TEST_F(ErrorsTest, InvalidMessageIdLength) {
  start_with_traffic();
  expect_fatal_subscribed("FIN abc\n", "E_INVALID invalid message ID");
  expect_fatal_subscribed("FIN 0123456789abcdef0\n", "E_INVALID invalid message ID");
  expect_fatal_subscribed("REQ 0123456789abcde 0\n", "E_INVALID invalid message ID");
  expect_fatal_subscribed("TOUCH x\n", "E_INVALID invalid message ID");
  // Any 16 bytes are an id (not in flight → non-fatal).
  auto c = consumer("t", "c", 0);
  c.send_raw("FIN ~~~~~~~~~~~~~~~~\n");
  EXPECT_TRUE(got_error(c, "E_FIN_FAILED FIN ~~~~~~~~~~~~~~~~ failed ID not in flight"));
  EXPECT_TRUE(barrier(c));
}

// §6.6: REQ timeout parse error (fatal); out of range is clamped (no error).
TEST_F(ErrorsTest, ReqTimeout) {
  start_with_traffic();
  expect_fatal_subscribed("REQ " + id16() + " x\n", "E_INVALID REQ could not parse timeout x");
  expect_fatal_subscribed("REQ " + id16() + " -5\n", "E_INVALID REQ could not parse timeout -5");
  auto c = consumer("t", "c", 1);
  publish("t", "clamp");
  auto m = read_message(c);
  ASSERT_TRUE(m);
  c.req(m->id, 99999999999);  // clamped to --max-req-timeout, no error
  EXPECT_TRUE(barrier(c));
}

// §6.12: DPUB timeout errors.
TEST_F(ErrorsTest, DpubTimeout) {
  start_with_traffic();
  expect_fatal_for("DPUB t x\n", "E_INVALID DPUB could not parse timeout x");
  expect_fatal_for("DPUB t -1\n", "E_INVALID DPUB could not parse timeout -1");
  expect_fatal_for("DPUB t 3600001\n", "E_INVALID DPUB timeout 3600001 out of range 0-3600000");
}

TEST_F(ErrorsTest, DpubTimeoutFollowsMaxReqTimeout) {
  start_with_traffic({"--max-req-timeout=10s"});
  expect_fatal_for("DPUB t 10001\n", "E_INVALID DPUB timeout 10001 out of range 0-10000");
  auto c = client();
  c.dpub("t", 10000, "x");
  EXPECT_TRUE(got_response(c, "OK"));
}

// Go master's --max-defer-timeout bounds DPUB instead of --max-req-timeout,
// which no longer does once it is given (a REQ keeps its own bound).
TEST_F(ErrorsTest, DpubTimeoutFollowsMaxDeferTimeoutWhenGiven) {
  start_with_traffic({"--max-req-timeout=10s", "--max-defer-timeout=20s"});
  expect_fatal_for("DPUB t 20001\n", "E_INVALID DPUB timeout 20001 out of range 0-20000");
  auto c = client();
  c.dpub("t", 20000, "x");
  EXPECT_TRUE(got_response(c, "OK"));
}

// §6.1: IDENTIFY body and field validation.
TEST_F(ErrorsTest, IdentifyErrors) {
  start_with_traffic();
  auto identify = [](const std::string& json) {
    return "IDENTIFY\n" + be32(static_cast<uint32_t>(json.size())) + json;
  };
  expect_fatal_for("IDENTIFY\n" + be32(0), "E_BAD_BODY IDENTIFY invalid body size 0");
  expect_fatal_for("IDENTIFY\n" + be32(0x80000000),
                   "E_BAD_BODY IDENTIFY invalid body size -2147483648");
  expect_fatal_for("IDENTIFY\n" + be32(5242881),
                   "E_BAD_BODY IDENTIFY body too big 5242881 > 5242880");
  expect_fatal_for(identify("not json"), "E_BAD_BODY IDENTIFY failed to decode JSON body");
  expect_fatal_for(identify("[]"), "E_BAD_BODY IDENTIFY failed to decode JSON body");
  expect_fatal_for(identify(R"({"heartbeat_interval":"1000"})"),
                   "E_BAD_BODY IDENTIFY failed to decode JSON body");
  expect_fatal_for(identify(R"({"heartbeat_interval":1500.5})"),
                   "E_BAD_BODY IDENTIFY failed to decode JSON body");
  expect_fatal_for(identify(R"({"feature_negotiation":"yes"})"),
                   "E_BAD_BODY IDENTIFY failed to decode JSON body");
  expect_fatal_for(identify(R"({"heartbeat_interval":500})"),
                   "E_BAD_BODY IDENTIFY heartbeat interval (500) is invalid");
  expect_fatal_for(identify(R"({"heartbeat_interval":60001})"),
                   "E_BAD_BODY IDENTIFY heartbeat interval (60001) is invalid");
  expect_fatal_for(identify(R"({"heartbeat_interval":-2})"),
                   "E_BAD_BODY IDENTIFY heartbeat interval (-2) is invalid");
  expect_fatal_for(identify(R"({"output_buffer_timeout":10})"),
                   "E_BAD_BODY IDENTIFY output buffer timeout (10) is invalid");
  expect_fatal_for(identify(R"({"output_buffer_timeout":30001})"),
                   "E_BAD_BODY IDENTIFY output buffer timeout (30001) is invalid");
  expect_fatal_for(identify(R"({"output_buffer_size":63})"),
                   "E_BAD_BODY IDENTIFY output buffer size (63) is invalid");
  expect_fatal_for(identify(R"({"output_buffer_size":65537})"),
                   "E_BAD_BODY IDENTIFY output buffer size (65537) is invalid");
  expect_fatal_for(identify(R"({"sample_rate":100})"),
                   "E_BAD_BODY IDENTIFY sample rate (100) is invalid");
  expect_fatal_for(identify(R"({"sample_rate":-1})"),
                   "E_BAD_BODY IDENTIFY sample rate (-1) is invalid");
  expect_fatal_for(identify(R"({"msg_timeout":999})"),
                   "E_BAD_BODY IDENTIFY msg timeout (999) is invalid");
  expect_fatal_for(identify(R"({"msg_timeout":900001})"),
                   "E_BAD_BODY IDENTIFY msg timeout (900001) is invalid");
  // Validated in the order of the field table: the heartbeat error wins.
  expect_fatal_for(identify(R"({"msg_timeout":1,"heartbeat_interval":1})"),
                   "E_BAD_BODY IDENTIFY heartbeat interval (1) is invalid");
  // Valid boundaries.
  auto c = client();
  c.identify(R"({"heartbeat_interval":60000,"output_buffer_timeout":25,"output_buffer_size":64,)"
             R"("sample_rate":99,"msg_timeout":900000})");
  EXPECT_TRUE(got_response(c, "OK"));
}

// §6.1: both compressions requested and allowed.
TEST_F(ErrorsTest, IdentifyBothCompressions) {
  start_with_traffic();
  std::string json = R"({"feature_negotiation":true,"deflate":true,"snappy":true})";
  auto c = client();
  c.identify(json);
  EXPECT_TRUE(got_fatal(c, "E_IDENTIFY_FAILED cannot enable both deflate and snappy compression"));
}

// §6.3: SUB is refused when heartbeats are disabled.
TEST_F(ErrorsTest, SubWithHeartbeatsDisabled) {
  start_with_traffic();
  auto c = client();
  c.identify(R"({"heartbeat_interval":-1})");
  ASSERT_TRUE(got_response(c, "OK"));
  c.sub("t", "c");
  EXPECT_TRUE(got_fatal(c, "E_INVALID cannot SUB with heartbeats disabled"));
  // A producer without heartbeats is fine.
  auto p = client();
  p.identify(R"({"heartbeat_interval":-1})");
  ASSERT_TRUE(got_response(p, "OK"));
  EXPECT_TRUE(barrier(p));
}

// §6.3: --max-channel-consumers.
TEST_F(ErrorsTest, MaxChannelConsumers) {
  start_with_traffic({"--max-channel-consumers=1"});
  auto a = consumer("t", "c", 0);
  expect_fatal_for("SUB t c\n", "E_SUB_FAILED SUB failed consumers for t:c exceeds limit of 1");
  auto b = consumer("t", "other", 0);  // per channel
  EXPECT_TRUE(barrier(b));
}

// §2: a line over 16 KiB closes without an error frame; exactly 16 KiB is still read.
TEST_F(ErrorsTest, LongLine) {
  start_with_traffic();
  {
    auto c = client();
    c.send_raw("PUB " + std::string(16379, 'a') + "\n");  // 16384 bytes with '\n'
    EXPECT_TRUE(got_fatal(
        c, "E_BAD_TOPIC PUB topic name \"" + std::string(16379, 'a') + "\" is not valid"));
  }
  {
    auto c = client();
    c.send_raw("PUB " + std::string(16380, 'a') + "\n");  // 16385 bytes
    EXPECT_TRUE(c.wait_closed(kReply)) << "connection not closed after a > 16 KiB line";
    EXPECT_TRUE(c.frames_before_close().empty())
        << "an error frame was sent: " << c.frames_before_close()[0].data;
  }
  {
    auto c = client();
    c.send_raw(std::string(100000, 'x'));  // no newline at all
    EXPECT_TRUE(c.wait_closed(kReply)) << "connection not closed after 100 KB without newline";
    EXPECT_TRUE(c.frames_before_close().empty());
  }
}

// Garbage after the magic and abrupt disconnects never hurt the server.
TEST_F(ErrorsTest, GarbageAndAbruptDisconnects) {
  start_with_traffic();
  uint32_t seed = 12345;
  for (int i = 0; i < 30; ++i) {
    std::string junk;
    for (int j = 0; j < 300; ++j) {
      seed = seed * 1103515245 + 12345;
      junk += static_cast<char>(seed >> 16);
    }
    junk += '\n';  // at least one complete line
    auto c = client();
    c.send_raw(junk);
    EXPECT_TRUE(c.wait_closed(kReply)) << "garbage #" << i << " did not close the connection";
  }
  // Disconnect in the middle of a body, of a line, of the magic.
  for (const std::string& partial :
       {std::string("PUB t\n") + be32(100) + "abc", std::string("SUB t"),
        std::string("MPUB t\n") + be32(100) + be32(3), std::string("IDENTIFY\n") + be32(50)}) {
    auto c = client();
    c.send_raw(partial);
    c.close();
  }
  {
    RawClient c;
    ASSERT_TRUE(c.connect(port()));
    c.send_raw(" ");
    c.close();
  }
  {
    // A subscribed consumer with messages in flight disconnecting.
    auto c = consumer("t", "c", 10);
    publish("t", "x");
    ASSERT_TRUE(read_message(c));
    c.close();
  }
  auto last = client();
  EXPECT_TRUE(barrier(last));
}

}  // namespace
}  // namespace nsq::integration
