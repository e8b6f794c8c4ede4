#pragma once

#include <chrono>
#include <string>
#include <tl/expected.hpp>

#include "nsq/http/client.h"

// nsqadmin's requests to nsqlookupd and nsqd, as Go's http_api client makes
// them (GETV1 / POSTV1): one blocking request with connect and total
// timeouts. Safe to call from many threads at once (no shared state).
namespace nsq::admin {

struct Options;

// How nsqadmin's HTTP client talks to upstreams: the timeouts, and the TLS
// settings (--http-client-tls-*) used for https:// URLs only, as Go's
// client uses its tls.Config (in practice an https:// --graphite-url).
struct UpstreamTimeouts {
  std::chrono::milliseconds connect{3000};
  std::chrono::milliseconds request{5000};
  http::ClientTls tls;  // `enable` is ignored: the URL's scheme decides
};

// The client settings from nsqadmin's options.
UpstreamTimeouts upstream_settings(const Options& options);

// Every request: over TLS for an https:// URL; a URL's "user:password@"
// becomes `Authorization: Basic ...`, as Go's http.Client sends it (and the
// password shows as "***" in errors, as Go's url.Error redacts it).
//
// GET url with `Accept: application/vnd.nsq; version=1.0`: the body of a 200.
// Errors read like Go's, e.g.
// `Get "http://127.0.0.1:1/stats?format=json": connect 127.0.0.1:1: Connection refused`
// or `got response 404 Not Found "{\"message\":\"TOPIC_NOT_FOUND\"}"`.
tl::expected<std::string, std::string> get_v1(const std::string& url,
                                              const UpstreamTimeouts& timeouts);

// POST url with an empty body (NSQ's admin endpoints take their arguments in
// the query): the body of a 200, errors as get_v1 (with "Post").
tl::expected<std::string, std::string> post_v1(const std::string& url,
                                               const UpstreamTimeouts& timeouts);

// POST a JSON body to any http(s):// URL (notifications): the status, or the error.
tl::expected<int, std::string> post_json(const std::string& url, const std::string& body,
                                         const UpstreamTimeouts& timeouts);

// GET any http(s):// URL and hand back the answer as it came, whatever its
// status (the graphite proxy passes graphite's answer on). Errors as get_v1.
tl::expected<http::ClientResponse, std::string> get_raw(const std::string& url,
                                                        const UpstreamTimeouts& timeouts);

}  // namespace nsq::admin
