#include "nsq/codec/errc.h"

#include <string>

namespace nsq::codec {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "nsq.codec"; }

  std::string message(int ev) const override {
    switch (static_cast<errc>(ev)) {
      case errc::missing_stream_identifier:
        return "snappy: stream does not start with the stream identifier";
      case errc::bad_stream_identifier:
        return "snappy: bad stream identifier";
      case errc::bad_checksum:
        return "snappy: corrupt input (checksum mismatch)";
      case errc::corrupt_chunk:
        return "snappy: corrupt input";
      case errc::chunk_too_large:
        return "snappy: chunk too large";
      case errc::reserved_chunk:
        return "snappy: unsupported (reserved unskippable) chunk";
      case errc::corrupt_deflate:
        return "flate: corrupt input";
      case errc::deflate_ended:
        return "flate: data after the final block";
    }
    return "unknown codec error";
  }
};

}  // namespace

const std::error_category& error_category() noexcept {
  static const Category category;
  return category;
}

}  // namespace nsq::codec
