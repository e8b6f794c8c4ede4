#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "cluster/etcd_json.h"
#include "nsq/http/client.h"

namespace nsq::nsqd::cluster::etcd {

// A blocking client of etcd v3's JSON gateway (docs/replication.md says why
// not gRPC). Each call goes to the endpoint that answered last, and on to
// the next ones while an endpoint cannot be reached; an answer from etcd
// (even an error) ends the call. Errors are texts for the log, naming the
// endpoint and what failed.
//
// Thread safety: every member may be called from any thread.
class Client {
 public:
  struct Timeouts {
    std::chrono::milliseconds connect{1000};
    std::chrono::milliseconds request{2000};
  };

  // Parses `endpoints` ("http://host:port", https too); an error names the
  // one that is not a URL.
  static tl::expected<Client, std::string> make(const std::vector<std::string>& endpoints,
                                                Timeouts timeouts);

  Client(Client&& other) noexcept
      : endpoints_(std::move(other.endpoints_)),
        timeouts_(other.timeouts_),
        current_(other.current_.load()) {}

  tl::expected<RangeResult, std::string> range(const Range& range) const;
  tl::expected<std::int64_t, std::string> put(std::string_view key, std::string_view value,
                                              LeaseId lease = 0) const;
  tl::expected<std::int64_t, std::string> remove(const Range& range) const;
  tl::expected<TxnResult, std::string> txn(const std::vector<Compare>& compare,
                                           const std::vector<Op>& success,
                                           const std::vector<Op>& failure) const;
  tl::expected<LeaseId, std::string> lease_grant(std::chrono::seconds ttl) const;
  // The lease's remaining TTL; 0 when etcd no longer knows the lease.
  tl::expected<std::int64_t, std::string> lease_keepalive(LeaseId id) const;
  tl::expected<std::int64_t, std::string> lease_revoke(LeaseId id) const;

 private:
  Client(std::vector<http::Url> endpoints, Timeouts timeouts)
      : endpoints_(std::move(endpoints)), timeouts_(timeouts) {}

  // POSTs `body` to `path` ("/v3/kv/range"); the answer's body when etcd said 200.
  tl::expected<std::string, std::string> call(std::string_view path, std::string body) const;

  std::vector<http::Url> endpoints_;
  Timeouts timeouts_;
  mutable std::atomic<std::size_t> current_{0};
};

}  // namespace nsq::nsqd::cluster::etcd
