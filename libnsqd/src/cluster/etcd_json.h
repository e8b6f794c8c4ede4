#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

// etcd v3's JSON gateway without I/O: the bodies of the requests nsqd sends
// (`/v3/kv/range|put|txn|deleterange`, `/v3/lease/grant|keepalive|revoke`)
// and the parse of their answers. Keys and values travel base64-encoded;
// int64 fields come back as strings and are left out when zero (proto3's
// JSON mapping), which the parse accepts in both forms.
namespace nsq::nsqd::cluster::etcd {

using LeaseId = std::int64_t;

struct KeyValue {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  LeaseId lease = 0;
};

// A range: one key, or every key starting with `key` when `prefix`.
struct Range {
  std::string key;
  bool prefix = false;
};

struct RangeResult {
  std::int64_t revision = 0;  // the store's revision when read
  std::vector<KeyValue> kvs;
};

// One condition of a transaction on a key's create or mod revision
// (create_revision 0: the key does not exist).
struct Compare {
  enum class Target { create_revision, mod_revision };
  std::string key;
  Target target = Target::mod_revision;
  std::int64_t revision = 0;  // compared for equality
};

// One operation of a transaction.
struct Op {
  enum class Kind { put, range, remove };
  Kind kind = Kind::put;
  std::string key;
  std::string value;    // put
  LeaseId lease = 0;    // put: 0 is none
  bool prefix = false;  // range, remove
};

struct TxnResult {
  bool succeeded = false;
  std::int64_t revision = 0;
  std::vector<RangeResult> ranges;  // one per range op of the branch that ran, in order
};

std::string range_body(const Range& range);
std::string put_body(std::string_view key, std::string_view value, LeaseId lease);
std::string remove_body(const Range& range);
std::string txn_body(const std::vector<Compare>& compare, const std::vector<Op>& success,
                     const std::vector<Op>& failure);
std::string lease_grant_body(std::int64_t ttl_seconds);
std::string lease_id_body(LeaseId id);  // keepalive and revoke

// The parses: an error names what was wrong with the answer.
tl::expected<RangeResult, std::string> parse_range(std::string_view json);
tl::expected<TxnResult, std::string> parse_txn(std::string_view json);
// The lease's id.
tl::expected<LeaseId, std::string> parse_lease_grant(std::string_view json);
// The lease's remaining TTL in seconds: 0 when etcd no longer knows it.
tl::expected<std::int64_t, std::string> parse_lease_keepalive(std::string_view json);
// Any answer that only has to be well-formed JSON with a header (put, remove,
// revoke).
tl::expected<std::int64_t, std::string> parse_revision(std::string_view json);
// The text of an error answer ({"error": ..., "message": ...}), or nullopt.
std::optional<std::string> parse_error(std::string_view json);

// The end of a prefix range: the prefix with its last byte that is not 0xff
// incremented (etcd's range_end), "\0" for an empty prefix (every key).
std::string prefix_end(std::string_view prefix);

}  // namespace nsq::nsqd::cluster::etcd
