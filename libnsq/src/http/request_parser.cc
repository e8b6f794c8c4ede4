#include "http/request_parser.h"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <algorithm>
#include <cctype>
#include <limits>
#include <vector>

#include "http/target.h"

namespace nsq::http::detail {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view sv(beast::string_view s) { return {s.data(), s.size()}; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Whether a request line Beast rejected as bad_version names a version other
// than 1.0/1.1 ("GET / HTTP/2.0"): the third word, after the method and target
// (neither holds a space), starts with HTTP/d.d. Only those 8 bytes decide, as
// for Beast, so the answer does not depend on how the bytes arrived.
bool other_http_version(std::string_view line) {
  for (int word = 0; word < 2; ++word) {
    auto space = line.find(' ');
    if (space == std::string_view::npos) return false;
    line.remove_prefix(space + 1);
  }
  if (line.size() < 8 || line.substr(0, 5) != "HTTP/" ||
      !std::isdigit(static_cast<unsigned char>(line[5])) || line[6] != '.' ||
      !std::isdigit(static_cast<unsigned char>(line[7]))) {
    return false;
  }
  return line.substr(5, 3) != "1.0" && line.substr(5, 3) != "1.1";
}

// Go's httpguts.ValidHostHeader: the bytes a Host header may hold.
bool valid_host(std::string_view host) {
  for (char ch : host) {
    auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) && c < 0x80) continue;
    if (std::string_view("!$%&'()*+,-.:;=[]_~").find(ch) != std::string_view::npos) continue;
    return false;
  }
  return true;
}

bool token_char(unsigned char c) {
  return c < 0x80 &&
         (std::isalnum(c) ||
          std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos);
}

// Why Go rejects a header Beast refused: "invalid header name", "invalid
// header value", or "" (a line without a colon, or a fault elsewhere: plain 400).
std::string header_fault(std::string_view bytes) {
  auto end = bytes.find("\r\n\r\n");
  if (end != std::string_view::npos) bytes = bytes.substr(0, end);
  auto eol = bytes.find("\r\n");
  if (eol == std::string_view::npos) return {};
  bytes.remove_prefix(eol + 2);  // the request line
  std::string fault;
  while (!bytes.empty()) {
    eol = bytes.find("\r\n");
    std::string_view line = bytes.substr(0, eol);
    bytes = eol == std::string_view::npos ? std::string_view{} : bytes.substr(eol + 2);
    auto colon = line.find(':');
    if (colon == std::string_view::npos) return {};
    if (!fault.empty()) continue;
    for (char c : line.substr(0, colon)) {
      if (!token_char(static_cast<unsigned char>(c))) fault = "invalid header name";
    }
    if (!fault.empty()) continue;
    for (char ch : line.substr(colon + 1)) {
      auto c = static_cast<unsigned char>(ch);
      if ((c < 0x20 && c != '\t') || c == 0x7f) fault = "invalid header value";
    }
  }
  return fault;
}

// A request's header as Go's textproto reads it, found line by line as bytes
// arrive (each byte looked at once) and rewritten for Beast, which takes only
// CRLF: lines may end in LF alone, and a field line with an empty name is
// skipped.
class HeaderScanner {
 public:
  enum class State { incomplete, complete, bad };

  // `bytes` starts with the request; each call offers at least what the
  // previous one did.
  State scan(std::string_view bytes) {
    for (;;) {
      auto nl = bytes.find('\n', pos_);
      std::string_view line = bytes.substr(pos_, nl == std::string_view::npos ? nl : nl - pos_);
      // A CR inside the request line: Go refuses the request once the line
      // ends; refused at once here. (Inside a field, it is Go's "invalid
      // header name/value", found once the header is complete.)
      auto cr = line.find('\r');
      if (lines_.empty() && cr != std::string_view::npos && cr + 1 < line.size()) {
        return State::bad;
      }
      if (nl == std::string_view::npos) return State::incomplete;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (lines_.empty()) {
        if (line.empty()) return State::bad;  // no request line
      } else if (line.empty()) {
        length_ = nl + 1;
        return State::complete;
      } else if (lines_.size() == 1 && (line.front() == ' ' || line.front() == '\t')) {
        return State::bad;  // "malformed MIME header initial line": plain 400
      }
      lines_.emplace_back(pos_, line.size());
      pos_ = nl + 1;
    }
  }

  // Bytes scanned so far (all of the header once complete).
  std::size_t scanned() const { return length_ ? length_ : pos_; }
  std::size_t length() const { return length_; }

