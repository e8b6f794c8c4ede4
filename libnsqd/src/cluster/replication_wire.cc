#include "cluster/replication_wire.h"

#include "nsq/endian.h"

namespace nsq::nsqd::cluster::wire {
namespace {

void put16(std::string& out, std::uint16_t v) {
  char b[2];
  put_u16be(b, v);
  out.append(b, 2);
}
void put32(std::string& out, std::uint32_t v) {
  char b[4];
  put_u32be(b, v);
  out.append(b, 4);
}
void put64(std::string& out, std::uint64_t v) {
  char b[8];
  put_u64be(b, v);
  out.append(b, 8);
}
void put_str(std::string& out, std::string_view s) {
  put16(out, static_cast<std::uint16_t>(s.size()));
  out.append(s);
}

// Reads fields off the front of a body; any short read marks it failed.
class Reader {
 public:
  explicit Reader(std::string_view body) : rest_(body) {}
  bool ok() const { return ok_; }
  bool done() const { return rest_.empty(); }

  std::string_view take(std::size_t n) {
    if (!ok_ || rest_.size() < n) {
      ok_ = false;
      return {};
    }
    std::string_view out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return out;
  }
  std::uint8_t u8() {
    auto b = take(1);
    return ok_ ? static_cast<std::uint8_t>(b[0]) : 0;
  }
  std::uint16_t u16() {
    auto b = take(2);
    return ok_ ? get_u16be(b.data()) : 0;
  }
  std::uint32_t u32() {
    auto b = take(4);
    return ok_ ? get_u32be(b.data()) : 0;
  }
  std::uint64_t u64() {
    auto b = take(8);
    return ok_ ? get_u64be(b.data()) : 0;
  }
  std::string str() { return std::string(take(u16())); }

 private:
  std::string_view rest_;
  bool ok_ = true;
};

}  // namespace

std::string encode(const FetchRequest& request) {
  std::string out;
  put32(out, request.wait_ms);
  put32(out, request.max_bytes);
  put_str(out, request.node);
  put16(out, static_cast<std::uint16_t>(request.topics.size()));
  for (const auto& t : request.topics) {
    put_str(out, t.topic);
    put32(out, t.epoch);
    put32(out, t.log_epoch);
    put64(out, t.offset);
  }
  return out;
}

std::string encode(const std::vector<FetchAnswer>& answers) {
  std::string out;
  put16(out, static_cast<std::uint16_t>(answers.size()));
  for (const auto& a : answers) {
    put_str(out, a.topic);
    out += static_cast<char>(a.status);
    put32(out, a.epoch);
    put64(out, a.value);
    put32(out, static_cast<std::uint32_t>(a.records.size()));
    out += a.records;
    put32(out, static_cast<std::uint32_t>(a.progress.size()));
    out += a.progress;
  }
  return out;
}

tl::expected<FetchRequest, std::string> decode_request(std::string_view body) {
  Reader r(body);
  FetchRequest request;
  request.wait_ms = r.u32();
  request.max_bytes = r.u32();
  request.node = r.str();
  const std::uint16_t n = r.u16();
  for (std::uint16_t i = 0; i < n && r.ok(); ++i) {
    FetchTopic& t = request.topics.emplace_back();
    t.topic = r.str();
    t.epoch = r.u32();
    t.log_epoch = r.u32();
    t.offset = r.u64();
  }
  if (!r.ok() || !r.done()) return tl::unexpected(std::string("malformed fetch request"));
  return request;
}

tl::expected<std::vector<FetchAnswer>, std::string> decode_answers(std::string_view body) {
  Reader r(body);
  std::vector<FetchAnswer> answers;
  const std::uint16_t n = r.u16();
  for (std::uint16_t i = 0; i < n && r.ok(); ++i) {
    FetchAnswer& a = answers.emplace_back();
    a.topic = r.str();
    const std::uint8_t status = r.u8();
    if (status > static_cast<std::uint8_t>(FetchStatus::restart)) {
      return tl::unexpected(std::string("fetch answer with an unknown status"));
    }
    a.status = static_cast<FetchStatus>(status);
    a.epoch = r.u32();
    a.value = r.u64();
    a.records = std::string(r.take(r.u32()));
    a.progress = std::string(r.take(r.u32()));
  }
  if (!r.ok() || !r.done()) return tl::unexpected(std::string("malformed fetch answer"));
  return answers;
}

}  // namespace nsq::nsqd::cluster::wire
