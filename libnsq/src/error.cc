#include "nsq/error.h"

#include <string>

namespace nsq {
namespace {

class ErrorCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "nsq"; }

  std::string message(int ev) const override {
    switch (static_cast<errc>(ev)) {
      case errc::bad_frame:
        return "frame size smaller than its type field";
      case errc::frame_too_big:
        return "frame size above the limit";
      case errc::invalid_message:
        return "message shorter than its 26-byte header";
      case errc::bad_json:
        return "failed to decode JSON";
      case errc::id_clock_backwards:
        return "time has gone backwards";
      case errc::id_sequence_exhausted:
        return "sequence expired";
      case errc::id_not_increasing:
        return "ID went backward";
    }
    return "unknown nsq error";
  }
};

}  // namespace

const std::error_category& error_category() noexcept {
  static const ErrorCategory category;
  return category;
}

}  // namespace nsq
