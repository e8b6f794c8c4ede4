#include "cluster/etcd_json.h"

#include <rapidjson/document.h>

#include <charconv>

#include "nsq/base64.h"
#include "nsq/json/writer.h"

namespace nsq::nsqd::cluster::etcd {
namespace {

using Value = rapidjson::Value;

void append_bytes(std::string& out, std::string_view key, std::string_view bytes) {
  json::append_key(out, key);
  json::append_string(out, base64::encode(bytes));
}

void append_int_field(std::string& out, std::string_view key, std::int64_t v) {
  json::append_key(out, key);
  json::append_int(out, v);
}

// The fields etcd reads for a range (or a delete) of `key`, possibly a prefix.
void append_range_fields(std::string& out, const std::string& key, bool prefix) {
  append_bytes(out, "key", key);
  if (prefix) {
    out += ',';
    append_bytes(out, "range_end", prefix_end(key));
  }
}

void append_op(std::string& out, const Op& op) {
  switch (op.kind) {
    case Op::Kind::put:
      out += "{\"request_put\":{";
      append_bytes(out, "key", op.key);
      out += ',';
      append_bytes(out, "value", op.value);
      if (op.lease != 0) {
        out += ',';
        append_int_field(out, "lease", op.lease);
      }
      break;
    case Op::Kind::range:
      out += "{\"request_range\":{";
      append_range_fields(out, op.key, op.prefix);
      break;
    case Op::Kind::remove:
      out += "{\"request_delete_range\":{";
      append_range_fields(out, op.key, op.prefix);
      break;
  }
  out += "}}";
}

void append_ops(std::string& out, std::string_view key, const std::vector<Op>& ops) {
  json::append_key(out, key);
  out += '[';
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (i) out += ',';
    append_op(out, ops[i]);
  }
  out += ']';
}

tl::expected<Value*, std::string> parse_object(rapidjson::Document& doc, std::string_view json) {
  doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(json.data(),
                                                                                    json.size());
  if (doc.HasParseError()) return tl::unexpected(std::string("etcd answered no JSON"));
  if (!doc.IsObject()) return tl::unexpected(std::string("etcd answered no JSON object"));
  return &doc;
}

const Value* member(const Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  const auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

// An int64 field: absent is 0; proto3's JSON writes it as a string, but a
// number is accepted too.
tl::expected<std::int64_t, std::string> int_field(const Value& object, const char* name) {
  const Value* v = member(object, name);
  if (!v || v->IsNull()) return 0;
  if (v->IsInt64()) return v->GetInt64();
  if (v->IsString()) {
    const std::string_view text(v->GetString(), v->GetStringLength());
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec == std::errc() && end == text.data() + text.size()) return n;
  }
  return tl::unexpected("etcd's \"" + std::string(name) + "\" is no int64");
}

tl::expected<std::string, std::string> bytes_field(const Value& object, const char* name) {
  const Value* v = member(object, name);
  if (!v || v->IsNull()) return std::string();
  if (!v->IsString()) return tl::unexpected("etcd's \"" + std::string(name) + "\" is no string");
  auto decoded = base64::decode(std::string_view(v->GetString(), v->GetStringLength()));
  if (!decoded) return tl::unexpected("etcd's \"" + std::string(name) + "\" is no base64");
  return std::move(*decoded);
}

tl::expected<std::int64_t, std::string> header_revision(const Value& answer) {
  const Value* header = member(answer, "header");
  if (!header || !header->IsObject()) return tl::unexpected(std::string("etcd answered no header"));
  return int_field(*header, "revision");
}

tl::expected<KeyValue, std::string> key_value(const Value& v) {
  if (!v.IsObject()) return tl::unexpected(std::string("etcd's kvs hold no object"));
  KeyValue kv;
  auto key = bytes_field(v, "key");
  auto value = bytes_field(v, "value");
  auto created = int_field(v, "create_revision");
  auto modified = int_field(v, "mod_revision");
  auto lease = int_field(v, "lease");
  if (!key) return tl::unexpected(key.error());
  if (!value) return tl::unexpected(value.error());
  if (!created) return tl::unexpected(created.error());
  if (!modified) return tl::unexpected(modified.error());
  if (!lease) return tl::unexpected(lease.error());
  kv.key = std::move(*key);
  kv.value = std::move(*value);
  kv.create_revision = *created;
  kv.mod_revision = *modified;
  kv.lease = *lease;
  return kv;
}

// The kvs of a range answer (the gateway's answer, or a txn's response_range).
tl::expected<std::vector<KeyValue>, std::string> kvs(const Value& answer) {
  std::vector<KeyValue> out;
  const Value* list = member(answer, "kvs");
  if (!list || list->IsNull()) return out;
  if (!list->IsArray()) return tl::unexpected(std::string("etcd's kvs is no array"));
  for (const Value& v : list->GetArray()) {
    auto kv = key_value(v);
    if (!kv) return tl::unexpected(kv.error());
    out.push_back(std::move(*kv));
  }
  return out;
}

}  // namespace

std::string prefix_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');
}

std::string range_body(const Range& range) {
  std::string out = "{";
  append_range_fields(out, range.key, range.prefix);
  out += '}';
  return out;
}

