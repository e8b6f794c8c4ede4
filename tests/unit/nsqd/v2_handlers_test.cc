// The V2 command handlers (protocol/handlers/) over a real Broker, without a
// socket: a test client implements protocol::V2Client and runs bytes through
// a V2Session and the dispatcher as ClientConn's read loop does, recording
// the frames it would send.
#include <utility>  // before Asio's headers (Boost 1.74)

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <memory>
#include <string>
#include <vector>

#include "core/broker.h"
#include "core/channel.h"
#include "core_test_env.h"
#include "nsq/endian.h"
#include "nsq/message.h"
#include "protocol/dispatch.h"
#include "protocol/handlers/handlers.h"

namespace nsq::nsqd::protocol {
namespace {

using coretest::null_logger;
using coretest::test_options;

std::string sized(std::string_view body) {
  std::string out(4, '\0');
  put_u32be(out.data(), static_cast<std::uint32_t>(body.size()));
  return out + std::string(body);
}

class TestClient final : public V2Client,
                         public Subscriber,
                         public std::enable_shared_from_this<TestClient> {
 public:
  TestClient(Broker& broker, boost::asio::io_context& io)
      : broker_(broker),
        io_(io),
        state_(broker.next_client_id(), "127.0.0.1:5555",
               [] {
                 NegotiatedIdentify s;
                 s.heartbeat_interval_ms = 30000;
                 s.msg_timeout_ms = 60000;
                 return s;
               }()),
        session_(SessionLimits{broker.options().max_body_size, broker.options().max_msg_size}) {}

  // Runs what `bytes` (appended to what is buffered) holds, as the read loop
  // would, until the session needs more or the connection would close.
  void feed(std::string_view bytes) {
    in_ += bytes;
    boost::asio::co_spawn(io_, run(), boost::asio::detached);
    io_.restart();
    io_.run();
  }

  // Frames sent so far: "response <data>" or "error <code text>".
  std::vector<std::string> frames;
  bool closed = false;
  int deliveries_wanted = 0;

  // V2Client
  Broker& broker() override { return broker_; }
  ClientState& state() override { return state_; }
  boost::asio::any_io_executor executor() override { return io_.get_executor(); }
  std::weak_ptr<Subscriber> subscriber() override { return weak_from_this(); }
  void respond(std::string_view data) override {
    frames.push_back("response " + std::string(data));
  }
  bool fail(const ProtocolError& error) override {
    frames.push_back("error " + error.render());
    if (error.fatal) closed = true;
    return !error.fatal;
  }
  void expect_body(BodyKind kind) override { session_.expect_body(kind); }
  void want_delivery() override { ++deliveries_wanted; }
  void finish_later(const MessageId& id) override { handlers::finish_pending(*this, {&id, 1}); }
  void heartbeat_changed() override {}
  void upgrade(std::string) override {}
  void flush() override {}
  void resumed_from_disk() override {}
  const std::shared_ptr<boost::asio::ssl::context>& tls_context() const override { return tls_; }
  bool tls() const override { return false; }
  std::string tls_common_name() const override { return {}; }
  WorkerPool* auth_pool() const override { return nullptr; }

  // Subscriber
  void wake() override {}
  void close_for_delete() override {}

 private:
  boost::asio::awaitable<void> run() {
    while (!closed) {
      Step step = session_.next(in_, false);
      if (step.kind == Step::Kind::need_more) co_return;
      if (step.kind == Step::Kind::close) break;
      if (step.kind == Step::Kind::error) {
        fail(step.error);
        break;
      }
      bool open;
      if (step.kind == Step::Kind::command) {
        in_.erase(0, step.consumed);
        std::optional<bool> now = run_now(*this, *step.command);
        open = now ? *now : co_await protocol::run(*this, *step.command);
      } else {
        open = co_await run_body(*this, *step.command, step);
        in_.erase(0, step.consumed);
      }
      if (!open) closed = true;
    }
    closed = true;
  }

  Broker& broker_;
  boost::asio::io_context& io_;
  ClientState state_;
  V2Session session_;
  std::string in_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
};

class V2HandlersTest : public ::testing::Test {
 protected:
  V2HandlersTest() {
    Options o = test_options();
    o.data_path = dir_.path().string();
    broker_ = std::make_unique<Broker>(std::move(o), null_logger());
  }
  ~V2HandlersTest() override { broker_->close(); }

  std::shared_ptr<TestClient> client() {
    auto c = std::make_shared<TestClient>(*broker_, io_);
    c->feed("  V2");
    return c;
  }

