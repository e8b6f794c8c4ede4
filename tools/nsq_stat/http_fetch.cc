#include "http_fetch.h"

#include "nsq/flags/go_strconv.h"
#include "nsq/http/client.h"
#include "nsq/http/message.h"

namespace nsq::stat {

tl::expected<std::string, std::string> fetch_v1(const std::string& address,
                                                const std::string& target,
                                                const HttpTimeouts& timeouts) {
  const std::string url = "http://" + address + target;
  auto parsed = http::parse_url(url);
  if (!parsed) return tl::unexpected("parse \"" + url + "\": " + parsed.error());
  http::ClientRequest req;
  req.host = parsed->host;
  req.port = parsed->port;
  req.target = parsed->target;
  req.headers.emplace_back("Accept", "application/vnd.nsq; version=1.0");
  req.connect_timeout = timeouts.connect;
  req.request_timeout = timeouts.request;
  auto resp = http::request(req);
  if (!resp) return tl::unexpected("Get \"" + url + "\": " + resp.error());
  if (resp->status != 200) {
    std::string status = std::to_string(resp->status);
    if (auto text = http::status_text(resp->status); !text.empty())
      status += " " + std::string(text);
    return tl::unexpected("got response " + status + " " + flags::go_quote(resp->body));
  }
  return std::move(resp->body);
}

}  // namespace nsq::stat
