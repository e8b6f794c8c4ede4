#include "http/response_reader.h"

#include <cctype>
#include <charconv>
#include <utility>

namespace nsq::http::detail {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

enum class Decode { done, need_more, bad };

// Decodes a chunked body from the start of `data` into *out (chunk
// extensions and trailers are skipped).
Decode decode_chunked(std::string_view data, std::string* out) {
  out->clear();
  std::size_t pos = 0;
  for (;;) {
    auto eol = data.find("\r\n", pos);
    if (eol == std::string_view::npos) return Decode::need_more;
    std::string_view size_line = data.substr(pos, eol - pos);
    size_line = size_line.substr(0, size_line.find(';'));
    auto size = parse_number(size_line, 16);
    if (!size) return Decode::bad;
    pos = eol + 2;
    if (*size == 0) {
      // Trailers end with an empty line.
      for (;;) {
        auto end = data.find("\r\n", pos);
        if (end == std::string_view::npos) return Decode::need_more;
        if (end == pos) return Decode::done;
        pos = end + 2;
      }
    }
    // (Compared without adding: a size near 2^64 would wrap the sum and
    // pass, then each chunk re-appended the rest of the buffer.)
    if (data.size() - pos < 2 || *size > data.size() - pos - 2) return Decode::need_more;
    out->append(data.substr(pos, *size));
    if (data.substr(pos + *size, 2) != "\r\n") return Decode::bad;
    pos += *size + 2;
  }
}

struct Head {
  int status = 0;
  HeaderList headers;
};

std::optional<Head> parse_head(std::string_view head) {
  if (!head.starts_with("HTTP/1.")) return std::nullopt;
  auto line_end = head.find("\r\n");
  std::string_view status_line = head.substr(0, line_end);
  auto sp = status_line.find(' ');
  if (sp == std::string_view::npos) return std::nullopt;
  auto status = parse_number(status_line.substr(sp + 1, 3), 10);
  if (!status) return std::nullopt;
  Head out;
  out.status = static_cast<int>(*status);
  std::string_view rest =
      line_end == std::string_view::npos ? std::string_view{} : head.substr(line_end + 2);
  while (!rest.empty()) {
    auto e = rest.find("\r\n");
    std::string_view line = rest.substr(0, e);
    rest = e == std::string_view::npos ? std::string_view{} : rest.substr(e + 2);
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    out.headers.emplace_back(lower(line.substr(0, colon)), std::string(value));
  }
  return out;
}

const std::string* find_header(const HeaderList& headers, std::string_view lower_name) {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return &value;
  }
  return nullptr;
}

}  // namespace

std::optional<std::uint64_t> parse_number(std::string_view s, int base) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

ReadStep read_response(std::string_view raw, bool eof, bool head_request, std::size_t max_body,
                       const std::string& where) {
  ReadStep step;
  auto fail = [&](std::string error) {
    step.status = ReadStep::Status::error;
    step.error = std::move(error);
    return std::move(step);
  };
  auto header_end = raw.find("\r\n\r\n");
  if (header_end == std::string_view::npos) {
    if (eof) return fail("malformed HTTP response from " + where);
  } else {
    std::optional<Head> head = parse_head(raw.substr(0, header_end));
    if (!head) return fail("malformed HTTP response from " + where);
    std::size_t body_start = header_end + 4;
    std::optional<std::uint64_t> content_length;
    bool chunked = false;
    if (const auto* te = find_header(head->headers, "transfer-encoding")) {
      chunked = lower(*te).find("chunked") != std::string::npos;
    }
    if (const auto* cl = find_header(head->headers, "content-length"); cl && !chunked) {
      content_length = parse_number(*cl, 10);
      if (!content_length) return fail("malformed HTTP response from " + where);
    }
    if (head_request || head->status / 100 == 1 || head->status == 204 || head->status == 304) {
      content_length = 0;
    }
    if (content_length && *content_length > max_body) {
      return fail("response from " + where + " too large");
    }
    std::string_view body = raw.substr(body_start);
    ClientResponse& out = step.response;
    out.status = head->status;
    if (chunked) {
      Decode d = decode_chunked(body, &out.body);
      if (d == Decode::bad) return fail("malformed chunked body from " + where);
      if (d == Decode::done) {
        out.headers = std::move(head->headers);
        step.status = ReadStep::Status::done;
        return step;
      }
      if (eof) return fail("read " + where + ": unexpected EOF");
    } else if (content_length) {
      if (body.size() >= *content_length) {
        out.body = std::string(body.substr(0, *content_length));
        out.headers = std::move(head->headers);
        step.status = ReadStep::Status::done;
        return step;
      }
      if (eof) return fail("read " + where + ": unexpected EOF");
    } else if (eof) {
      out.body = std::string(body);
      out.headers = std::move(head->headers);
      step.status = ReadStep::Status::done;
      return step;
    }
  }
  if (raw.size() > max_body + 64 * 1024) return fail("response from " + where + " too large");
  step.response = ClientResponse{};
  return step;
}

}  // namespace nsq::http::detail
