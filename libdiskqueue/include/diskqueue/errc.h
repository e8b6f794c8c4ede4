#pragma once

#include <system_error>

namespace nsq::diskqueue {

// Failures a DiskQueue reports itself; I/O failures carry the errno value in
// std::generic_category() instead.
enum class errc {
  exiting = 1,       // the queue was closed or deleted
  invalid_size,      // record shorter than min_msg_size or longer than max_msg_size
  not_a_directory,   // Options::data_path does not name a directory
  corrupt_metadata,  // the meta file could not be parsed
  invalid_token,     // commit_read() got a token this queue never handed out
  busy,              // try_put_batch() cannot write without waiting
};

const std::error_category& error_category() noexcept;

inline std::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), error_category()};
}

}  // namespace nsq::diskqueue

template <>
struct std::is_error_code_enum<nsq::diskqueue::errc> : std::true_type {};
