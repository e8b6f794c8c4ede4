// Real faults: a file-size limit that makes writes fail (EFBIG, as a full disk
// would), and a child process SIGKILLed in the middle of writing.
#include "diskqueue/disk_queue.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <random>

#include "testutil/temp_dir.h"

namespace nsq::diskqueue {
namespace {

using testutil::TempDir;

Options options(const TempDir& dir) {
  Options o;
  o.name = "f";
  o.data_path = dir.path();
  o.min_msg_size = 1;
  o.max_msg_size = 1 << 16;
  o.max_bytes_per_file = 1 << 20;
  return o;
}

// Lowers RLIMIT_FSIZE for the scope; writes past it fail with EFBIG.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lim = saved_;
    lim.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &lim);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit saved_{};
  void (*old_handler_)(int) = nullptr;
};

TEST(Faults, WriteErrorIsReturnedAndQueueRecovers) {
  TempDir dir;
  auto q = DiskQueue::open(options(dir));
  ASSERT_TRUE(q);
  std::vector<std::string> acknowledged;
  std::error_code failure;
  {
    FileSizeLimit limit(64 * 1024);
    for (int i = 0; i < 1000; ++i) {
      std::string rec = "rec-" + std::to_string(i) + std::string(200, 'p');
      failure = (*q)->put(rec);
      if (failure) break;
      acknowledged.push_back(rec);
    }
    ASSERT_TRUE(failure) << "the limit never bit";
    EXPECT_EQ(failure, std::errc::file_too_large);
    EXPECT_EQ((*q)->depth(), static_cast<std::int64_t>(acknowledged.size()));
    // Still failing while the limit holds, without harm to the queue.
    EXPECT_TRUE((*q)->put(std::string(300, 'q')));
  }
  // Space is back: puts work again and nothing acknowledged was lost.
  for (int i = 0; i < 10; ++i) {
    std::string rec = "later-" + std::to_string(i);
    ASSERT_FALSE((*q)->put(rec));
    acknowledged.push_back(rec);
  }
  for (auto& want : acknowledged) {
    auto r = (*q)->try_read();
    ASSERT_TRUE(r);
    ASSERT_EQ(*r, want);
  }
  EXPECT_FALSE((*q)->try_read());
}

// Child: puts numbered records forever, reporting each acknowledged index on
// a pipe. Records carry their index and a checksum so garbage is detectable.
std::string crash_record(std::uint32_t index) {
  std::string body = "idx=" + std::to_string(index) + ";";
  body.append(index % 700, static_cast<char>('a' + index % 26));
  std::uint32_t sum = 0;
  for (unsigned char c : body) sum = sum * 31 + c;
  return body + ";sum=" + std::to_string(sum);
}

bool valid_crash_record(const std::string& rec, std::uint32_t& index) {
  auto semi = rec.find(';');
  auto tail = rec.rfind(";sum=");
  if (rec.rfind("idx=", 0) != 0 || semi == std::string::npos || tail == std::string::npos)
    return false;
  index = static_cast<std::uint32_t>(std::stoul(rec.substr(4, semi - 4)));
  return crash_record(index) == rec;
}

void run_crash_round(std::int64_t sync_every, std::uint32_t seed) {
  TempDir dir;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    auto o = options(dir);
    o.max_bytes_per_file = 64 * 1024;  // many rollovers
    o.sync_every = sync_every;
    auto q = DiskQueue::open(o);
    if (!q) ::_exit(3);
    for (std::uint32_t i = 0;; ++i) {
      if ((*q)->put(crash_record(i))) ::_exit(4);
      if (i % 17 == 5) (*q)->try_read();  // a reader moving too
      if (::write(fds[1], &i, sizeof i) != sizeof i) ::_exit(5);
    }
  }
  ::close(fds[1]);
  // Let it run for a random number of acknowledged puts, then kill it.
  std::mt19937 rng(seed);
  std::uint32_t kill_after = 200 + rng() % 3000;
  std::uint32_t last_ack = 0;
  bool any = false;
  while (!any || last_ack < kill_after) {
    std::uint32_t v;
    ssize_t n = ::read(fds[0], &v, sizeof v);
    ASSERT_EQ(n, static_cast<ssize_t>(sizeof v)) << "child died early";
    last_ack = v;
    any = true;
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  // Drain acknowledgements that were already in the pipe.
  std::uint32_t v;
  while (::read(fds[0], &v, sizeof v) == sizeof v) last_ack = v;
  ::close(fds[0]);

  auto q = DiskQueue::open(options(dir));
  ASSERT_TRUE(q);
  // Every record read back is intact; reads may start past the ones the
  // child consumed, but from there on nothing acknowledged is missing.
  std::optional<std::uint32_t> first, prev;
  std::int64_t count = 0;
  while (auto r = (*q)->try_read()) {
    std::uint32_t index;
    ASSERT_TRUE(valid_crash_record(*r, index)) << "garbage record of " << r->size() << " bytes";
    if (!first) first = index;
    if (prev) {
      ASSERT_EQ(index, *prev + 1) << "gap or reorder";
    }
    prev = index;
    ++count;
  }
  ASSERT_TRUE(prev.has_value());
  EXPECT_GE(*prev, last_ack) << "an acknowledged record was lost";
  EXPECT_EQ((*q)->depth(), 0);
}

TEST(Faults, SigkillMidWriteWithSyncEveryOneLosesNothingAcknowledged) {
  for (std::uint32_t round = 0; round < 5; ++round) run_crash_round(1, round);
}

TEST(Faults, SigkillMidWriteWithDefaultSyncLosesNothingWritten) {
  // A killed process (not a power cut) loses nothing that write() accepted.
  for (std::uint32_t round = 0; round < 5; ++round) run_crash_round(2500, 100 + round);
}

}  // namespace
}  // namespace nsq::diskqueue
