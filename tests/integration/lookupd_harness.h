#pragma once

// Shared pieces of the nsqlookupd integration tests (lookupd.md): a fixture
// that starts the real nsqlookupd on ephemeral ports, a raw TCP V1 client
// that plays an nsqd (a "fake peer"), and an HTTP client to lookupd.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <rapidjson/document.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "testutil/http_client.h"
#include "testutil/nsqd_process.h"

namespace nsq::integration::lookupd {

using namespace std::chrono_literals;
using ms = std::chrono::milliseconds;

// Responses are [int32 big-endian length][data] (§1).
class V1Peer {
 public:
  V1Peer() = default;
  ~V1Peer() { close(); }
  V1Peer(const V1Peer&) = delete;
  V1Peer& operator=(const V1Peer&) = delete;

  bool connect(int port, bool magic = true) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return false;
    return !magic || send("  V1");
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  // "127.0.0.1:<port>": the peer id lookupd sees.
  std::string local_address() const {
    sockaddr_in a{};
    socklen_t n = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &n);
    return "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  }
  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  // One response; nullopt on timeout or close.
  std::optional<std::string> read(ms timeout = 5000ms) {
    std::string hdr;
    if (!read_exact(4, hdr, timeout)) return std::nullopt;
    const auto b = [&](int i) { return static_cast<uint32_t>(static_cast<unsigned char>(hdr[i])); };
    std::string data;
    if (!read_exact(b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3), data, timeout)) return std::nullopt;
    return data;
  }
  std::optional<std::string> command(const std::string& line) {
    if (!send(line + "\n")) return std::nullopt;
    return read();
  }
  std::optional<std::string> identify(const std::string& json) {
    std::string s = "IDENTIFY\n";
    const auto n = static_cast<uint32_t>(json.size());
    for (int shift : {24, 16, 8, 0}) s += static_cast<char>(n >> shift);
    if (!send(s + json)) return std::nullopt;
    return read();
  }
  // Identifies as an nsqd with this broadcast address and HTTP port.
  bool identify_as(const std::string& bcast, int http_port = 4151) {
    auto r = identify(R"({"broadcast_address":")" + bcast +
                      R"(","hostname":"fake","tcp_port":4150,)"
                      R"("http_port":)" +
                      std::to_string(http_port) + R"(,"version":"1.3.0"})");
    return r && r->starts_with("{");
  }
  // True if lookupd closes the connection within timeout.
  bool wait_closed(ms timeout = 5000ms) {
    char buf[256];
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<ms>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return true;
    }
  }

 private:
  bool read_exact(std::size_t n, std::string& out, ms timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (out.size() < n) {
      const auto left = std::chrono::duration_cast<ms>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      char buf[4096];
      ssize_t r = ::recv(fd_, buf, std::min(sizeof buf, n - out.size()), 0);
      if (r <= 0) return false;
      out.append(buf, static_cast<std::size_t>(r));
    }
    return true;
  }
  int fd_ = -1;
};

// nsqlookupd on 127.0.0.1:0 with `extra` flags; skips when there is no binary.
class LookupdTest : public ::testing::Test {
 protected:
  void start(std::vector<std::string> extra = {}) {
    if (testutil::nsqlookupd_binary_path().empty()) {
      GTEST_SKIP() << "no nsqlookupd binary";
    }
    testutil::NsqlookupdProcess::Options o;
    o.extra_args = std::move(extra);
    const std::string err = lookupd_.start(o);
    ASSERT_EQ(err, "");
    http_ = std::make_unique<testutil::HttpClient>(lookupd_.http_port());
  }
  void TearDown() override {
    if (lookupd_.pid() > 0 && !stopped_) {
      EXPECT_TRUE(lookupd_.stop()) << lookupd_.log();
    }
  }

  std::optional<testutil::HttpReply> get(const std::string& target) {
    return http_->request("GET", target);
  }
  std::optional<testutil::HttpReply> post(const std::string& target) {
    return http_->request("POST", target);
  }
  // The body of a 200 GET, "" otherwise.
  std::string body(const std::string& target) {
    auto r = get(target);
    return r && r->status == 200 ? r->body : std::string();
  }
  // Polls `target` until its body contains (or, with present=false, lacks) `needle`.
  bool eventually(const std::string& target, const std::string& needle, bool present = true,
                  ms timeout = 10000ms) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    do {
      if ((body(target).find(needle) != std::string::npos) == present) return true;
      std::this_thread::sleep_for(50ms);
    } while (std::chrono::steady_clock::now() < deadline);
    return false;
  }

  int tcp_port() const { return lookupd_.tcp_port(); }

  testutil::NsqlookupdProcess lookupd_;
  bool stopped_ = false;  // a test stopped lookupd itself
  std::unique_ptr<testutil::HttpClient> http_;
};

}  // namespace nsq::integration::lookupd
