#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

// One record of a topic's replica log (docs/replication.md), as stored in its
// segments and sent from a leader to its followers, byte for byte:
//   [u32 size of the rest][u32 crc32c of the rest][u32 epoch][i64 defer-until ms][message]
// big-endian, where the message is as a disk queue stores it (timestamp,
// attempts, id, body). No I/O here.
namespace nsq::nsqd::cluster {

struct LogRecord {
  std::uint32_t epoch = 0;          // the leader epoch that wrote it
  std::int64_t defer_until_ms = 0;  // Unix ms before which it is not delivered; 0: at once
  std::string message;

  bool operator==(const LogRecord&) const = default;
};

// size + crc32c + epoch + defer-until.
inline constexpr std::size_t kLogRecordHeader = 4 + 4 + 4 + 8;

// Appends `record`, framed.
void append_record(std::string& out, const LogRecord& record);

// The whole records at the start of `bytes`.
struct ParsedRecords {
  std::vector<LogRecord> records;
  std::size_t consumed = 0;  // bytes of the whole, valid records
  // A record that is whole but fails its checksum or is too small or larger
  // than `max_size`: what follows `consumed` cannot be trusted.
  bool corrupt = false;
};
// `max_size`: the largest record (header included) that may exist.
ParsedRecords parse_records(std::string_view bytes, std::size_t max_size);

// The byte length of the whole, valid records at the start of `bytes`,
// without copying them out; `corrupt` as above.
struct ScannedRecords {
  std::size_t consumed = 0;
  std::size_t count = 0;
  bool corrupt = false;
};
ScannedRecords scan_records(std::string_view bytes, std::size_t max_size);

}  // namespace nsq::nsqd::cluster
