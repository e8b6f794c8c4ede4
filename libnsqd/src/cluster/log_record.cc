#include "cluster/log_record.h"

#include "nsq/codec/crc32c.h"
#include "nsq/endian.h"

namespace nsq::nsqd::cluster {
namespace {

// The record at bytes[at, ...): its total length, 0 when it is not whole
// yet, -1 when it is corrupt.
std::int64_t record_at(std::string_view bytes, std::size_t at, std::size_t max_size) {
  if (bytes.size() - at < 8) return 0;
  const std::size_t rest = get_u32be(bytes.data() + at);
  const std::size_t total = rest + 8;
  if (total < kLogRecordHeader || total > max_size) return -1;
  if (bytes.size() - at < total) return 0;
  const std::uint32_t crc = get_u32be(bytes.data() + at + 4);
  if (codec::crc32c(bytes.substr(at + 8, rest)) != crc) return -1;
  return static_cast<std::int64_t>(total);
}

}  // namespace

void append_record(std::string& out, const LogRecord& record) {
  const std::size_t at = out.size();
  out.resize(at + kLogRecordHeader);
  char* p = out.data() + at;
  put_u32be(p, static_cast<std::uint32_t>(kLogRecordHeader - 8 + record.message.size()));
  put_u32be(p + 8, record.epoch);
  put_u64be(p + 12, static_cast<std::uint64_t>(record.defer_until_ms));
  out += record.message;
  put_u32be(out.data() + at + 4, codec::crc32c(std::string_view(out).substr(at + 8)));
}

ScannedRecords scan_records(std::string_view bytes, std::size_t max_size) {
  ScannedRecords out;
  while (out.consumed < bytes.size()) {
    const std::int64_t n = record_at(bytes, out.consumed, max_size);
    if (n <= 0) {
      out.corrupt = n < 0;
      break;
    }
    out.consumed += static_cast<std::size_t>(n);
    ++out.count;
  }
  return out;
}

ParsedRecords parse_records(std::string_view bytes, std::size_t max_size) {
  ParsedRecords out;
  const ScannedRecords scanned = scan_records(bytes, max_size);
  out.consumed = scanned.consumed;
  out.corrupt = scanned.corrupt;
  out.records.reserve(scanned.count);
  for (std::size_t at = 0; at < scanned.consumed;) {
    const std::size_t total = get_u32be(bytes.data() + at) + 8;
    LogRecord& r = out.records.emplace_back();
    r.epoch = get_u32be(bytes.data() + at + 8);
    r.defer_until_ms = static_cast<std::int64_t>(get_u64be(bytes.data() + at + 12));
    r.message.assign(bytes.substr(at + kLogRecordHeader, total - kLogRecordHeader));
    at += total;
  }
  return out;
}

}  // namespace nsq::nsqd::cluster
