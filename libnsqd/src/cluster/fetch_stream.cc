#include "cluster/fetch_stream.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <charconv>

#include "nsq/endian.h"

namespace nsq::nsqd::cluster {

namespace {

constexpr std::string_view kMagic = "  V2";
constexpr std::string_view kCommand = "CLUSTER_FETCH\n";
constexpr std::string_view kHeartbeat = "_heartbeat_";
constexpr std::uint32_t kResponse = 0;
constexpr std::uint32_t kError = 1;

// host:port as the node id has it ([v6]:port too).
bool split_address(const std::string& address, std::string& host, std::uint16_t& port) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos) return false;
  const char* digits = address.data() + colon + 1;
  const char* end = address.data() + address.size();
  const auto [last, ec] = std::from_chars(digits, end, port);
  if (ec != std::errc() || last != end) return false;
  host = address.substr(0, colon);
  if (host.size() > 1 && host.front() == '[') host = host.substr(1, host.size() - 2);
  return true;
}

}  // namespace

AnswerFrame next_answer_frame(std::string_view buffered, std::size_t max_answer) {
  AnswerFrame frame;
  // [u32 size][u32 frame type][data]
  if (buffered.size() < 8) return frame;
  const std::uint32_t size = get_u32be(buffered.data());
  if (size < 4 || size - 4 > max_answer) {
    frame.kind = AnswerFrame::Kind::error;
    frame.text = "sent a frame of " + std::to_string(size) + " bytes";
    return frame;
  }
  if (buffered.size() - 4 < size) return frame;
  frame.consumed = 4 + std::size_t(size);
  const std::uint32_t type = get_u32be(buffered.data() + 4);
  const std::string_view data = buffered.substr(8, size - 4);
  if (type == kResponse && data == kHeartbeat) {
    frame.kind = AnswerFrame::Kind::heartbeat;
  } else if (type == kResponse && data.size() >= 4) {
    frame.kind = AnswerFrame::Kind::answer;
    frame.status = static_cast<int>(get_u32be(data.data()));
    frame.body = data.substr(4);
  } else if (type == kError) {
    frame.kind = AnswerFrame::Kind::error;
    frame.text = "answered " + std::string(data);
  } else {
    frame.kind = AnswerFrame::Kind::error;
    frame.text = "sent an unexpected frame (type " + std::to_string(type) + ", " +
                 std::to_string(data.size()) + " bytes)";
  }
  return frame;
}

void FetchStream::close() {
  fd_.reset();
  in_.clear();
}

tl::expected<void, std::string> FetchStream::write(Pending& p) {
  p.reused = fd_.is_open();
  std::string_view bytes = p.frame;
  std::string first;
  if (!p.reused) {
    auto fd = net::dial(host_, port_, p.connect_timeout, p.deadline);
    if (!fd) return tl::unexpected(fd.error());
    // One write per request, sent at once: no wait for the ack of the last.
    const int one = 1;
    ::setsockopt(fd->get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fd_ = std::move(*fd);
    in_.clear();
    first.reserve(kMagic.size() + p.frame.size());
    first.append(kMagic).append(p.frame);
    bytes = first;
  }
  auto sent = net::send_all(fd_.get(), bytes, p.deadline, address_);
  if (!sent) close();
  return sent;
}

tl::expected<void, std::string> FetchStream::send(const std::string& address,
                                                  std::string_view request,
                                                  std::chrono::milliseconds connect_timeout,
                                                  std::chrono::milliseconds timeout,
                                                  std::size_t max_answer) {
  if (awaiting()) (void)receive();
  if (address != address_) {
    close();
    if (!split_address(address, host_, port_)) {
      address_.clear();
      return tl::unexpected("the leader's id is no host:port (" + address + ")");
    }
    address_ = address;
  }
  Pending p;
  p.frame.reserve(kCommand.size() + 4 + request.size());
  p.frame.append(kCommand);
  append_u32be(p.frame, static_cast<std::uint32_t>(request.size()));
  p.frame.append(request);
  p.max_answer = max_answer;
  p.connect_timeout = connect_timeout;
  p.deadline = net::Clock::now() + timeout;
  if (auto sent = write(p); !sent) {
    // A kept connection the leader has closed: once more on a new one.
    if (!p.reused) return sent;
    if (auto again = write(p); !again) return again;
  }
  pending_ = std::move(p);
  return {};
}

tl::expected<FetchStream::Answer, std::string> FetchStream::read_answer(const Pending& p,
                                                                        bool& received) {
  char buf[65536];
  for (;;) {
    AnswerFrame frame = next_answer_frame(in_, p.max_answer);
    if (frame.kind == AnswerFrame::Kind::answer) {
      Answer answer{frame.status, std::string(frame.body)};
      in_.erase(0, frame.consumed);
      return answer;
    }
    if (frame.kind == AnswerFrame::Kind::error) {
      return tl::unexpected(address_ + " " + frame.text);
    }
    if (frame.kind == AnswerFrame::Kind::heartbeat) {
      // The leader checks the connection is alive: the next request answers it.
      in_.erase(0, frame.consumed);
      continue;
    }
    auto n = net::recv_some(fd_.get(), buf, sizeof buf, p.deadline, address_);
    if (!n) return tl::unexpected(std::move(n.error()));
    if (*n == 0) return tl::unexpected("read " + address_ + ": EOF");
    in_.append(buf, *n);
    received = true;
  }
}

tl::expected<FetchStream::Answer, std::string> FetchStream::receive() {
  if (!pending_) return tl::unexpected(std::string("no request awaits an answer"));
  Pending p = std::move(*pending_);
  pending_.reset();
  for (int attempt = 0;; ++attempt) {
    bool received = false;
    auto answer = read_answer(p, received);
    if (answer) return answer;
    close();
    // The leader closed a kept connection before answering (its read
    // deadline on an idle connection): the request goes once more.
    if (p.reused && !received && attempt == 0) {
      if (auto sent = write(p); !sent) return tl::unexpected(std::move(sent.error()));
      continue;
    }
    return answer;
  }
}

}  // namespace nsq::nsqd::cluster
