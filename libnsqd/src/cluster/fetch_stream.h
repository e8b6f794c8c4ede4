#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

#include "nsq/dial.h"

namespace nsq::nsqd::cluster {

// The next frame a leader sent on a fetch connection, from the bytes read:
// without I/O, so that it can be fuzzed.
struct AnswerFrame {
  enum class Kind {
    need_more,  // not a whole frame yet
    heartbeat,  // skip it
    answer,     // status and body
    error,      // the leader's error frame, or bytes no leader sends: `text`
  };
  Kind kind = Kind::need_more;
  std::size_t consumed = 0;  // bytes the frame took (all but need_more)
  int status = 0;
  std::string_view body;  // a view into the bytes read
  std::string text;
};
// `max_answer`: the largest status + body accepted.
AnswerFrame next_answer_frame(std::string_view buffered, std::size_t max_answer);

// A follower's connection to its leader's TCP port for fetches
// (docs/replication.md, "The data path"): protocol V2, each request a
// CLUSTER_FETCH with a wire::FetchRequest body, each answer a response frame
// of [u32 status][wire answers]; heartbeats are skipped. Blocking, with
// deadlines; one request at a time, whose answer may be read later (a
// confirmation's answer is read before the next confirmation). A request on
// a kept connection that the leader closed before answering is sent again
// once on a new one: fetches may be repeated. Not thread-safe.
class FetchStream {
 public:
  struct Answer {
    int status = 0;
    std::string body;
  };

  // Sends a request to `address` (host:port, the leader's node id),
  // connecting first when no connection to it is kept; its answer is due
  // within `timeout` and at most `max_answer` bytes. A send while an answer
  // is due reads and drops it first.
  tl::expected<void, std::string> send(const std::string& address, std::string_view request,
                                       std::chrono::milliseconds connect_timeout,
                                       std::chrono::milliseconds timeout, std::size_t max_answer);
  // The answer to the last send().
  tl::expected<Answer, std::string> receive();
  // A send() whose answer receive() has not read yet.
  bool awaiting() const { return pending_.has_value(); }
  void close();

 private:
  struct Pending {
    std::string frame;  // sent again once if the kept connection was closed before the answer
    std::size_t max_answer = 0;
    std::chrono::milliseconds connect_timeout{};
    net::Clock::time_point deadline{};
    bool reused = false;  // went on a connection kept from an earlier request
  };
  // Writes p.frame, connecting (and sending the magic) first when no
  // connection is kept.
  tl::expected<void, std::string> write(Pending& p);
  // The next answer, heartbeats skipped; `received`: whether any byte came.
  tl::expected<Answer, std::string> read_answer(const Pending& p, bool& received);

  net::SocketFd fd_;
  std::string address_;  // of fd_
  std::string host_;
  std::uint16_t port_ = 0;
  std::string in_;  // read, not taken yet
  std::optional<Pending> pending_;
};

}  // namespace nsq::nsqd::cluster
