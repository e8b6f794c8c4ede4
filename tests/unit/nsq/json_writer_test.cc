#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "nsq/json/writer.h"

namespace nsq::json {
namespace {

using namespace std::string_literals;

// The expected texts are what Go nsqd v1.3.0 (Go 1.19.8) answered for
// GET /info with the input as --broadcast-address, and for
// GET /config/e2e_processing_latency_percentiles.

TEST(JsonWriterTest, QuotesAsGo119) {
  EXPECT_EQ(quote("a<b>&c\"\\\x08\x0c\x01\x7f\xff\xe2\x80\xa8\xe2\x80\xa9\xc3\xa9\ttab"),
            R"("a\u003cb\u003e\u0026c\"\\\u0008\u000c\u0001)"
            "\x7f"
            R"(\ufffd\u2028\u2029)"
            "\xc3\xa9"
            R"(\ttab")");
  EXPECT_EQ(quote("x\ny\rz\x1f<"), R"("x\ny\rz\u001f\u003c")");
  EXPECT_EQ(quote("\0"s), R"("\u0000")");
  EXPECT_EQ(quote(""), R"("")");
  EXPECT_EQ(quote("plain ascii, no escapes ~"), R"("plain ascii, no escapes ~")");
}

TEST(JsonWriterTest, EachInvalidUtf8ByteIsOneReplacement) {
  std::string twelve;
  for (int i = 0; i < 12; ++i) twelve += R"(\ufffd)";
  EXPECT_EQ(quote("a\x7f\xff\xc0\x80\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82\xf0\x9f\x98\x80"
                  "\xf4\x8f\xbf\xbf\xc3"
                  "b"),
            "\"a\x7f" + twelve + "\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf" + R"(\ufffdb")");
}

TEST(JsonWriterTest, AppendsAfterWhatIsThere) {
  std::string out = "{";
  append_key(out, "k<");
  append_string(out, "v");
  out += ',';
  append_key(out, "n");
  append_int(out, std::numeric_limits<std::int64_t>::min());
  out += ',';
  append_key(out, "u");
  append_int(out, std::numeric_limits<std::uint64_t>::max());
  out += ',';
  append_key(out, "b");
  append_bool(out, false);
  out += '}';
  EXPECT_EQ(out, R"({"k\u003c":"v","n":-9223372036854775808,"u":18446744073709551615,"b":false})");
}

std::string float_text(double v) {
  std::string out;
  append_float(out, v);
  return out;
}

TEST(JsonWriterTest, FloatsAsGo) {
  EXPECT_EQ(float_text(1), "1");
  EXPECT_EQ(float_text(0.123456789012345678), "0.12345678901234568");
  EXPECT_EQ(float_text(0.000001), "0.000001");
  EXPECT_EQ(float_text(0.0000001), "1e-7");
  // Go's floatEncoder: 'f' between 1e-6 and 1e21, else 'e' with e-0X cut to e-X.
  EXPECT_EQ(float_text(0), "0");
  EXPECT_EQ(float_text(-0.0), "-0");
  EXPECT_EQ(float_text(1.5), "1.5");
  EXPECT_EQ(float_text(-2.5e-7), "-2.5e-7");
  EXPECT_EQ(float_text(1e-10), "1e-10");
  EXPECT_EQ(float_text(1.5e-300), "1.5e-300");
  EXPECT_EQ(float_text(1e20), "100000000000000000000");
  EXPECT_EQ(float_text(1e21), "1e+21");
  EXPECT_EQ(float_text(123456.789), "123456.789");
  EXPECT_EQ(float_text(std::numeric_limits<double>::infinity()), "0");
  EXPECT_EQ(float_text(std::numeric_limits<double>::quiet_NaN()), "0");
}

}  // namespace
}  // namespace nsq::json
