#include "cluster/replication_wire.h"

#include "cluster/binary_io.h"

namespace nsq::nsqd::cluster::wire {
using binary::put16;
using binary::put32;
using binary::put64;
using binary::put_str;
using binary::Reader;

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
    put64(out, t.durable);
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
    t.durable = r.u64();
    if (t.durable > t.offset) r.fail();
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
