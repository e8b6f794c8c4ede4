#include "group_commit_limit.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <latch>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "clock.h"

namespace nsq::bench {
namespace {

// What the server sends per message: the size of an nsqd OK response frame
// (size, frame type, "OK").
constexpr std::size_t kReplySize = 10;
// The file is written round and round: every write lands on blocks written
// before, as in a preallocated segment.
constexpr off_t kFileSize = 16 << 20;

std::string errno_text(std::string_view what) {
  return std::string(what) + ": " + std::strerror(errno);
}

// The scratch file: created empty, zero-filled, removed on destruction.
class ScratchFile {
 public:
  ~ScratchFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) {
      std::error_code ignored;
      std::filesystem::remove(path_, ignored);
    }
  }
  Expected<void> create(const std::filesystem::path& dir) {
    path_ = dir / ("nsq_bench_group_commit." + std::to_string(::getpid()) + ".dat");
    fd_ = ::open(path_.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd_ < 0) {
      auto e = errno_text("create " + path_.string());
      path_.clear();
      return tl::unexpected(e);
    }
    const std::string zeros(1 << 20, '\0');
    for (off_t at = 0; at < kFileSize; at += static_cast<off_t>(zeros.size())) {
      if (::pwrite(fd_, zeros.data(), zeros.size(), at) != static_cast<ssize_t>(zeros.size())) {
        return tl::unexpected(errno_text("write " + path_.string()));
      }
    }
    if (::fdatasync(fd_) != 0) return tl::unexpected(errno_text("fdatasync " + path_.string()));
    return {};
  }
  // One pwrite of `data` at the next position, then fdatasync.
  Expected<void> write_durably(std::string_view data) {
    if (next_ + static_cast<off_t>(data.size()) > kFileSize) next_ = 0;
    if (::pwrite(fd_, data.data(), data.size(), next_) != static_cast<ssize_t>(data.size())) {
      return tl::unexpected(errno_text("pwrite " + path_.string()));
    }
    next_ += static_cast<off_t>(data.size());
    if (::fdatasync(fd_) != 0) return tl::unexpected(errno_text("fdatasync " + path_.string()));
    return {};
  }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  off_t next_ = 0;
};

struct ServerConn {
  Socket socket;
  std::size_t partial = 0;   // bytes of a message not complete yet
  std::size_t complete = 0;  // messages received and not yet answered
};

// The server's loop: one epoll round's messages are one group.
class GroupCommitServer {
 public:
  GroupCommitServer(ScratchFile& file, std::size_t message_size)
      : file_(file), message_size_(message_size) {}

  Expected<void> run(std::vector<Socket> sockets, const std::atomic<bool>& stop) {
    const int ep = ::epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) return tl::unexpected(errno_text("epoll_create1"));
    struct CloseOnExit {
      int fd;
      ~CloseOnExit() { ::close(fd); }
    } epoll_owner{ep};
    conns_.resize(sockets.size());
    for (std::size_t i = 0; i < sockets.size(); ++i) {
      conns_[i].socket = std::move(sockets[i]);
      const int fd = conns_[i].socket.fd();
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = i;
      if (::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0)
        return tl::unexpected(errno_text("epoll_ctl"));
    }
    std::vector<epoll_event> ready(conns_.size());
    std::vector<char> buf(64 * 1024);
    std::string group;
    const std::string replies(kReplySize * 64, 'K');
    while (!stop.load(std::memory_order_relaxed)) {
      const int n = ::epoll_wait(ep, ready.data(), static_cast<int>(ready.size()), 100);
      if (n < 0 && errno != EINTR) return tl::unexpected(errno_text("epoll_wait"));
      group.clear();
      for (int k = 0; k < n; ++k) {
        ServerConn& c = conns_[ready[static_cast<std::size_t>(k)].data.u64];
        const ssize_t got = ::recv(c.socket.fd(), buf.data(), buf.size(), 0);
        if (got <= 0) {
          // The client is gone (the run is over): stop watching it.
          ::epoll_ctl(ep, EPOLL_CTL_DEL, c.socket.fd(), nullptr);
          continue;
        }
        group.append(buf.data(), static_cast<std::size_t>(got));
        c.partial += static_cast<std::size_t>(got);
        c.complete += c.partial / message_size_;
        c.partial %= message_size_;
      }
      if (group.empty()) continue;
      if (auto w = file_.write_durably(group); !w) return w;
      ++fsyncs_;
      for (ServerConn& c : conns_) {
        while (c.complete > 0) {
          const std::size_t count = std::min<std::size_t>(c.complete, 64);
          // Never blocks: a client has one message unanswered at a time.
          // A client already gone makes it fail, which is harmless.
          ::send(c.socket.fd(), replies.data(), count * kReplySize, MSG_NOSIGNAL);
          c.complete -= count;
        }
      }
    }
    return {};
  }

  uint64_t fsyncs() const noexcept { return fsyncs_; }

 private:
  ScratchFile& file_;
  const std::size_t message_size_;
  std::vector<ServerConn> conns_;
  uint64_t fsyncs_ = 0;
};

}  // namespace

