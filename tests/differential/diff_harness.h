#pragma once

// Differential tests (issue 17): the same bytes sent to Go NSQ v1.3.0's
// reference binaries and to ours, what comes back compared after the parts
// that legitimately differ (message ids, timestamps, ports) are normalised.
// Without the reference binaries (../shared/reference, unpacked by CMake, or
// $NSQ_REFERENCE_DIR) every test skips and says so.

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "testutil/nsqd_process.h"
#include "testutil/temp_dir.h"

namespace nsq::differential {

using ms = std::chrono::milliseconds;

// One broker of a pair: Go's or ours, on its own ephemeral ports and data path.
struct Broker {
  std::string name;  // "go" or "ours"
  testutil::TempDir data;
  testutil::NsqdProcess process;
  int tcp_port() const { return process.tcp_port(); }
  int http_port() const { return process.http_port(); }
};

// What one TCP conversation produced: each frame as a line ("response OK",
// "error E_INVALID ...", "message attempts=1 body=..." with id and timestamp
// left out), then how it ended: "<closed>", "<open>" (still open after the
// quiet period), or "<partial N bytes>" when a frame was cut short.
std::string transcript(std::string_view received, bool closed);

// What came back for bytes sent on one connection.
struct Exchange {
  std::string received;
  bool closed = false;  // the peer closed (else it went quiet)
};

// Sends `bytes` to 127.0.0.1:port (then half-closes the write side if
// `half_close`) while reading, until the peer closes or nothing arrives for
// `quiet` (50 ms once everything is sent and `complete(received)` says the
// answer is whole).
Exchange exchange(int port, std::string_view bytes, bool half_close, ms quiet,
                  const std::function<bool(std::string_view)>& complete = {});

// The transcript of exchange(port, bytes, half_close, quiet).
// (A quiet period long enough for a loaded CI machine to answer in.)
std::string converse(int port, std::string_view bytes, bool half_close = false, ms quiet = ms(600));

// The fixture: starts Go's nsqd and ours with the same flags.
class DifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override;
  // Stops both brokers before anything a derived fixture owns (an nsqlookupd
  // they register with) goes away: a broker outliving its lookupd would
  // register with whatever process gets that port next, another test's.
  void TearDown() override;
  // Starts (or restarts) both with `flags` (added to the ephemeral ports and
  // the data path); false (with a test failure) if either did not start.
  bool start_both(const std::vector<std::string>& flags = {}) { return start_each(flags, flags); }
  // The same with flags of each its own (e.g. each with its own nsqlookupd).
  bool start_each(const std::vector<std::string>& go_flags,
                  const std::vector<std::string>& our_flags);
  Broker& go() { return *go_; }
  Broker& ours() { return *ours_; }

  // The same conversation with each; EXPECT_EQ on the transcripts.
  void expect_same_conversation(std::string_view bytes, bool half_close = false,
                                ms quiet = ms(600));

 private:
  std::string go_binary_;
  std::unique_ptr<Broker> go_, ours_;
};

// Big-endian 32-bit length prefix, as the protocol writes sizes.
std::string be32(std::uint32_t v);
// `data` with non-printable bytes as \xNN, for messages.
std::string printable(std::string_view data);

}  // namespace nsq::differential
