#include "http/response.h"

#include <algorithm>
#include <cctype>

namespace nsq::http::detail {

namespace {

constexpr std::string_view kDefaultContentType = "text/plain; charset=utf-8";

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool has_crlf(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos; }

// Whether a comma-separated header value holds `token` (any case).
bool has_token(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    auto comma = value.find(',');
    std::string_view item = value.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (iequals(item, token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

void append_two(std::string& out, int v) {
  out.push_back(static_cast<char>('0' + v / 10));
  out.push_back(static_cast<char>('0' + v % 10));
}

}  // namespace

std::string http_date(std::time_t t) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::string out;
  out.reserve(29);
  out += kDays[tm.tm_wday % 7];
  out += ", ";
  append_two(out, tm.tm_mday);
  out += ' ';
  out += kMonths[tm.tm_mon % 12];
  out += ' ';
  out += std::to_string(tm.tm_year + 1900);
  out += ' ';
  append_two(out, tm.tm_hour);
  out += ':';
  append_two(out, tm.tm_min);
  out += ':';
  append_two(out, tm.tm_sec);
  out += " GMT";
  return out;
}

bool response_wants_close(const Response& r) {
  for (const auto& [name, value] : r.headers) {
    if (iequals(name, "connection") && has_token(value, "close")) return true;
  }
  return false;
}

bool status_has_body(int status) { return status >= 200 && status != 204 && status != 304; }

std::string response_head(const Response& r, int version, bool close, std::string_view date) {
  std::string out;
  out.reserve(160 + r.content_type.size());
  out += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  int status = (r.status >= 100 && r.status <= 999) ? r.status : 500;
  out += std::to_string(status);
  out += ' ';
  out += status_text(status);
  out += "\r\n";
  for (const auto& [name, value] : r.headers) {
    if (name.empty() || has_crlf(name) || has_crlf(value) || name.find(':') != std::string::npos)
      continue;
    if (iequals(name, "content-length") || iequals(name, "transfer-encoding") ||
        iequals(name, "connection") || iequals(name, "date"))
      continue;
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  bool body = status_has_body(status);
  bool sniffed_only = r.content_type == kDefaultContentType && r.body.empty();
  if (body && !r.content_type.empty() && !has_crlf(r.content_type) && !sniffed_only) {
    out += "Content-Type: ";
    out += r.content_type;
    out += "\r\n";
  }
  if (body) {
    out += "Content-Length: ";
    out += std::to_string(r.body.size());
    out += "\r\n";
  }
  out += "Date: ";
  out += date;
  out += "\r\n";
  if (close) {
    if (version != 10) out += "Connection: close\r\n";
  } else if (version == 10) {
    out += "Connection: keep-alive\r\n";
  }
  out += "\r\n";
  return out;
}

std::string go_error_bytes(int status, std::string_view reason, std::string_view date) {
  if (status == 417) {
    Response r;
    r.status = 417;
    r.content_type.clear();
    return response_head(r, 11, true, date);
  }
  constexpr std::string_view kHeaders =
      "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n";
  std::string out = "HTTP/1.1 ";
  if (status == 501) {
    out += "501 Not Implemented";
    out += kHeaders;
    out += "Unsupported transfer encoding";
    return out;
  }
  std::string words = std::to_string(status) + " " + std::string(status_text(status));
  if (!reason.empty()) {
    words += ": ";
    words += reason;
  }
  out += words;
  out += kHeaders;
  out += words;
  return out;
}

Response plain_error(int status) {
  Response r;
  r.status = status;
  r.body = std::to_string(status);
  r.body += ' ';
  r.body += status_text(status);
  return r;
}

}  // namespace nsq::http::detail