Expected<GroupCommitResult> measure_group_commit(const std::filesystem::path& dir, int clients,
                                                 int message_size,
                                                 std::chrono::nanoseconds duration) {
  ScratchFile file;
  if (auto c = file.create(dir); !c) return tl::unexpected(c.error());
  auto listener = listen_loopback(clients);
  if (!listener) return tl::unexpected(listener.error());
  const std::string address = "127.0.0.1:" + std::to_string(listener->port);

  std::vector<Socket> client_sockets;
  std::vector<Socket> server_sockets;
  for (int i = 0; i < clients; ++i) {
    auto c = connect_tcp(address);
    if (!c) return tl::unexpected(c.error());
    auto s = accept_one(*listener);
    if (!s) return tl::unexpected(s.error());
    client_sockets.push_back(std::move(*c));
    server_sockets.push_back(std::move(*s));
  }

  std::atomic<bool> server_stop{false};
  GroupCommitServer server(file, static_cast<std::size_t>(message_size));
  Expected<void> server_result;
  std::thread server_thread(
      [&] { server_result = server.run(std::move(server_sockets), server_stop); });

  std::latch go(1);
  std::atomic<uint64_t> acknowledged{0};
  std::mutex error_mu;
  std::string client_error;
  SteadyClock::time_point start;
  std::vector<std::thread> threads;
  for (Socket& socket : client_sockets) {
    threads.emplace_back([&, sock = &socket] {
      const std::string message(static_cast<std::size_t>(message_size), 'm');
      char reply[kReplySize];
      uint64_t mine = 0;
      go.wait();
      const auto end = start + duration;
      std::string error;
      while (error.empty() && SteadyClock::now() < end) {
        if (auto w = sock->write_all(message); !w) {
          error = w.error();
          break;
        }
        std::size_t have = 0;
        while (have < kReplySize) {
          auto r = sock->read_some(std::span<char>(reply + have, kReplySize - have),
                                   std::chrono::seconds(5));
          if (!r) {
            error = r.error();
            break;
          }
          if (*r == 0) {
            error = "no reply within 5s";
            break;
          }
          have += *r;
        }
        if (error.empty()) ++mine;
      }
      acknowledged.fetch_add(mine, std::memory_order_relaxed);
      if (!error.empty()) {
        std::lock_guard lock(error_mu);
        client_error = error;
      }
    });
  }
  start = SteadyClock::now();
  go.count_down();
  for (auto& t : threads) t.join();
  const auto stopped = SteadyClock::now();
  server_stop.store(true);
  server_thread.join();

  if (!server_result) return tl::unexpected("group-commit server: " + server_result.error());
  if (!client_error.empty()) return tl::unexpected("group-commit client: " + client_error);
  GroupCommitResult result;
  result.acknowledged = acknowledged.load();
  result.fsyncs = server.fsyncs();
  result.secs = std::chrono::duration<double>(stopped - start).count();
  return result;
}

}  // namespace nsq::bench
