// nsqlookupd's HTTP API handlers (HttpApi::handle, sans-I/O) on a
// registration DB holding a few producers. Each input line is one request,
// "METHOD target" (a line without a space is a GET of that target), its
// target decoded as the server does (parse_target, parse_query); the raw HTTP
// parsing itself is fuzz_http_request's job. Invariants: no crash, a known
// status, and a JSON content type only on a body that parses as JSON.
#include <rapidjson/document.h>
#include <spdlog/logger.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "http/target.h"
#include "http_api.h"
#include "lookupd/options.h"
#include "registration_db.h"

namespace {

using nsq::lookupd::Registration;
using nsq::lookupd::Time;

void add_producer(nsq::lookupd::RegistrationDb& db, std::string id, Time now) {
  nsq::lookupd::PeerInfo info;
  info.id = id;
  info.remote_address = id;
  info.hostname = "host-" + id;
  info.broadcast_address = "127.0.0.1";
  info.tcp_port = 4150;
  info.http_port = 4151;
  info.version = "1.3.0";
  auto peer = std::make_shared<nsq::lookupd::Peer>(std::move(info), now);
  db.add_producer(Registration{"client", "", ""}, peer);
  db.add_producer(Registration{"topic", "t1", ""}, peer);
  db.add_producer(Registration{"channel", "t1", "c1"}, peer);
  db.add_producer(Registration{"topic", "t2", ""}, peer);
}

void check(const nsq::http::Response& r) {
  switch (r.status) {
    case 200:
    case 301:
    case 307:
    case 400:
    case 404:
    case 405:
    case 500:
    case 501:
      break;
    default:
      std::abort();
  }
  if (r.content_type.find("json") != std::string::npos) {
    rapidjson::Document doc;
    doc.Parse(r.body.data(), r.body.size());
    if (doc.HasParseError()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  static const nsq::lookupd::Options options;
  // A logger with no sinks: the handlers' log lines go nowhere.
  static const auto log = std::make_shared<spdlog::logger>("fuzz");
  nsq::lookupd::RegistrationDb db;
  Time now{std::chrono::hours(24)};
  add_producer(db, "10.0.0.1:1", now);
  add_producer(db, "10.0.0.2:2", now);
  nsq::lookupd::HttpApi api(db, options, log);
  while (!input.empty()) {
    std::string_view line = input.substr(0, input.find('\n'));
    input.remove_prefix(std::min(input.size(), line.size() + 1));
    nsq::http::Request req;
    std::size_t sp = line.find(' ');
    req.method = sp == std::string_view::npos ? "GET" : std::string(line.substr(0, sp));
    req.target = std::string(sp == std::string_view::npos ? line : line.substr(sp + 1));
    auto target = nsq::http::detail::parse_target(req.target);
    if (!target) continue;  // the server answers 400 before any handler
    req.path = target->path;
    req.raw_query = target->raw_query;
    auto query = nsq::http::detail::parse_query(req.raw_query);
    req.query = std::move(query.pairs);
    req.bad_query = query.bad;
    req.remote_address = "127.0.0.1:1234";
    check(api.handle(req, now));
    now += std::chrono::seconds(7);
  }
  return 0;
}
