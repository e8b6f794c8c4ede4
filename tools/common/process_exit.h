#pragma once

// Go's os.Exit: end the process now, running nothing else. Client threads
// may still be running, so C++ static destructors (std::exit) would race
// with them; stdio buffers are flushed first.
namespace nsq::tools {

[[noreturn]] void exit_now(int code);

}  // namespace nsq::tools