std::string put_body(std::string_view key, std::string_view value, LeaseId lease) {
  Op op{Op::Kind::put, std::string(key), std::string(value), lease, false};
  std::string out;
  append_op(out, op);
  // append_op wrote {"request_put":{...}}; the put endpoint takes the inner object.
  constexpr std::string_view kWrapper = "{\"request_put\":";
  return out.substr(kWrapper.size(), out.size() - kWrapper.size() - 1);
}

std::string remove_body(const Range& range) { return range_body(range); }

std::string txn_body(const std::vector<Compare>& compare, const std::vector<Op>& success,
                     const std::vector<Op>& failure) {
  std::string out = "{";
  json::append_key(out, "compare");
  out += '[';
  for (std::size_t i = 0; i < compare.size(); ++i) {
    const Compare& c = compare[i];
    if (i) out += ',';
    out += '{';
    append_bytes(out, "key", c.key);
    const bool created = c.target == Compare::Target::create_revision;
    out += created ? ",\"target\":\"CREATE\"," : ",\"target\":\"MOD\",";
    out += "\"result\":\"EQUAL\",";
    append_int_field(out, created ? "create_revision" : "mod_revision", c.revision);
    out += '}';
  }
  out += "],";
  append_ops(out, "success", success);
  out += ',';
  append_ops(out, "failure", failure);
  out += '}';
  return out;
}

std::string lease_grant_body(std::int64_t ttl_seconds) {
  std::string out = "{";
  append_int_field(out, "TTL", ttl_seconds);
  out += '}';
  return out;
}

std::string lease_id_body(LeaseId id) {
  std::string out = "{";
  append_int_field(out, "ID", id);
  out += '}';
  return out;
}

tl::expected<RangeResult, std::string> parse_range(std::string_view json) {
  rapidjson::Document doc;
  auto answer = parse_object(doc, json);
  if (!answer) return tl::unexpected(answer.error());
  RangeResult result;
  auto revision = header_revision(**answer);
  if (!revision) return tl::unexpected(revision.error());
  auto list = kvs(**answer);
  if (!list) return tl::unexpected(list.error());
  result.revision = *revision;
  result.kvs = std::move(*list);
  return result;
}

tl::expected<TxnResult, std::string> parse_txn(std::string_view json) {
  rapidjson::Document doc;
  auto answer = parse_object(doc, json);
  if (!answer) return tl::unexpected(answer.error());
  TxnResult result;
  auto revision = header_revision(**answer);
  if (!revision) return tl::unexpected(revision.error());
  result.revision = *revision;
  if (const Value* ok = member(**answer, "succeeded"); ok && !ok->IsNull()) {
    if (!ok->IsBool()) return tl::unexpected(std::string("etcd's \"succeeded\" is no bool"));
    result.succeeded = ok->GetBool();
  }
  const Value* responses = member(**answer, "responses");
  if (!responses || responses->IsNull()) return result;
  if (!responses->IsArray()) return tl::unexpected(std::string("etcd's responses is no array"));
  for (const Value& r : responses->GetArray()) {
    const Value* range = member(r, "response_range");
    if (!range) continue;
    auto list = kvs(*range);
    if (!list) return tl::unexpected(list.error());
    result.ranges.push_back(RangeResult{result.revision, std::move(*list)});
  }
  return result;
}

tl::expected<LeaseId, std::string> parse_lease_grant(std::string_view json) {
  rapidjson::Document doc;
  auto answer = parse_object(doc, json);
  if (!answer) return tl::unexpected(answer.error());
  if (const Value* error = member(**answer, "error");
      error && error->IsString() && error->GetStringLength() > 0) {
    return tl::unexpected("etcd refused a lease: " + std::string(error->GetString()));
  }
  auto id = int_field(**answer, "ID");
  if (!id) return tl::unexpected(id.error());
  if (*id == 0) return tl::unexpected(std::string("etcd granted no lease"));
  return *id;
}

tl::expected<std::int64_t, std::string> parse_lease_keepalive(std::string_view json) {
  rapidjson::Document doc;
  auto answer = parse_object(doc, json);
  if (!answer) return tl::unexpected(answer.error());
  // The gateway streams keep-alive answers, each wrapped in "result".
  const Value* result = member(**answer, "result");
  if (!result || !result->IsObject()) {
    return tl::unexpected(std::string("etcd's keep-alive answer has no result"));
  }
  return int_field(*result, "TTL");
}

tl::expected<std::int64_t, std::string> parse_revision(std::string_view json) {
  rapidjson::Document doc;
  auto answer = parse_object(doc, json);
  if (!answer) return tl::unexpected(answer.error());
  return header_revision(**answer);
}

std::optional<std::string> parse_error(std::string_view json) {
  rapidjson::Document doc;
  auto answer = parse_object(doc, json);
  if (!answer) return std::nullopt;
  for (const char* name : {"message", "error"}) {
    const Value* text = member(**answer, name);
    if (text && text->IsString() && text->GetStringLength() > 0) return text->GetString();
  }
  return std::nullopt;
}

}  // namespace nsq::nsqd::cluster::etcd
