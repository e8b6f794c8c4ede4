// Process-level contract: --version, data-path lock, metadata errors
// (options.md §1, diskqueue.md §8-9).

#include <sys/wait.h>

#include "integration/harness.h"
#include "testutil/files.h"

namespace nsq::integration {
namespace {

using StartupTest = NsqdTest;

TEST_F(StartupTest, VersionPrintsAndExitsZero) {
  NsqdProcess p;
  NsqdProcess::Options o;
  o.data_path = data_dir_.path();
  o.extra_args = {"--version"};
  auto err = p.start(o);
  EXPECT_FALSE(err.empty()) << "--version must not start the server";
  auto st = p.wait_exit(5000ms);
  ASSERT_TRUE(st);
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0) << NsqdProcess::describe_status(*st);
  EXPECT_NE(p.log().find("nsqd v1.3.0 (built w/"), std::string::npos) << p.log();
}

// diskqueue.md §9: a second nsqd on the same data path refuses to start.
TEST_F(StartupTest, DataPathIsLocked) {
  start();
  NsqdProcess second;
  NsqdProcess::Options o;
  o.data_path = data_dir_.path();
  auto err = second.start(o);
  EXPECT_FALSE(err.empty()) << "second nsqd started on a locked data path";
  auto st = second.wait_exit(5000ms);
  ASSERT_TRUE(st);
  EXPECT_FALSE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0) << NsqdProcess::describe_status(*st);
  EXPECT_NE(second.log().find("failed to lock data-path"), std::string::npos) << second.log();
  // The first one is unaffected.
  auto c = client();
  EXPECT_TRUE(barrier(c));
}

// diskqueue.md §8: an unparsable nsqd.dat is a fatal startup error.
TEST_F(StartupTest, CorruptMetadataIsFatal) {
  testutil::write_file(data_dir_.path() / "nsqd.dat", "{not json");
  NsqdProcess p;
  NsqdProcess::Options o;
  o.data_path = data_dir_.path();
  auto err = p.start(o);
  EXPECT_FALSE(err.empty()) << "nsqd started with a corrupt nsqd.dat";
  auto st = p.wait_exit(5000ms);
  ASSERT_TRUE(st);
  EXPECT_FALSE(WIFEXITED(*st) && WEXITSTATUS(*st) == 0) << NsqdProcess::describe_status(*st);
  EXPECT_NE(p.log().find("failed to parse metadata in "), std::string::npos) << p.log();
}

// diskqueue.md §8: invalid names in nsqd.dat are skipped, valid ones loaded,
// `"channels":null` accepted; the file is rewritten at startup.
TEST_F(StartupTest, MetadataWithInvalidNamesLoadsTheRest) {
  testutil::write_file(
      data_dir_.path() / "nsqd.dat",
      R"({"topics":[{"name":"bad name!","paused":false,"channels":null},)"
      R"({"name":"good","paused":false,"channels":[{"name":"ch!","paused":false},)"
      R"({"name":"ok","paused":false}]},{"name":"empty","paused":false,"channels":null}],)"
      R"("version":"1.3.0"})");
  start();
  // good:ok was loaded: a message published now goes to it alone, and a
  // channel created afterwards does not get it (if ok had not been loaded,
  // the topic would have kept the message for the first new channel).
  auto p = client();
  p.pub("good", "kept");
  ASSERT_TRUE(got_response(p, "OK"));
  auto other = consumer("good", "other", 1);
  EXPECT_TRUE(got_nothing(other, 500ms))
      << "channel good:ok from nsqd.dat was not created at startup";
  auto c = consumer("good", "ok", 1);
  auto m = read_message(c);
  ASSERT_TRUE(m) << "channel good:ok from nsqd.dat was not created at startup";
  EXPECT_EQ(m->body, "kept");
  stop_clean();
  auto dat = testutil::read_file(data_dir_.path() / "nsqd.dat");
  EXPECT_EQ(dat.find("bad name"), std::string::npos) << dat;
  EXPECT_EQ(dat.find("ch!"), std::string::npos) << dat;
  EXPECT_NE(dat.find(R"({"name":"empty","paused":false,"channels":null})"), std::string::npos)
      << dat;
  EXPECT_NE(dat.find(R"({"name":"ok","paused":false})"), std::string::npos) << dat;
}

}  // namespace
}  // namespace nsq::integration
