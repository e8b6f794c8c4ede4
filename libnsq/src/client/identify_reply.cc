#include "identify_reply.h"

#include <rapidjson/document.h>

namespace nsq::client {

tl::expected<IdentifyReply, std::string> parse_identify_reply(std::string_view data) {
  IdentifyReply reply;
  if (data == "OK") return reply;
  rapidjson::Document doc;
  doc.Parse(data.data(), data.size());
  if (doc.HasParseError() || !doc.IsObject())
    return tl::unexpected("IDENTIFY: bad response " + std::string(data));
  if (auto it = doc.FindMember("max_rdy_count"); it != doc.MemberEnd() && it->value.IsInt64())
    reply.max_rdy_count = it->value.GetInt64();
  if (auto it = doc.FindMember("msg_timeout"); it != doc.MemberEnd() && it->value.IsInt64())
    reply.msg_timeout_ms = it->value.GetInt64();
  if (auto it = doc.FindMember("auth_required"); it != doc.MemberEnd() && it->value.IsBool())
    reply.auth_required = it->value.GetBool();
  auto flag = [&](const char* name) {
    auto it = doc.FindMember(name);
    return it != doc.MemberEnd() && it->value.IsBool() && it->value.GetBool();
  };
  reply.tls_v1 = flag("tls_v1");
  reply.deflate = flag("deflate");
  reply.snappy = flag("snappy");
  return reply;
}

}  // namespace nsq::client
