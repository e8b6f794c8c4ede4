#pragma once

namespace nsq {

// Go programs (nsqd and nsqlookupd v1.3.0 among them, built with Go >= 1.19)
// raise their soft RLIMIT_NOFILE to the hard limit at start. Ours do the
// same, or under the usual soft limit of 1024 a drop-in server refuses
// clients past about 1,000 connections. Best effort: failures are ignored,
// as in Go.
void raise_open_file_limit() noexcept;

}  // namespace nsq
