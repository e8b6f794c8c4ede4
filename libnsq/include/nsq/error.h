#pragma once

#include <system_error>
#include <type_traits>

namespace nsq {

// Expected failures of the wire-format layer. Protocol replies (E_* codes)
// are a separate concern: see protocol_error.h.
enum class errc {
  bad_frame = 1,          // frame size < 4
  frame_too_big,          // frame size above the decoder's limit
  invalid_message,        // message data shorter than the 26-byte header
  bad_json,               // not JSON, wrong field type, fraction for an int field
  id_clock_backwards,     // the clock went back since the previous id
  id_sequence_exhausted,  // 4096 ids already made in this pseudo-millisecond
  id_not_increasing,      // new id <= previous id
};

const std::error_category& error_category() noexcept;

inline std::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), error_category()};
}

}  // namespace nsq

template <>
struct std::is_error_code_enum<nsq::errc> : std::true_type {};
