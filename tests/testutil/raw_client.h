#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nsq/frame.h"

namespace nsq::testutil {

// A blocking POSIX TCP client speaking raw NSQ V2 to 127.0.0.1:<port>, for
// tests: it sends exactly the bytes it is told to and splits what comes back
// into frames. No heartbeat handling unless asked (read_skip_heartbeats).
//
// @par Thread Safety: none; one thread per client.
class RawClient {
 public:
  enum class ReadStatus { frame, timeout, closed, error };
  struct ReadResult {
    ReadStatus status = ReadStatus::error;
    Frame frame{FrameType::response, {}};
    std::string describe() const;
  };

  RawClient() = default;
  ~RawClient();
  RawClient(RawClient&& other) noexcept;
  RawClient& operator=(RawClient&& other) noexcept;
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connect(int port);                           // on 127.0.0.1
  bool connect(const std::string& host, int port);  // host: an IPv4 address
  bool connected() const { return fd_ >= 0; }
  void close();

  bool send_raw(std::string_view bytes);

  // Commands, exactly as a client library writes them.
  bool magic() { return send_raw("  V2"); }
  bool identify(std::string_view json) { return send_with_body("IDENTIFY\n", json); }
  bool sub(std::string_view topic, std::string_view channel);
  bool pub(std::string_view topic, std::string_view body);
  bool mpub(std::string_view topic, const std::vector<std::string>& bodies);
  bool dpub(std::string_view topic, int64_t defer_ms, std::string_view body);
  bool rdy(int64_t count) { return send_raw("RDY " + std::to_string(count) + "\n"); }
  bool fin(std::string_view id);
  bool req(std::string_view id, int64_t timeout_ms);
  bool touch(std::string_view id);
  bool cls() { return send_raw("CLS\n"); }
  bool nop() { return send_raw("NOP\n"); }
  // "<line>" then [int32 size][body].
  bool send_with_body(std::string_view line, std::string_view body);

  // The next frame, waiting at most timeout for it.
  ReadResult read(std::chrono::milliseconds timeout);
  // Like read() but drops (and answers with NOP if answer is set) `_heartbeat_` frames.
  ReadResult read_skip_heartbeats(std::chrono::milliseconds timeout, bool answer = true);
  // True if the peer closes the connection within timeout; frames that
  // arrive before are ignored (collected in frames_before_close()).
  bool wait_closed(std::chrono::milliseconds timeout);
  const std::vector<Frame>& frames_before_close() const { return before_close_; }

 private:
  int fd_ = -1;
  FrameDecoder decoder_;
  bool eof_ = false;
  std::vector<Frame> before_close_;
};

// A decoded message frame, with copies (no views into the frame).
struct TestMessage {
  int64_t timestamp_ns = 0;
  uint16_t attempts = 0;
  std::string id;
  std::string body;
};
std::optional<TestMessage> to_test_message(const Frame& frame);

// One HTTP/1.0 request to 127.0.0.1:port; nullopt on a connection error.
struct HttpResponse {
  int status = 0;
  std::string headers;
  std::string body;
};
std::optional<HttpResponse> http_request(
    int port, std::string_view method, std::string_view target, std::string_view body = {},
    std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

}  // namespace nsq::testutil
