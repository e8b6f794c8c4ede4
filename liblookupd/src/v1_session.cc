#include "v1_session.h"

#include <utility>

#include "nsq/flags/go_duration.h"
#include "nsq/json/go_object.h"
#include "nsq/json/writer.h"
#include "nsq/names.h"

namespace nsq::lookupd {
namespace {

constexpr std::string_view kMagicV1 = "  V1";

// Go's strings.Split(line, " ").
std::vector<std::string_view> split_spaces(std::string_view line) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto pos = line.find(' ');
    out.push_back(line.substr(0, pos));
    if (pos == std::string_view::npos) break;
    line.remove_prefix(pos + 1);
  }
  return out;
}

// Go's strings.TrimSpace for ASCII whitespace (and the Unicode spaces nsqd
// never sends are left alone).
std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\r\v\f";
  const auto b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

}  // namespace

std::optional<PeerInfo> parse_peer_info(std::string_view body) {
  PeerInfo info;
  const json::GoField fields[] = {
      {"remote_address", &info.remote_address},       {"hostname", &info.hostname},
      {"broadcast_address", &info.broadcast_address}, {"tcp_port", json::GoInt{&info.tcp_port}},
      {"http_port", json::GoInt{&info.http_port}},    {"version", &info.version},
      {"topology_zone", &info.topology_zone},         {"topology_region", &info.topology_region},
  };
  if (!json::decode_go_object(body, fields)) return std::nullopt;
  return info;
}

void append_response(std::string& out, std::string_view data) {
  const auto n = static_cast<std::uint32_t>(data.size());
  out += static_cast<char>(n >> 24);
  out += static_cast<char>(n >> 16);
  out += static_cast<char>(n >> 8);
  out += static_cast<char>(n);
  out += data;
}

V1Session::V1Session(RegistrationDb& db, const ServerIdentity& identity, std::string remote_address,
                     LogFn log)
    : db_(db), identity_(identity), remote_(std::move(remote_address)), log_(std::move(log)) {}

V1Session::~V1Session() { on_close(); }

void V1Session::log(LogLevel level, const std::string& text) const {
  if (log_) log_(level, text);
}

void V1Session::log_db(std::string_view verb, std::string_view category, std::string_view key,
                       std::string_view subkey) const {
  log(LogLevel::info, "DB: client(" + remote_ + ") " + std::string(verb) +
                          " category:" + std::string(category) + " key:" + std::string(key) +
                          " subkey:" + std::string(subkey));
}

void V1Session::put(std::string_view data, Time now, std::string& out) {
  while (!data.empty() && state_ != State::closed) {
    switch (state_) {
      case State::magic: {
        const std::size_t take = std::min(data.size(), kMagicV1.size() - buf_.size());
        buf_.append(data.substr(0, take));
        data.remove_prefix(take);
        if (buf_.size() < kMagicV1.size()) return;
        log(LogLevel::info, "CLIENT(" + remote_ + "): desired protocol magic '" + buf_ + "'");
        if (buf_ != kMagicV1) {
          append_response(out, "E_BAD_PROTOCOL");
          log(LogLevel::error, "client(" + remote_ + ") bad protocol magic '" + buf_ + "'");
          state_ = State::closed;
          return;
        }
        buf_.clear();
        magic_ok_ = true;
        state_ = State::line;
        break;
      }
      case State::line: {
        const auto nl = data.find('\n');
        const std::size_t take = nl == std::string_view::npos ? data.size() : nl + 1;
        if (buf_.size() + take > kMaxLine) {
          fail("E_INVALID", "command line too long", out);
          return;
        }
        buf_.append(data.substr(0, take));
        data.remove_prefix(take);
        if (nl == std::string_view::npos) return;
        std::string line = std::move(buf_);
        buf_.clear();
        handle_line(trim(line), now, out);
        break;
      }
      case State::body_size: {
        const std::size_t take = std::min(data.size(), 4 - buf_.size());
        buf_.append(data.substr(0, take));
        data.remove_prefix(take);
        if (buf_.size() < 4) return;
        const auto b = [&](int i) {
          return static_cast<std::uint32_t>(static_cast<unsigned char>(buf_[i]));
        };
        const auto size = static_cast<std::int32_t>(b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3));
        buf_.clear();
        if (size < 0 || size > kMaxIdentifyBody) {
          fail("E_BAD_BODY", "IDENTIFY invalid body size " + std::to_string(size), out);
          return;
        }
        body_size_ = static_cast<std::size_t>(size);
        state_ = State::body;
        if (body_size_ == 0) {
          state_ = State::line;
          handle_identify_body({}, now, out);
        }
        break;
      }
      case State::body: {
        const std::size_t take = std::min(data.size(), body_size_ - buf_.size());
        buf_.append(data.substr(0, take));
        data.remove_prefix(take);
        if (buf_.size() < body_size_) return;
        std::string body = std::move(buf_);
        buf_.clear();
        state_ = State::line;
        handle_identify_body(body, now, out);
        break;
      }
      case State::closed:
        return;
    }
  }
}

