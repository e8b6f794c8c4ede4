#pragma once

#include <system_error>

#include <tl/expected.hpp>

namespace nsq {

// The return type of every fallible libnsq call: a value or an error_code
// (std::expected once the toolchain has it).
template <class T>
using Result = tl::expected<T, std::error_code>;

}  // namespace nsq
