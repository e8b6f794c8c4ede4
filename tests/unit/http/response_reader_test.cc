// detail::read_response (src/http/response_reader.cc): the HTTP client's
// response reading without sockets; http_client_test covers it over loopback.
#include "http/response_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace nsq::http::detail {
namespace {

using Status = ReadStep::Status;

ReadStep read(std::string_view raw, bool eof = false, bool head = false) {
  return read_response(raw, eof, head, 1024, "h:1");
}

TEST(ResponseReaderTest, ContentLength) {
  const std::string raw = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Y: z\r\n\r\nhello";
  EXPECT_EQ(read(raw.substr(0, raw.size() - 1)).status, Status::need_more);
  ReadStep step = read(raw + "extra");
  ASSERT_EQ(step.status, Status::done);
  EXPECT_EQ(step.response.status, 200);
  EXPECT_EQ(step.response.body, "hello");
  EXPECT_EQ(step.response.headers[1], (std::pair<std::string, std::string>{"x-y", "z"}));
  EXPECT_EQ(read(raw.substr(0, raw.size() - 1), true).error, "read h:1: unexpected EOF");
}

TEST(ResponseReaderTest, Chunked) {
  const std::string raw =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n1\r\n!\r\n0\r\n\r\n";
  ReadStep step = read(raw);
  ASSERT_EQ(step.status, Status::done);
  EXPECT_EQ(step.response.body, "hello!");
  EXPECT_EQ(read(raw.substr(0, raw.size() - 2)).status, Status::need_more);
  EXPECT_EQ(read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n").status,
            Status::error);
}

TEST(ResponseReaderTest, ChunkSizeNear2To64WaitsInsteadOfWrapping) {
  // Found by fuzz_http_response: pos + size + 2 wrapped, the chunk "fit", and
  // every such line appended the rest of the buffer again (quadratic memory).
  std::string raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 8; ++i) raw += "fffffffffffffffe\r\n";
  raw += "0\r\n\r\n";
  EXPECT_EQ(read(raw).status, Status::need_more);
  EXPECT_EQ(read(raw, true).status, Status::error);
}

TEST(ResponseReaderTest, CloseDelimitedAndBodiless) {
  ReadStep step = read("HTTP/1.0 200 OK\r\n\r\nall of it", true);
  ASSERT_EQ(step.status, Status::done);
  EXPECT_EQ(step.response.body, "all of it");
  EXPECT_EQ(read("HTTP/1.0 200 OK\r\n\r\nsome").status, Status::need_more);
  EXPECT_EQ(read("HTTP/1.1 204 No Content\r\n\r\n").status, Status::done);
  EXPECT_EQ(read("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", false, true).status, Status::done);
}

TEST(ResponseReaderTest, Errors) {
  EXPECT_EQ(read("HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n").error,
            "response from h:1 too large");
  EXPECT_EQ(read("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n").error,
            "malformed HTTP response from h:1");
  EXPECT_EQ(read("SSH-2.0\r\n\r\n").error, "malformed HTTP response from h:1");
  EXPECT_EQ(read("HTTP/1.1 200 OK\r\n", true).error, "malformed HTTP response from h:1");
  EXPECT_EQ(read(std::string(1024 + 64 * 1024 + 1, 'x')).error, "response from h:1 too large");
}

TEST(ResponseReaderTest, ParseNumber) {
  EXPECT_EQ(parse_number(" 42\t", 10), 42u);
  EXPECT_EQ(parse_number("ff", 16), 255u);
  EXPECT_EQ(parse_number("", 10), std::nullopt);
  EXPECT_EQ(parse_number("1x", 10), std::nullopt);
  EXPECT_EQ(parse_number("18446744073709551616", 10), std::nullopt);
}

}  // namespace
}  // namespace nsq::http::detail