  // After complete: the header with CRLF line ends, for Beast.
  std::string crlf(std::string_view bytes) const {
    std::string out;
    out.reserve(length_ + lines_.size() + 2);
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      std::string_view line = bytes.substr(lines_[i].first, lines_[i].second);
      if (i > 0 && line.front() == ':') continue;
      out.append(line).append("\r\n");
    }
    out.append("\r\n");
    return out;
  }

 private:
  std::vector<std::pair<std::size_t, std::size_t>> lines_;  // offset, length without line end
  std::size_t pos_ = 0;                                     // start of the first line not yet ended
  std::size_t length_ = 0;                                  // set once complete
};

}  // namespace

struct RequestParser::Impl {
  bhttp::request_parser<bhttp::string_body> parser;
  bool checked = false;       // header checks ran
  bool body_too_big = false;  // Beast stopped at the body limit
  int error_status = 0;
  std::string error_reason;
  Target target;
  std::function<std::size_t(const Request&)> body_limit_for;
  std::size_t max_body_size = 0;
  std::size_t max_header_size = 0;
  HeaderScanner header;

  // Go's checks on a complete header: returns 0 or the status to fail with
  // (error_reason set to Go's words where Go has them).
  int check_header() {
    const auto& msg = parser.get();
    unsigned version = msg.version();
    if (version < 10 || version >= 20) {
      error_reason = "unsupported protocol version";
      return 505;
    }
    auto parsed = parse_target(sv(msg.target()));
    if (!parsed) return 400;
    target = std::move(*parsed);
    std::size_t hosts = 0;
    std::string_view host;
    for (const auto& field : msg) {
      if (field.name() == bhttp::field::host) {
        ++hosts;
        host = sv(field.value());
      }
    }
    if (version >= 11 && hosts == 0) {
      error_reason = "missing required Host header";
      return 400;
    }
    if (hosts > 1) return 400;
    if (!valid_host(host)) {
      error_reason = "malformed Host header";
      return 400;
    }
    auto expect = msg.find(bhttp::field::expect);
    if (expect != msg.end() && !iequals(sv(expect->value()), "100-continue")) return 417;
    if (version >= 11) {
      // Go takes exactly one Transfer-Encoding, "chunked"; anything else is 501.
      std::size_t encodings = 0;
      bool chunked_only = true;
      for (const auto& field : msg) {
        if (field.name() != bhttp::field::transfer_encoding) continue;
        ++encodings;
        std::string_view v = sv(field.value());
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
        while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
        chunked_only = chunked_only && iequals(v, "chunked");
      }
      if (encodings > 1 || (encodings == 1 && !chunked_only)) return 501;
    }
    return 0;
  }

  // After check_header(): whether a per-request limit rejects the declared
  // Content-Length (the body is then not read).
  bool declared_too_big() {
    if (!body_limit_for) return false;
    Request head = make_request(false);
    std::size_t limit = std::min(max_body_size, body_limit_for(head));
    parser.body_limit(static_cast<std::uint64_t>(limit));
    auto length = parser.content_length();
    return length && *length > limit;
  }

  Request make_request(bool with_body);
};

RequestParser::RequestParser(const ParserLimits& limits) : impl_(std::make_unique<Impl>()) {
  impl_->body_limit_for = limits.body_limit_for;
  impl_->max_body_size = limits.max_body_size;
  impl_->max_header_size = limits.max_header_size;
  auto& p = impl_->parser;
  p.eager(false);  // stop after the header for check_header(); then eager for the body
  // The limit is checked on the input (HeaderScanner); Beast gets room
  // for the CR each bare LF gains.
  p.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(
      2 * limits.max_header_size + 2, std::numeric_limits<std::uint32_t>::max())));
  p.body_limit(static_cast<std::uint64_t>(limits.max_body_size));
}

RequestParser::~RequestParser() = default;

