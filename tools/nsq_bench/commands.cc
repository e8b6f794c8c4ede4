#include "commands.h"

#include <cassert>
#include <charconv>

#include "nsq/endian.h"
#include "nsq/json/writer.h"
#include "nsq/mpub.h"

namespace nsq::bench {
PublishBatch::PublishBatch(std::string_view topic, int count, int size)
    : count_(count), size_(size) {
  assert(count >= 1 && size >= 1);
  const std::string body(static_cast<std::size_t>(size), 'a');
  if (count == 1) {
    bytes_ = "PUB ";
    bytes_ += topic;
    bytes_ += '\n';
    append_u32be(bytes_, static_cast<uint32_t>(size));
    body_offsets_.push_back(bytes_.size());
    bytes_ += body;
    return;
  }
  bytes_ = "MPUB ";
  bytes_ += topic;
  bytes_ += '\n';
  std::string mpub;
  append_mpub_body(mpub, std::vector<std::string_view>(static_cast<std::size_t>(count), body));
  append_u32be(bytes_, static_cast<uint32_t>(mpub.size()));
  // After the size and the count, each message is [size][body].
  std::size_t offset = bytes_.size() + 4;
  for (int i = 0; i < count; ++i) {
    body_offsets_.push_back(offset + 4);
    offset += 4 + static_cast<std::size_t>(size);
  }
  bytes_ += mpub;
}

void PublishBatch::stamp(int64_t realtime_ns) {
  assert(static_cast<std::size_t>(size_) >= kStampSize);
  for (const std::size_t off : body_offsets_)
    put_u64be(bytes_.data() + off, static_cast<uint64_t>(realtime_ns));
}

std::string identify_json(const IdentifySettings& s) {
  std::string out = "{\"client_id\":";
  json::append_string(out, s.client_id);
  out += ",\"hostname\":";
  json::append_string(out, s.hostname);
  out += ",\"user_agent\":";
  json::append_string(out, s.user_agent);
  out += ",\"feature_negotiation\":";
  out += s.feature_negotiation ? "true" : "false";
  if (s.output_buffer_size != 0)
    out += ",\"output_buffer_size\":" + std::to_string(s.output_buffer_size);
  if (s.output_buffer_timeout_ms != 0) {
    out += ",\"output_buffer_timeout\":" + std::to_string(s.output_buffer_timeout_ms);
  }
  if (s.tls_v1) out += ",\"tls_v1\":true";
  if (s.snappy) out += ",\"snappy\":true";
  if (s.deflate) {
    out += ",\"deflate\":true";
    if (s.deflate_level > 0) out += ",\"deflate_level\":" + std::to_string(s.deflate_level);
  }
  out += '}';
  return out;
}

std::string identify_command(std::string_view json) {
  std::string out = "IDENTIFY\n";
  append_u32be(out, static_cast<uint32_t>(json.size()));
  out += json;
  return out;
}

std::string sub_command(std::string_view topic, std::string_view channel) {
  std::string out = "SUB ";
  out += topic;
  out += ' ';
  out += channel;
  out += '\n';
  return out;
}

std::string rdy_command(int64_t count) { return "RDY " + std::to_string(count) + "\n"; }

void append_fin(std::string& out, std::string_view id) {
  out += "FIN ";
  out += id;
  out += '\n';
}

std::optional<int64_t> json_int_field(std::string_view json, std::string_view key) {
  std::string needle = "\"";
  needle += key;
  needle += "\":";
  const std::size_t at = json.find(needle);
  if (at == std::string_view::npos) return std::nullopt;
  const char* first = json.data() + at + needle.size();
  const char* last = json.data() + json.size();
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  // A fraction or exponent means it was not an integer.
  if (ec != std::errc() || (ptr != last && (*ptr == '.' || *ptr == 'e' || *ptr == 'E')))
    return std::nullopt;
  return v;
}

}  // namespace nsq::bench
