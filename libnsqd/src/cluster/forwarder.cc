#include "cluster/forwarder.h"

#include <charconv>

#include "nsq/endian.h"
#include "nsq/http/client.h"

namespace nsq::nsqd::cluster {
namespace {

// Go's /mpub?binary=true body: [u32 count] then [u32 size][body] each.
std::string binary_mpub(const std::vector<std::string>& bodies) {
  std::string out(4, '\0');
  put_u32be(out.data(), static_cast<std::uint32_t>(bodies.size()));
  for (const auto& b : bodies) {
    char size[4];
    put_u32be(size, static_cast<std::uint32_t>(b.size()));
    out.append(size, 4);
    out += b;
  }
  return out;
}

// Why the leader refused: the "message" of its V1 error reply
// ({"message":"PUB_FAILED - <why>"}), or the body.
std::string message_of(const std::string& body) {
  constexpr std::string_view kKey = "{\"message\":\"";
  constexpr std::string_view kFailed = "PUB_FAILED - ";
  if (!body.starts_with(kKey) || !body.ends_with("\"}")) return body.substr(0, 200);
  std::string message = body.substr(kKey.size(), body.size() - kKey.size() - 2);
  if (message.starts_with(kFailed)) message.erase(0, kFailed.size());
  return message;
}

}  // namespace

std::string forward_publish(const std::string& leader_http, const std::string& topic,
                            const std::vector<std::string>& bodies, std::chrono::milliseconds defer,
                            std::chrono::milliseconds connect_timeout,
                            std::chrono::milliseconds request_timeout) {
  const std::size_t colon = leader_http.rfind(':');
  std::uint16_t port = 0;
  const char* digits = leader_http.data() + (colon == std::string::npos ? 0 : colon + 1);
  const auto [end, ec] = std::from_chars(digits, leader_http.data() + leader_http.size(), port);
  if (colon == std::string::npos || ec != std::errc() ||
      end != leader_http.data() + leader_http.size()) {
    return "the leader advertises no host:port (" + leader_http + ")";
  }
  http::ClientRequest r;
  r.method = "POST";
  r.host = leader_http.substr(0, colon);
  if (r.host.size() > 1 && r.host.front() == '[') r.host = r.host.substr(1, r.host.size() - 2);
  r.port = port;
  const std::string query = "?topic=" + http::query_escape(topic);
  if (bodies.size() == 1) {
    r.target = "/pub" + query;
    r.body = bodies.front();
  } else {
    r.target = "/mpub" + query + "&binary=true";
    r.body = binary_mpub(bodies);
  }
  if (defer.count() > 0) r.target += "&defer=" + std::to_string(defer.count());
  r.headers.emplace_back(std::string(kForwardedHeader), "1");
  r.connect_timeout = connect_timeout;
  r.request_timeout = request_timeout;
  auto response = http::request(r);
  if (!response) return "forwarding to the leader failed: " + response.error();
  if (response->status == 200) return "";
  return message_of(response->body);
}

}  // namespace nsq::nsqd::cluster
