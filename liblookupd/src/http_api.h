#pragma once

#include <functional>
#include <memory>

#include "lookupd/options.h"
#include "nsq/http/message.h"
#include "registration_db.h"

namespace spdlog {
class logger;
}

// nsqlookupd's HTTP API (lookupd.md §3) over the registration DB, with nsqd's
// V1 conventions (X-NSQ-Content-Type, {"message":...} errors, 404/405).
namespace nsq::lookupd {

// Thread-safe (the DB is; the rest is immutable). Handlers never block.
class HttpApi {
 public:
  // `db` and `options` must outlive the API.
  HttpApi(RegistrationDb& db, const Options& options, std::shared_ptr<spdlog::logger> log);

  // Answers one request at time `now` (a parameter for tests).
  http::Response handle(const http::Request& request, Time now) const;

 private:
  http::Response route(const http::Request& req, Time now) const;
  http::Response do_lookup(const http::Request& req, Time now) const;
  http::Response do_nodes(Time now) const;
  http::Response do_debug() const;
  http::Response do_topic_action(std::string_view action, const http::Request& req, Time now) const;
  http::Response do_channel_action(std::string_view action, const http::Request& req) const;

  RegistrationDb& db_;
  const Options& options_;
  std::shared_ptr<spdlog::logger> log_;
};

}  // namespace nsq::lookupd
