#include "differential/diff_harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>

#include "nsq/endian.h"

namespace nsq::differential {

std::string be32(std::uint32_t v) {
  std::string s;
  append_u32be(s, v);
  return s;
}

std::string printable(std::string_view data) {
  std::string out;
  for (unsigned char c : data) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

std::string transcript(std::string_view received, bool closed) {
  std::string out;
  while (received.size() >= 8) {
    const std::uint32_t size = get_u32be(received.data());
    if (size < 4 || received.size() - 4 < size) break;
    const std::uint32_t type = get_u32be(received.data() + 4);
    std::string_view data = received.substr(8, size - 4);
    switch (type) {
      case 0:
        out += "response " + printable(data) + "\n";
        break;
      case 1:
        out += "error " + printable(data) + "\n";
        break;
      case 2:
        // [8 timestamp][2 attempts][16 id][body]: id and timestamp differ.
        if (data.size() >= 26) {
          const unsigned attempts =
              (static_cast<unsigned char>(data[8]) << 8) | static_cast<unsigned char>(data[9]);
          out += "message attempts=" + std::to_string(attempts) +
                 " body=" + printable(data.substr(26)) + "\n";
        } else {
          out += "message (short) " + printable(data) + "\n";
        }
        break;
      default:
        out += "frame type " + std::to_string(type) + " " + printable(data) + "\n";
    }
    received.remove_prefix(4 + size);
  }
  if (!received.empty()) out += "<partial " + std::to_string(received.size()) + " bytes>\n";
  out += closed ? "<closed>" : "<open>";
  return out;
}

Exchange exchange(int port, std::string_view bytes, bool half_close, ms quiet,
                  const std::function<bool(std::string_view)>& complete) {
  Exchange out;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    out.received = "<socket failed>";
    return out;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    out.received = "<connect failed>";
    return out;
  }
  std::size_t sent = 0;
  // Send and read together: a peer that answers early (or closes) must not
  // leave the sender blocked on a full socket.
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (sent < bytes.size()) p.events |= POLLOUT;
    const bool done = sent == bytes.size() && complete && complete(out.received);
    int r = ::poll(&p, 1, static_cast<int>(done ? 50 : quiet.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;  // quiet: the peer is waiting for more, or done
    if (p.revents & POLLOUT) {
      ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n > 0) {
        sent += static_cast<std::size_t>(n);
        if (sent == bytes.size() && half_close) ::shutdown(fd, SHUT_WR);
      } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        sent = bytes.size();  // the peer is gone: read what it said
      }
    }
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      char buf[65536];
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n > 0) {
        out.received.append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        out.closed = true;
        break;
      }
    }
  }
  ::close(fd);
  return out;
}

std::string converse(int port, std::string_view bytes, bool half_close, ms quiet) {
  Exchange e = exchange(port, bytes, half_close, quiet);
  return transcript(e.received, e.closed);
}

void DifferentialTest::SetUp() {
  go_binary_ = testutil::reference_binary_path("nsqd");
  if (go_binary_.empty()) {
    GTEST_SKIP() << "no reference Go nsqd (../shared/reference/go-nsq-v1.3.0-linux-amd64.tar.xz "
                    "beside the checkout, or NSQ_REFERENCE_DIR): differential test skipped";
  }
}

void DifferentialTest::TearDown() {
  go_.reset();
  ours_.reset();
}

bool DifferentialTest::start_each(const std::vector<std::string>& go_flags,
                                  const std::vector<std::string>& our_flags) {
  go_.reset();
  ours_.reset();
  go_ = std::make_unique<Broker>();
  go_->name = "go";
  ours_ = std::make_unique<Broker>();
  ours_->name = "ours";
  for (Broker* b : {go_.get(), ours_.get()}) {
    testutil::NsqdProcess::Options o;
    o.binary = b == go_.get() ? go_binary_ : std::string();
    o.data_path = b->data.path();
    o.extra_args = b == go_.get() ? go_flags : our_flags;
    o.require_http = true;
    std::string err = b->process.start(o);
    if (!err.empty()) {
      ADD_FAILURE() << b->name << " nsqd did not start: " << err;
      return false;
    }
  }
  return true;
}

void DifferentialTest::expect_same_conversation(std::string_view bytes, bool half_close, ms quiet) {
  std::string theirs = converse(go_->tcp_port(), bytes, half_close, quiet);
  std::string mine = converse(ours_->tcp_port(), bytes, half_close, quiet);
  EXPECT_EQ(mine, theirs) << "ours (left) and Go's (right) differ for the bytes: "
                          << printable(bytes.substr(0, 300));
}

}  // namespace nsq::differential
