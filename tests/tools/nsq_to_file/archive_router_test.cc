#include "archive_router.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "gunzip.h"
#include "test_logger.h"
#include "testutil/files.h"
#include "testutil/temp_dir.h"

namespace nsq::to_file {
namespace {

using namespace std::chrono_literals;

// Stands in for the consumer's connection: records FINs, and checks at each
// FIN that the message's line is already in a file on disk, readable.
class DiskCheckingResponder : public client::MessageResponder {
 public:
  explicit DiskCheckingResponder(std::filesystem::path dir) : dir_(std::move(dir)) {}

  void on_finish(const client::Message& m) override {
    const bool on_disk = disk_text().find(m.body() + "\n") != std::string::npos;
    std::lock_guard lock(mu_);
    finished_.push_back(m.body());
    if (!on_disk) not_on_disk_.push_back(m.body());
    cv_.notify_all();
  }
  void on_requeue(const client::Message&, std::chrono::milliseconds, bool) override {}
  void on_touch(const client::Message&) override {}

  bool wait_finished(std::size_t n, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return finished_.size() >= n; });
  }
  std::size_t finished() {
    std::lock_guard lock(mu_);
    return finished_.size();
  }
  std::vector<std::string> not_on_disk() {
    std::lock_guard lock(mu_);
    return not_on_disk_;
  }

  // Every file under dir, decompressed when gzip: what a reader sees now.
  std::string disk_text() const {
    std::string all;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir_)) {
      if (!e.is_regular_file()) continue;
      std::string data = testutil::read_file(e.path());
      if (e.path().extension() == ".gz") {
        all += testutil::gunzip_members(data).value_or("");
      } else {
        all += data;
      }
    }
    return all;
  }

 private:
  std::filesystem::path dir_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> finished_;
  std::vector<std::string> not_on_disk_;
};

class ArchiveRouterTest : public ::testing::Test {
 protected:
  void start(ArchiveRouter::Settings settings, bool gzip = false,
             std::chrono::nanoseconds rotate_interval = {}) {
    SinkSettings s;
    s.rotate_interval = rotate_interval;
    s.work_dir = dir_.path() / "work";
    s.output_dir = dir_.path() / "out";
    s.name_template = gzip ? "t<REV>.log.gz" : "t<REV>.log";
    s.gzip_level = gzip ? 6 : 0;
    s.exclusive = gzip;
    ArchiveRouter::ConsumerControl control{[this] { return starved_.load(); },
                                           [this] { stop_requested_ = true; }};
    router_ = std::make_unique<ArchiveRouter>(FileSink(s, log_.logger, "[t/c]"), settings, control,
                                              log_.logger, "[t/c]");
    thread_ = std::thread([this] { result_ = router_->run(); });
  }

  void push(const std::string& body) {
    router_->push(client::Message({}, body, "127.0.0.1:4150", responder_));
  }

  void finish_run() {
    router_->terminate();
    router_->consumer_stopped();
    thread_.join();
    ASSERT_TRUE(result_) << result_.error();
  }

  void TearDown() override {
    if (thread_.joinable()) finish_run();
  }

  testutil::TempDir dir_;
  testutil::CapturingLogger log_;
  std::shared_ptr<DiskCheckingResponder> responder_ =
      std::make_shared<DiskCheckingResponder>(dir_.path());
  std::atomic<bool> starved_{false};
  std::atomic<bool> stop_requested_{false};
  std::unique_ptr<ArchiveRouter> router_;
  std::thread thread_;
  tl::expected<void, std::string> result_;
};

TEST_F(ArchiveRouterTest, MaxInFlightBufferedForcesSync) {
  start({3, 1h, false});
  // Opening the first file syncs (as Go does on every rotation).
  push("a");
  ASSERT_TRUE(responder_->wait_finished(1, 5s));
  push("b");
  push("c");
  EXPECT_FALSE(responder_->wait_finished(2, 100ms)) << "no sync before 3 are buffered";
  push("d");
  ASSERT_TRUE(responder_->wait_finished(4, 5s));
  EXPECT_TRUE(responder_->not_on_disk().empty());
  EXPECT_NE(log_.sink->text().find("info [t/c] syncing 3 records to disk"), std::string::npos);
}

TEST_F(ArchiveRouterTest, SyncIntervalFinishesBufferedMessages) {
  start({100, 50ms, false});
  for (int i = 0; i < 5; ++i) push("m" + std::to_string(i));
  ASSERT_TRUE(responder_->wait_finished(5, 5s));
  EXPECT_TRUE(responder_->not_on_disk().empty());
}

