#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "cluster_info.h"
#include "nsq/http/message.h"
#include "options.h"

namespace spdlog {
class logger;
}

// nsqadmin's HTTP surface, Go nsqadmin v1.3.0's routes: the UI pages and
// static files, /ping, and the JSON API under <base-path>/api (errors as
// {"message": "..."} with an HTTP status; upstream failures as 502
// UPSTREAM_ERROR when no upstream answered, as a "WARNING: ..." message next
// to the data when some did).
namespace nsq::admin {

class History;
class Notifier;

// @par Thread Safety: handle() may run on many threads at once; it blocks
// while it asks the cluster (call it off the server's I/O threads).
class Api {
 public:
  // options: normalized base path, copied (PUT /config/:opt changes the
  // copy); the other pointers must outlive this object; notifier may be null
  // (no --notification-http-endpoint); history may be null (none kept:
  // /api/history answers 404 HISTORY_DISABLED).
  Api(const Options* options, const ClusterInfo* cluster, Notifier* notifier,
      std::shared_ptr<spdlog::logger> log, const History* history = nullptr);

  http::Response handle(const http::Request& request) const;

  // The options now in force (a request keeps the ones it started with).
  std::shared_ptr<const Options> options() const;

 private:
  class Handlers;
  void swap_options(std::shared_ptr<const Options> next) const;

  // Replaced whole by PUT /config/:opt, as Go swaps its atomic Options pointer.
  mutable std::mutex mu_;
  mutable std::shared_ptr<const Options> options_;  // guarded by mu_
  const ClusterInfo* cluster_;
  Notifier* notifier_;
  const History* history_;
  std::shared_ptr<spdlog::logger> log_;
};

}  // namespace nsq::admin
