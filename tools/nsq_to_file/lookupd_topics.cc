#include "lookupd_topics.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <set>

#include "nsq/flags/go_strconv.h"
#include "nsq/http/client.h"

namespace nsq::to_file {

tl::expected<std::vector<std::string>, std::string> parse_topics_json(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError()) {
    return tl::unexpected(std::string("invalid JSON: ") +
                          rapidjson::GetParseError_En(doc.GetParseError()));
  }
  std::vector<std::string> topics;
  if (!doc.IsObject()) return tl::unexpected(std::string("invalid JSON: not an object"));
  auto it = doc.FindMember("topics");
  if (it == doc.MemberEnd() || !it->value.IsArray()) return topics;
  for (const auto& t : it->value.GetArray()) {
    if (t.IsString()) topics.emplace_back(t.GetString(), t.GetStringLength());
  }
  return topics;
}

tl::expected<std::vector<std::string>, std::string> fetch_lookupd_topics(
    const std::vector<std::string>& lookupds, std::chrono::nanoseconds connect_timeout,
    std::chrono::nanoseconds request_timeout) {
  std::set<std::string> all;
  std::string errors;
  auto fail = [&](const std::string& e) { errors += (errors.empty() ? "" : "\n") + e; };
  for (const auto& lookupd : lookupds) {
    // Go's clusterinfo prefixes "http://" itself; accept a URL too.
    const std::string url =
        lookupd.rfind("http://", 0) == 0 ? lookupd + "/topics" : "http://" + lookupd + "/topics";
    auto parsed = http::parse_url(url);
    if (!parsed) {
      fail("parse \"" + url + "\": " + parsed.error());
      continue;
    }
    http::ClientRequest req;
    req.host = parsed->host;
    req.port = parsed->port;
    req.target = parsed->target;
    req.headers.emplace_back("Accept", "application/vnd.nsq; version=1.0");
    req.connect_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(connect_timeout);
    req.request_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(request_timeout);
    auto resp = http::request(req);
    if (!resp) {
      fail("Get \"" + url + "\": " + resp.error());
      continue;
    }
    if (resp->status != 200) {
      fail("got response " + std::to_string(resp->status) + " " + flags::go_quote(resp->body));
      continue;
    }
    auto topics = parse_topics_json(resp->body);
    if (!topics) {
      fail(topics.error());
      continue;
    }
    all.insert(topics->begin(), topics->end());
  }
  if (!errors.empty()) return tl::unexpected(errors);
  return std::vector<std::string>(all.begin(), all.end());
}

}  // namespace nsq::to_file