void V1Session::on_eof(std::string& out) {
  if (state_ == State::magic) {
    log(LogLevel::error, "failed to read protocol version - EOF");
    state_ = State::closed;
  } else if (state_ == State::body_size) {
    fail("E_BAD_BODY", "IDENTIFY failed to read body size", out);
  } else if (state_ == State::body) {
    fail("E_BAD_BODY", "IDENTIFY failed to read body", out);
  } else {
    state_ = State::closed;
  }
}

void V1Session::fail(std::string_view code, std::string_view text, std::string& out) {
  std::string message = std::string(code) + " " + std::string(text);
  log(LogLevel::error, "[" + remote_ + "] - " + message);
  append_response(out, message);
  state_ = State::closed;
  buf_.clear();
}

void V1Session::handle_line(std::string_view line, Time now, std::string& out) {
  const std::vector<std::string_view> params = split_spaces(line);
  const std::string_view cmd = params[0];
  const std::vector<std::string_view> args(params.begin() + 1, params.end());
  if (cmd == "PING") {
    ping(now, out);
  } else if (cmd == "IDENTIFY") {
    if (peer_) {
      fail("E_INVALID", "cannot IDENTIFY again", out);
      return;
    }
    state_ = State::body_size;
  } else if (cmd == "REGISTER") {
    do_register(args, out);
  } else if (cmd == "UNREGISTER") {
    do_unregister(args, out);
  } else {
    fail("E_INVALID", "invalid command " + std::string(cmd), out);
  }
}

void V1Session::ping(Time now, std::string& out) {
  if (peer_) {
    const Time last = db_.touch(*peer_, now);
    log(LogLevel::info, "CLIENT(" + remote_ + "): pinged (last ping " +
                            flags::format_go_duration(now - last) + ")");
  }
  append_response(out, "OK");
}

void V1Session::handle_identify_body(std::string_view body, Time now, std::string& out) {
  auto info = parse_peer_info(body);
  if (!info) {
    fail("E_BAD_BODY", "IDENTIFY failed to decode JSON body", out);
    return;
  }
  info->id = remote_;
  info->remote_address = remote_;
  if (info->broadcast_address.empty() || info->tcp_port == 0 || info->http_port == 0 ||
      info->version.empty()) {
    fail("E_BAD_BODY", "IDENTIFY missing fields", out);
    return;
  }
  log(LogLevel::info, "CLIENT(" + remote_ + "): IDENTIFY Address:" + info->broadcast_address +
                          " TCP:" + std::to_string(info->tcp_port) +
                          " HTTP:" + std::to_string(info->http_port) + " Version:" + info->version);
  peer_ = std::make_shared<Peer>(std::move(*info), now);
  if (db_.add_producer(Registration{std::string(kClient), "", ""}, peer_)) {
    log_db("REGISTER", kClient, "", "");
  }
  // Go marshals a map: keys sorted.
  std::string json = "{\"broadcast_address\":" + json::quote(identity_.broadcast_address) +
                     ",\"hostname\":" + json::quote(identity_.hostname) +
                     ",\"http_port\":" + std::to_string(identity_.http_port) +
                     ",\"tcp_port\":" + std::to_string(identity_.tcp_port) +
                     ",\"version\":\"1.3.0\"}";
  append_response(out, json);
}

