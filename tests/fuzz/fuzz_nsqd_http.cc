// nsqd's HTTP API (HttpApi::handle, transport-free) on a real Broker with a
// temporary data directory: /pub, /mpub (text and binary), /topic/*,
// /channel/*, /config/*, /stats, /info, /debug/... get random requests.
//
// Input: a first byte of settings, then requests separated by a line "--".
// In each, the first line is "METHOD target" (no space: a GET of that
// target), the lines up to a blank line are headers "name: value", and what
// follows the blank line is the body. Each request is written out as
// HTTP/1.1 and read back by the server's own parser with the server's body
// limit, so the handlers see what a socket would give them (a request the
// parser refuses never reaches them). Requests run one after the other, as
// on one keep-alive connection.
//
// The first byte picks the memory queue size (how soon messages spill to the
// disk queues) and whether the input ends in nsqd's shutdown (Broker::close,
// then the broker and its directory are dropped). A Broker costs six threads,
// so it is otherwise kept for the next input with the same settings, after
// every topic is deleted: the next input starts from an empty broker, and
// state cannot grow across runs. The HttpApi (runtime /config) is new per input.
//
// Invariants: no crash, no leak, no hang (a handler that drops its reply
// without calling it aborts here); exactly one reply per request; a known
// status; a JSON content type only on a body that parses as JSON; every
// error but /debug's Go-compatible text ones is {"message": "..."}; a
// publish answered 200 adds exactly the messages sent to the topic's count,
// and any other answer adds none; topic/channel create and delete answered
// 200 leave the topic/channel there or gone; once every topic is deleted, no
// queue file is left in the data directory.
#include <rapidjson/document.h>
#include <spdlog/logger.h>
#include <stdlib.h>
#include <strings.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <latch>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/broker.h"
#include "core/topic.h"
#include "http/http_api.h"
#include "http/request_parser.h"
#include "net/conn_registry.h"
#include "nsq/endian.h"
#include "nsqd/options.h"

