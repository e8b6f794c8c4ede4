#pragma once

#include <zlib.h>

#include <optional>
#include <string>
#include <string_view>

namespace nsq::testutil {

// Decompresses a concatenation of gzip members (what nsq_to_file writes);
// nullopt if any member is corrupt or the data ends inside one.
inline std::optional<std::string> gunzip_members(std::string_view data) {
  std::string out;
  z_stream s{};
  if (inflateInit2(&s, 15 + 16) != Z_OK) return std::nullopt;
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  s.avail_in = static_cast<uInt>(data.size());
  bool in_member = false;
  while (s.avail_in > 0) {
    unsigned char chunk[16384];
    s.next_out = chunk;
    s.avail_out = sizeof chunk;
    int rc = inflate(&s, Z_NO_FLUSH);
    out.append(reinterpret_cast<char*>(chunk), sizeof chunk - s.avail_out);
    in_member = true;
    if (rc == Z_STREAM_END) {
      in_member = false;
      inflateReset(&s);
    } else if (rc != Z_OK) {
      inflateEnd(&s);
      return std::nullopt;
    }
  }
  inflateEnd(&s);
  if (in_member) return std::nullopt;
  return out;
}

// How many gzip members the data holds (0 if it is not clean gzip).
inline int gzip_member_count(std::string_view data) {
  int members = 0;
  z_stream s{};
  if (inflateInit2(&s, 15 + 16) != Z_OK) return 0;
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  s.avail_in = static_cast<uInt>(data.size());
  while (s.avail_in > 0) {
    unsigned char chunk[16384];
    s.next_out = chunk;
    s.avail_out = sizeof chunk;
    int rc = inflate(&s, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      ++members;
      inflateReset(&s);
    } else if (rc != Z_OK) {
      members = 0;
      break;
    }
  }
  inflateEnd(&s);
  return members;
}

}  // namespace nsq::testutil
