#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lookupd/options.h"
#include "registration_db.h"

// The nsqlookupd TCP protocol V1 (lookupd.md §1) without I/O: bytes in,
// responses out. The connection (tcp_conn.h) only moves bytes; the fuzzer
// drives this class directly.
namespace nsq::lookupd {

// What IDENTIFY answers with: this lookupd's address and real ports.
struct ServerIdentity {
  std::string broadcast_address;
  std::string hostname;
  int tcp_port = 0;
  int http_port = 0;
};

using LogFn = std::function<void(LogLevel, const std::string&)>;

// An IDENTIFY body as Go's encoding/json fills nsqlookupd's PeerInfo: keys
// match case-insensitively, unknown keys and nulls are ignored, wrong types
// and non-integral ports fail. nullopt: not decodable. Does not check for
// missing fields.
std::optional<PeerInfo> parse_peer_info(std::string_view json);

// Appends "[int32 big-endian length][data]", V1's only response form.
void append_response(std::string& out, std::string_view data);

// One V1 connection's protocol state. Not thread-safe: one connection drives it.
class V1Session {
 public:
  // Longest command line and IDENTIFY body accepted (Go has no limit).
  static constexpr std::size_t kMaxLine = 1 << 20;
  static constexpr std::int64_t kMaxIdentifyBody = 1 << 20;

  // `db` and `identity` must outlive the session; `log` may be empty.
  V1Session(RegistrationDb& db, const ServerIdentity& identity, std::string remote_address,
            LogFn log);
  ~V1Session();
  V1Session(const V1Session&) = delete;
  V1Session& operator=(const V1Session&) = delete;

  // Bytes read from the peer; responses are appended to `out`. After an
  // error (always fatal) closed() is true and later input is ignored.
  void put(std::string_view data, Time now, std::string& out);
  // The peer closed its side (a half-read IDENTIFY is answered with an error).
  void on_eof(std::string& out);
  // True once the connection must be closed (after `out` is written).
  bool closed() const { return state_ == State::closed; }
  // The connection is gone: takes the peer out of every registration.
  // Idempotent; also run by the destructor.
  void on_close();

  bool identified() const { return peer_ != nullptr; }
  // The peer sent the V1 magic (Go's IOLoop ran).
  bool accepted_magic() const { return magic_ok_; }

 private:
  enum class State { magic, line, body_size, body, closed };

  void handle_line(std::string_view line, Time now, std::string& out);
  void handle_identify_body(std::string_view body, Time now, std::string& out);
  void fail(std::string_view code, std::string_view text, std::string& out);
  void ping(Time now, std::string& out);
  void do_register(const std::vector<std::string_view>& params, std::string& out);
  void do_unregister(const std::vector<std::string_view>& params, std::string& out);
  // Topic and channel of a (UN)REGISTER, or false after failing.
  bool topic_channel(std::string_view cmd, const std::vector<std::string_view>& params,
                     std::string_view& topic, std::string_view& channel, std::string& out);
  void log(LogLevel level, const std::string& text) const;
  void log_db(std::string_view verb, std::string_view category, std::string_view key,
              std::string_view subkey) const;

  RegistrationDb& db_;
  const ServerIdentity& identity_;
  const std::string remote_;
  LogFn log_;
  State state_ = State::magic;
  std::string buf_;  // unconsumed input of the current state
  std::size_t body_size_ = 0;
  std::shared_ptr<Peer> peer_;  // set by IDENTIFY
  bool magic_ok_ = false;
  bool cleaned_up_ = false;
};

}  // namespace nsq::lookupd
