#pragma once

#include <system_error>
#include <type_traits>

namespace nsq::codec {

// Why a compressed stream could not be decoded. Every one of them is sticky:
// a decoder that reported one keeps reporting it (the stream is lost).
enum class errc {
  missing_stream_identifier = 1,  // snappy: a data chunk before the stream identifier
  bad_stream_identifier,          // snappy: identifier chunk with the wrong length or magic
  bad_checksum,                   // snappy: masked CRC-32C does not match the data
  corrupt_chunk,                  // snappy: a block that does not decompress, or a short chunk
  chunk_too_large,                // snappy: more than 65536 bytes of data in one chunk
  reserved_chunk,                 // snappy: an unskippable chunk type of a later format version
  corrupt_deflate,                // deflate: zlib rejected the stream
  deflate_ended,                  // deflate: data after the final block
};

const std::error_category& error_category() noexcept;

inline std::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), error_category()};
}

}  // namespace nsq::codec

template <>
struct std::is_error_code_enum<nsq::codec::errc> : std::true_type {};