namespace {

using nsq::http::Request;
using nsq::http::Response;

constexpr std::string_view kSeparator = "\n--\n";

// A temporary data directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    // On tmpfs when there is one: nsqd.dat and the disk queues fsync, which
    // costs milliseconds per input on a real disk.
    std::error_code ec;
    std::filesystem::path base = std::filesystem::is_directory("/dev/shm", ec)
                                     ? std::filesystem::path("/dev/shm")
                                     : std::filesystem::temp_directory_path();
    std::string pattern = (base / "fuzz_nsqd_http.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// One reply slot: the handler must call it exactly once. Dropped without a
// call (the server would answer 500 and log nothing useful): abort.
struct ReplySlot {
  std::promise<Response> promise;
  bool replied = false;
  ~ReplySlot() {
    if (!replied) std::abort();
  }
};

Response call(nsq::nsqd::HttpApi& api, Request req) {
  auto slot = std::make_shared<ReplySlot>();
  auto future = slot->promise.get_future();
  api.handle(std::move(req), [slot](Response r) {
    if (slot->replied) std::abort();  // a second reply
    slot->replied = true;
    slot->promise.set_value(std::move(r));
  });
  slot.reset();
  return future.get();
}

bool is_json_message(const std::string& body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject() || doc.MemberCount() != 1) return false;
  if (!doc.HasMember("message")) return false;
  const rapidjson::Value& m = doc["message"];
  return m.IsString() && m.GetStringLength() > 0;
}

void check_response(const Request& req, const Response& r) {
  switch (r.status) {
    case 200:
    case 301:
    case 307:
    case 400:
    case 404:
    case 405:
    case 413:
    case 500:
    case 501:
    case 503:
      break;
    default:
      std::abort();
  }
  if (r.content_type.find("json") != std::string::npos) {
    rapidjson::Document doc;
    doc.Parse(r.body.data(), r.body.size());
    if (doc.HasParseError()) std::abort();
  }
  const bool debug_text = req.path.starts_with("/debug/") && r.content_type.starts_with("text/");
  if (r.status >= 400 && !debug_text && !is_json_message(r.body)) std::abort();
  if (r.status == 301 || r.status == 307) {
    bool location = false;
    for (const auto& [name, value] : r.headers) location = location || name == "Location";
    if (!location) std::abort();
  }
}

// Messages a publish of `req` carries if it succeeds (nullopt: not a publish).
std::optional<std::uint64_t> messages_sent(const Request& req) {
  if (req.method != "POST") return std::nullopt;
  if (req.path == "/pub") return 1;
  if (req.path != "/mpub") return std::nullopt;
  auto binary = req.query_value("binary");
  if (binary && *binary != "false" && *binary != "0") {
    if (req.body.size() < 4) return 0;
    return nsq::get_u32be(req.body.data());
  }
  std::uint64_t n = 0;
  std::string_view rest = req.body;
  while (!rest.empty()) {
    std::size_t nl = rest.find('\n');
    if (nl != 0) ++n;
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
  }
  return n;
}

std::uint64_t message_count(nsq::nsqd::Broker& broker, const std::string& topic) {
  auto t = broker.find_topic(topic);
  return t ? t->stats().message_count : 0;
}

// The request as the server's parser reads it off a connection (nullopt:
// the server answers 400/417/431/505 itself and no handler runs).
std::optional<Request> to_request(std::string_view chunk, std::size_t max_body_size) {
  std::string_view head = chunk.substr(0, chunk.find("\n\n"));
  std::string_view body =
      head.size() == chunk.size() ? std::string_view{} : chunk.substr(head.size() + 2);
  std::string_view line = head.substr(0, head.find('\n'));
  head.remove_prefix(std::min(head.size(), line.size() + 1));
  std::size_t sp = line.find(' ');
  std::string raw;
  if (sp == std::string_view::npos) {
    raw = "GET " + std::string(line);
  } else {
    raw = std::string(line);
  }
  raw += " HTTP/1.1\r\nHost: fuzz\r\n";
  bool chunked = false;
  while (!head.empty()) {
    std::string_view h = head.substr(0, head.find('\n'));
    head.remove_prefix(std::min(head.size(), h.size() + 1));
    // The framing is ours: a Content-Length in the input is replaced by the
    // body's real length below (a socket reader could not disagree with it).
    std::string_view name = h.substr(0, h.find(':'));
    if (name.size() == 14 && strncasecmp(name.data(), "content-length", 14) == 0) continue;
    if (name.size() == 17 && strncasecmp(name.data(), "transfer-encoding", 17) == 0) {
      chunked = true;
    }
    raw += std::string(h) + "\r\n";
  }
  if (chunked) {
    // One chunk with the body, then the last chunk.
    char size[32];
    int n = std::snprintf(size, sizeof size, "%zx", body.size());
    raw += "\r\n";
    if (!body.empty()) {
      raw.append(size, static_cast<std::size_t>(n)).append("\r\n").append(body).append("\r\n");
    }
    raw += "0\r\n\r\n";
  } else {
    raw += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
  }
  nsq::http::detail::ParserLimits limits;
  limits.max_body_size = max_body_size;
  auto parsed = nsq::http::detail::parse_request(raw, limits);
  if (parsed.status != nsq::http::detail::RequestParser::Status::done) return std::nullopt;
  parsed.request->remote_address = "127.0.0.1:4242";
  return std::move(parsed.request);
}

nsq::nsqd::Options fuzz_options(const std::filesystem::path& dir, int mem_queue) {
  nsq::nsqd::Options o;
  o.node_id = 7;
  o.broadcast_address = "fuzz-host";
  o.data_path = dir.string();
  // Small limits so that every size check is within reach of a short input.
  static constexpr std::int64_t kMemQueue[] = {0, 2, 10000};
  o.mem_queue_size = kMemQueue[mem_queue];
  o.max_msg_size = 64;
  o.max_body_size = 512;
  o.max_bytes_per_file = 256;
  o.max_req_timeout = std::chrono::seconds(5);
  return o;
}

// Returns once every job queued on the pool so far has finished: one job
// per thread, each holding its thread until all have started.
void wait_idle(nsq::nsqd::WorkerPool& pool) {
  const auto threads = static_cast<std::ptrdiff_t>(pool.thread_count());
  auto all = std::make_shared<std::latch>(threads + 1);
  for (std::ptrdiff_t i = 0; i < threads; ++i) pool.submit([all] { all->arrive_and_wait(); });
  all->arrive_and_wait();
}

struct Node {
  TempDir dir;
  std::unique_ptr<nsq::nsqd::Broker> broker;
};

// Deletes every topic (as POST /topic/delete does) and checks that their
// files went with them.
void reset(Node& node) {
  nsq::nsqd::Broker& broker = *node.broker;
  for (const auto& t : broker.topics()) broker.delete_topic(t->name());
  wait_idle(broker.disk_pool());
  broker.report_disk_result({});
  for (const auto& entry : std::filesystem::directory_iterator(node.dir.path())) {
    if (entry.path().filename() != "nsqd.dat") std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // A logger with no sinks: the handlers' log lines go nowhere (but are
  // formatted, at nsqd's default level).
  static const auto log = std::make_shared<spdlog::logger>("fuzz");
  static std::unique_ptr<Node> nodes[3];
  log->set_level(spdlog::level::info);
  const int mem_queue = (data[0] & 0x7f) % 3;
  const bool shutdown = (data[0] & 0x80) != 0;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);

  auto& node = nodes[mem_queue];
  if (!node) {
    node = std::make_unique<Node>();
    node->broker =
        std::make_unique<nsq::nsqd::Broker>(fuzz_options(node->dir.path(), mem_queue), log);
  }
  nsq::nsqd::Broker& broker = *node->broker;
  {
    nsq::nsqd::ConnRegistry conns;
    nsq::nsqd::NodeInfo info{"fuzz-host", "fuzz-host", 1700000000, [] { return 4150; },
                             [] { return 4151; }};
    nsq::nsqd::HttpApi api(broker, conns, std::move(info), log);
    const auto& o = broker.options();
    const std::size_t server_body_limit =
        static_cast<std::size_t>(std::max(o.max_body_size, o.max_msg_size));

    while (!input.empty()) {
      std::size_t end = input.find(kSeparator);
      std::string_view chunk = input.substr(0, end);
      input.remove_prefix(end == std::string_view::npos ? input.size() : end + kSeparator.size());
      auto req = to_request(chunk, server_body_limit);
      if (!req) continue;
      const Request copy = *req;
      auto topic = copy.query_value("topic");
      auto sent = messages_sent(copy);
      std::uint64_t before = topic && sent ? message_count(broker, *topic) : 0;

      Response r = call(api, std::move(*req));
      check_response(copy, r);

      if (topic && sent) {
        std::uint64_t after = message_count(broker, *topic);
        if (after != before + (r.status == 200 ? *sent : 0)) std::abort();
      }
      if (r.status == 200 && copy.method == "POST" && topic) {
        auto channel = copy.query_value("channel");
        auto t = broker.find_topic(*topic);
        if (copy.path == "/topic/create" && !t) std::abort();
        if (copy.path == "/topic/delete" && t) std::abort();
        if (copy.path == "/channel/create" && (!t || !t->find_channel(*channel))) std::abort();
        if (copy.path == "/channel/delete" && t && t->find_channel(*channel)) std::abort();
      }
    }
  }
  if (shutdown) {
    // What nsqd does on SIGTERM once its listeners are closed.
    broker.close();
    node.reset();
  } else {
    reset(*node);
  }
  return 0;
}
