#pragma once

#include <memory>
#include <string>

#include <tl/expected.hpp>

#include "nsqd/options.h"

namespace boost::asio::ssl {
class context;
}

namespace nsq::nsqd {

// The server-side TLS settings nsqd builds once from its options
// (--tls-cert, --tls-key, --tls-client-auth-policy, --tls-root-ca-file,
// --tls-min-version) and shares, read-only, between the TCP upgrade and the
// HTTPS listener. Returns nullptr when no certificate is configured, or a
// message naming the file that failed to load.
tl::expected<std::shared_ptr<boost::asio::ssl::context>, std::string> make_tls_context(
    const Options& options);

}  // namespace nsq::nsqd