RequestParser::Step RequestParser::put(std::string_view bytes) {
  auto& im = *impl_;
  auto& p = im.parser;
  Step step;
  auto fail = [&](int status) {
    im.error_status = status;
    step.status = Status::error;
    return step;
  };
  // Beast stopped at the body limit (the fields are parsed even when
  // Content-Length alone was too big).
  auto body_too_big = [&] {
    if (!im.checked) {
      im.checked = true;
      if (int status = im.check_header()) return fail(status);
    }
    im.body_too_big = true;
    step.status = Status::done;
    return step;
  };
  for (;;) {
    if (p.is_header_done() && !im.checked) {
      im.checked = true;
      if (int status = im.check_header()) return fail(status);
      if (im.declared_too_big()) {
        im.body_too_big = true;
        step.status = Status::done;
        return step;
      }
      p.eager(true);
    }
    if (p.is_done()) {
      step.status = Status::done;
      return step;
    }
    if (step.consumed == bytes.size() && p.is_header_done()) return step;  // need more body
    if (!p.is_header_done()) {
      auto state = im.header.scan(bytes);
      if (state == HeaderScanner::State::bad) return fail(400);
      if (im.header.scanned() > im.max_header_size ||
          (state == HeaderScanner::State::incomplete && bytes.size() > im.max_header_size)) {
        return fail(431);
      }
      if (state == HeaderScanner::State::incomplete) return step;
      std::string crlf = im.header.crlf(bytes);
      beast::error_code ec;
      std::size_t n = p.put(boost::asio::const_buffer(crlf.data(), crlf.size()), ec);
      if (!ec && n == crlf.size() && p.is_header_done()) {
        step.consumed = im.header.length();
        continue;
      }
      if (ec == bhttp::error::body_limit) {
        step.consumed = im.header.length();
        return body_too_big();
      }
      if (ec == bhttp::error::bad_version) {
        // Beast takes only 1.0 and 1.1; Go answers a well-formed other version with 505.
        if (!other_http_version(crlf)) return fail(400);
        im.error_reason = "unsupported protocol version";
        return fail(505);
      }
      im.error_reason = header_fault(crlf);
      return fail(400);
    }
    beast::error_code ec;
    std::size_t n = p.put(
        boost::asio::const_buffer(bytes.data() + step.consumed, bytes.size() - step.consumed), ec);
    step.consumed += n;
    if (ec == bhttp::error::need_more) {
      if (p.is_header_done() && !im.checked) continue;  // run the checks
      return step;
    }
    if (ec == bhttp::error::body_limit) return body_too_big();
    if (ec) return fail(400);
    if (n == 0 && !p.is_done()) return step;  // no progress without an error: wait for bytes
  }
}

bool RequestParser::expects_continue() const {
  const auto& p = impl_->parser;
  if (!p.is_header_done() || p.is_done() || !impl_->checked || impl_->body_too_big) return false;
  const auto& msg = p.get();
  return msg.version() >= 11 && msg.find(bhttp::field::expect) != msg.end();
}

bool RequestParser::wanted_continue() const {
  const auto& p = impl_->parser;
  if (!p.is_header_done() || !impl_->checked || impl_->body_too_big) return false;
  const auto& msg = p.get();
  if (msg.version() < 11 || msg.find(bhttp::field::expect) == msg.end()) return false;
  auto length = p.content_length();
  return p.chunked() || (length && *length > 0);
}

int RequestParser::error_status() const { return impl_->error_status; }

const std::string& RequestParser::error_reason() const { return impl_->error_reason; }

bool RequestParser::chunked() const {
  return impl_->parser.is_header_done() && impl_->parser.chunked();
}

Request RequestParser::take_request() { return impl_->make_request(true); }

Request RequestParser::Impl::make_request(bool with_body) {
  auto& im = *this;
  auto& msg = im.parser.get();
  Request r;
  r.method = std::string(sv(msg.method_string()));
  r.target = std::string(sv(msg.target()));
  r.path = with_body ? std::move(im.target.path) : im.target.path;
  r.raw_query = with_body ? std::move(im.target.raw_query) : im.target.raw_query;
  auto query = parse_query(r.raw_query);
  r.query = std::move(query.pairs);
  r.bad_query = query.bad;
  r.headers.reserve(static_cast<std::size_t>(std::distance(msg.begin(), msg.end())));
  for (const auto& field : msg) {
    r.headers.emplace_back(lower(sv(field.name_string())), std::string(sv(field.value())));
  }
  r.version = msg.version() >= 11 ? 11 : 10;
  r.keep_alive = msg.keep_alive();
  r.body_too_big = im.body_too_big;
  if (with_body && !im.body_too_big) r.body = std::move(msg.body());
  return r;
}

ParseResult parse_request(std::string_view bytes, const ParserLimits& limits) {
  RequestParser parser(limits);
  ParseResult out;
  auto step = parser.put(bytes);
  out.status = step.status;
  out.consumed = step.consumed;
  if (step.status == RequestParser::Status::done) out.request = parser.take_request();
  if (step.status == RequestParser::Status::error) {
    out.error_status = parser.error_status();
    out.error_reason = parser.error_reason();
  }
  return out;
}

}  // namespace nsq::http::detail