TEST_F(ArchiveRouterTest, StarvedConsumerSyncsAtOnce) {
  starved_ = true;
  start({100, 1h, false});
  push("x");
  ASSERT_TRUE(responder_->wait_finished(1, 5s));
  EXPECT_TRUE(responder_->not_on_disk().empty());
}

TEST_F(ArchiveRouterTest, HangupSyncsAndClosesThenNextFileOpens) {
  start({100, 1h, false});
  push("before");
  router_->hangup();
  ASSERT_TRUE(responder_->wait_finished(1, 5s));
  // Closed: moved from the work dir to the output dir.
  const auto first = dir_.path() / "out" / "t-000000.log";
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!std::filesystem::exists(first) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);  // polling with a deadline
  }
  EXPECT_EQ(testutil::read_file(first), "before\n");
  push("after");
  finish_run();
  EXPECT_EQ(testutil::read_file(dir_.path() / "out" / "t-000001.log"), "after\n");
  EXPECT_EQ(responder_->finished(), 2u);
}

TEST_F(ArchiveRouterTest, TerminateStopsConsumerAndFinishesEverything) {
  start({1000, 1h, false}, /*gzip=*/true);
  for (int i = 0; i < 50; ++i) push("line " + std::to_string(i));
  router_->terminate();
  // The consumer delivers what was in flight while it stops.
  for (int i = 50; i < 60; ++i) push("line " + std::to_string(i));
  ASSERT_TRUE(responder_->wait_finished(60, 5s));
  EXPECT_TRUE(stop_requested_);
  router_->consumer_stopped();
  thread_.join();
  ASSERT_TRUE(result_) << result_.error();
  EXPECT_TRUE(responder_->not_on_disk().empty());
  std::string expected;
  for (int i = 0; i < 60; ++i) expected += "line " + std::to_string(i) + "\n";
  EXPECT_EQ(testutil::gunzip_members(testutil::read_file(dir_.path() / "out" / "t-000000.log.gz")),
            expected);
  EXPECT_TRUE(std::filesystem::is_empty(dir_.path() / "work"));
}

// Polls until pred holds (a real check each time) or the timeout passes.
bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds timeout = 5s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

std::size_t files_in(const std::filesystem::path& dir) {
  if (!std::filesystem::exists(dir)) return 0;
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

TEST_F(ArchiveRouterTest, TickOpensAFileEvenWithoutMessages) {
  // Go opens the next file at a sync tick when none is open, unless
  // --skip-empty-files.
  start({100, 10ms, false});
  ASSERT_TRUE(eventually([&] { return files_in(dir_.path() / "work") == 1; }));
  EXPECT_EQ(testutil::read_file(dir_.path() / "work" / "t-000000.log"), "");
}

TEST_F(ArchiveRouterTest, SkipEmptyFilesClosesOnIntervalInsteadOfOpeningEmptyOnes) {
  start({100, 5ms, true}, false, 30ms);
  push("x");
  ASSERT_TRUE(responder_->wait_finished(1, 5s));
  // The interval passes on a tick: the file is closed (moved), none opened.
  // The move links then unlinks (Go's exclusiveRename), so for an instant the
  // file is in both directories: wait for the settled state.
  ASSERT_TRUE(eventually(
      [&] { return files_in(dir_.path() / "out") == 1 && files_in(dir_.path() / "work") == 0; }));
  push("y");
  ASSERT_TRUE(responder_->wait_finished(2, 5s));
  finish_run();
  EXPECT_EQ(files_in(dir_.path() / "work"), 0u);
  ASSERT_EQ(files_in(dir_.path() / "out"), 2u);
  EXPECT_EQ(testutil::read_file(dir_.path() / "out" / "t-000000.log"), "x\n");
  EXPECT_EQ(testutil::read_file(dir_.path() / "out" / "t-000001.log"), "y\n");
}

TEST_F(ArchiveRouterTest, WriteFailureIsFatalError) {
  // The work dir is a file: the first open fails.
  testutil::write_file(dir_.path() / "work", "");
  start({10, 1h, false});
  push("x");
  thread_.join();
  ASSERT_FALSE(result_);
  EXPECT_NE(result_.error().find("unable to"), std::string::npos) << result_.error();
  EXPECT_EQ(responder_->finished(), 0u);
}

}  // namespace
}  // namespace nsq::to_file