  testutil::TempDir dir_;
  boost::asio::io_context io_;
  std::unique_ptr<Broker> broker_;
};

using Frames = std::vector<std::string>;

TEST_F(V2HandlersTest, PublishesAndCountsPerTopic) {
  auto c = client();
  c->feed("PUB orders\n" + sized("one") + "DPUB orders 1000\n" + sized("two"));
  EXPECT_EQ(c->frames, (Frames{"response OK", "response OK"}));
  auto topic = broker_->find_topic("orders");
  ASSERT_TRUE(topic);
  EXPECT_TRUE(c->state().is_producer());
  const stats::Client s = c->state().stats();
  ASSERT_EQ(s.pub_counts.size(), 1u);
  EXPECT_EQ(s.pub_counts[0].count, 2u);
}

TEST_F(V2HandlersTest, MpubCreatesTheTopicBeforeItsBody) {
  auto c = client();
  c->feed("MPUB batch\n");
  EXPECT_TRUE(broker_->find_topic("batch"));
  std::string stream(4, '\0');
  put_u32be(stream.data(), 2);
  stream += sized("a") + sized("b");
  c->feed(sized("x").substr(0, 4) + stream);
  EXPECT_EQ(c->frames, (Frames{"response OK"}));
}

TEST_F(V2HandlersTest, LineErrorsAsNsqdWordsThem) {
  auto c = client();
  c->feed("PUB\n");
  EXPECT_EQ(c->frames, (Frames{"error E_INVALID PUB insufficient number of parameters"}));
  EXPECT_TRUE(c->closed);

  c = client();
  c->feed("PUB bad*topic\n");
  EXPECT_EQ(c->frames, (Frames{"error E_BAD_TOPIC PUB topic name \"bad*topic\" is not valid"}));

  c = client();
  c->feed("MPUB bad*topic\n");
  EXPECT_EQ(c->frames,
            (Frames{"error E_BAD_TOPIC E_BAD_TOPIC MPUB topic name \"bad*topic\" is not valid"}));

  c = client();
  c->feed("DPUB t 99999999999\n");
  EXPECT_EQ(c->frames, (Frames{"error E_INVALID DPUB timeout 99999999999 out of range 0-3600000"}));

  c = client();
  c->feed("RDY 1\n");
  EXPECT_EQ(c->frames, (Frames{"error E_INVALID cannot RDY in current state"}));

  c = client();
  c->feed("WHAT\n");
  EXPECT_EQ(c->frames, (Frames{"error E_INVALID invalid command WHAT"}));

  c = client();
  c->feed("AUTH\n" + sized("secret"));
  EXPECT_EQ(c->frames, (Frames{"error E_AUTH_DISABLED AUTH disabled"}));
}

TEST_F(V2HandlersTest, SubscribeRdyFinAndTheirFailures) {
  auto c = client();
  c->feed("SUB t c\nRDY 3\n");
  EXPECT_EQ(c->frames, (Frames{"response OK"}));
  EXPECT_EQ(c->state().phase(), Phase::subscribed);
  EXPECT_EQ(c->state().rdy(), 3);
  EXPECT_EQ(c->deliveries_wanted, 1);

  // A message in flight to this client: FIN'd once; the second FIN is a
  // non-fatal E_FIN_FAILED.
  auto publisher = client();
  publisher->feed("PUB t\n" + sized("hello"));
  std::vector<QueuedMessage> taken;
  c->state().channel()->take(c->state().id(), 3, 10, 0, std::chrono::seconds(60), taken);
  ASSERT_EQ(taken.size(), 1u);
  const MessageId id = taken[0].msg->id();
  const std::string fin = "FIN " + std::string(id.data(), id.size()) + "\n";
  c->feed(fin + fin);
  ASSERT_EQ(c->frames.size(), 2u);
  EXPECT_EQ(c->frames[1], "error E_FIN_FAILED FIN " + std::string(id.data(), id.size()) +
                              " failed ID not in flight");
  EXPECT_FALSE(c->closed);
  EXPECT_EQ(c->state().stats().finish_count, 1u);

  c->feed("RDY 99999\n");
  EXPECT_EQ(c->frames.back(), "error E_INVALID RDY count 99999 out of range 0-2500");
  EXPECT_TRUE(c->closed);
}

TEST_F(V2HandlersTest, ClsThenOnlyAcks) {
  auto c = client();
  c->feed("SUB t c\nCLS\nRDY 5\n");
  EXPECT_EQ(c->frames, (Frames{"response OK", "response CLOSE_WAIT"}));
  EXPECT_EQ(c->state().phase(), Phase::closing);
  EXPECT_EQ(c->state().rdy(), 0);  // RDY ignored while closing
  c->feed("SUB t c\n");
  EXPECT_EQ(c->frames.back(), "error E_INVALID cannot SUB in current state");
}

TEST_F(V2HandlersTest, IdentifyNegotiates) {
  auto c = client();
  c->feed("IDENTIFY\n" + sized(R"({"feature_negotiation":true,"heartbeat_interval":-1})"));
  ASSERT_EQ(c->frames.size(), 1u);
  EXPECT_NE(c->frames[0].find("\"max_rdy_count\":2500"), std::string::npos) << c->frames[0];
  EXPECT_EQ(c->state().settings().heartbeat_interval_ms, -1);
  c->feed("SUB t c\n");
  EXPECT_EQ(c->frames.back(), "error E_INVALID cannot SUB with heartbeats disabled");
}

}  // namespace
}  // namespace nsq::nsqd::protocol
