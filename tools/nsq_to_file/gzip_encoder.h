#pragma once

#include <zlib.h>

#include <memory>
#include <string>
#include <string_view>

namespace nsq::to_file {

// Compresses into a sequence of gzip members (RFC 1952 allows a file to be
// their concatenation): nsq_to_file ends a member at every sync so that the
// file up to the last sync is complete, checksummed gzip. Header as Go's
// gzip.Writer writes it: no name, mtime 0, OS 255 (unknown).
//
// @par Thread Safety: none; one owner.
class GzipEncoder {
 public:
  // level: 1 (fastest) .. 9 (smallest).
  explicit GzipEncoder(int level);
  ~GzipEncoder();
  GzipEncoder(const GzipEncoder&) = delete;
  GzipEncoder& operator=(const GzipEncoder&) = delete;

  // Compresses data, appending whatever output is ready to *out.
  void write(std::string_view data, std::string* out);
  // Ends the current member (rest of the data, CRC and size trailer) into
  // *out; the next write starts a new member. Ending a member that got no
  // input still writes a valid empty member.
  void finish_member(std::string* out);
  // True if the current member got input since it began.
  bool member_has_input() const { return member_has_input_; }

 private:
  void run(int flush, std::string* out);
  void start_member();

  z_stream stream_{};
  gz_header header_{};  // must outlive the deflate calls writing it
  bool member_has_input_ = false;
};

}  // namespace nsq::to_file
