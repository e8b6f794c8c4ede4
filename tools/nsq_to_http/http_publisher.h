#pragma once

#include <chrono>
#include <string>
#include <tl/expected.hpp>

#include "nsq/http/message.h"

namespace nsq::tools::to_http {

// Sends one message to one address as nsq_to_http does. GET: the address's
// "%s" replaced by the query-escaped body, success = status 200. POST: the
// body as is with Content-Type, success = any 2xx. Both carry
// "User-Agent: nsq_to_http v1.3.0", then the --header values (which may
// replace it). The error is the text logged with the requeue, such as
// "got status code 500" or the connection error.
//
// @par Thread Safety: immutable; publish() from any thread (one blocking
// request each).
class HttpPublisher {
 public:
  HttpPublisher(bool post, std::string content_type, http::HeaderList custom_headers,
                std::chrono::milliseconds connect_timeout,
                std::chrono::milliseconds request_timeout);

  tl::expected<void, std::string> publish(const std::string& address,
                                          const std::string& body) const;

  // The GET URL for a body: address with its "%s" replaced (and "%%" as '%').
  static std::string get_url(const std::string& address, const std::string& body);

 private:
  const bool post_;
  http::HeaderList headers_;  // User-Agent, Content-Type (POST), then custom ones
  const std::chrono::milliseconds connect_timeout_;
  const std::chrono::milliseconds request_timeout_;
};

}  // namespace nsq::tools::to_http