bool V1Session::topic_channel(std::string_view cmd, const std::vector<std::string_view>& params,
                              std::string_view& topic, std::string_view& channel,
                              std::string& out) {
  if (params.empty()) {
    fail("E_INVALID", std::string(cmd) + " insufficient number of params", out);
    return false;
  }
  topic = params[0];
  channel = params.size() >= 2 ? params[1] : std::string_view();
  if (!is_valid_topic_name(topic)) {
    fail("E_BAD_TOPIC", std::string(cmd) + " topic name '" + std::string(topic) + "' is not valid",
         out);
    return false;
  }
  if (!channel.empty() && !is_valid_channel_name(channel)) {
    fail("E_BAD_CHANNEL",
         std::string(cmd) + " channel name '" + std::string(channel) + "' is not valid", out);
    return false;
  }
  return true;
}

void V1Session::do_register(const std::vector<std::string_view>& params, std::string& out) {
  if (!peer_) {
    fail("E_INVALID", "client must IDENTIFY", out);
    return;
  }
  std::string_view topic, channel;
  if (!topic_channel("REGISTER", params, topic, channel, out)) return;
  if (!channel.empty()) {
    Registration key{std::string(kChannel), std::string(topic), std::string(channel)};
    if (db_.add_producer(key, peer_)) log_db("REGISTER", kChannel, topic, channel);
  }
  if (db_.add_producer(Registration{std::string(kTopic), std::string(topic), ""}, peer_)) {
    log_db("REGISTER", kTopic, topic, "");
  }
  append_response(out, "OK");
}

void V1Session::do_unregister(const std::vector<std::string_view>& params, std::string& out) {
  if (!peer_) {
    fail("E_INVALID", "client must IDENTIFY", out);
    return;
  }
  std::string_view topic, channel;
  if (!topic_channel("UNREGISTER", params, topic, channel, out)) return;
  const std::string& id = peer_->info().id;
  if (!channel.empty()) {
    Registration key{std::string(kChannel), std::string(topic), std::string(channel)};
    const RemoveResult r = db_.remove_producer(key, id);
    if (r.removed) log_db("UNREGISTER", kChannel, topic, channel);
    if (r.left == 0 && is_ephemeral(channel)) db_.remove_registration(key);
  } else {
    // A topic unregistration also drops the peer's channels of the topic
    // (nsqd unregisters those first, hence the warning).
    for (const Registration& r : db_.find_registrations(kChannel, topic, "*")) {
      if (db_.remove_producer(r, id).removed) {
        log(LogLevel::warn, "client(" + remote_ + ") unexpected UNREGISTER category:channel key:" +
                                std::string(topic) + " subkey:" + r.subkey);
      }
    }
    Registration key{std::string(kTopic), std::string(topic), ""};
    const RemoveResult r = db_.remove_producer(key, id);
    if (r.removed) log_db("UNREGISTER", kTopic, topic, "");
    if (r.left == 0 && is_ephemeral(topic)) db_.remove_registration(key);
  }
  append_response(out, "OK");
}

void V1Session::on_close() {
  if (cleaned_up_) return;
  cleaned_up_ = true;
  state_ = State::closed;
  if (!peer_) return;
  for (const Registration& r : db_.remove_peer(peer_->info().id)) {
    log_db("UNREGISTER", r.category, r.key, r.subkey);
  }
}

}  // namespace nsq::lookupd
