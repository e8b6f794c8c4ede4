#pragma once

// Request routing with the rules of the router Go NSQ uses
// (julienschmidt/httprouter over net/http), so that paths, methods and
// redirects resolve as they do against Go's nsqd and nsqlookupd:
//  - one route table per method; a pattern is a static path or has one
//    ":name" segment (any non-empty segment);
//  - no match for the method: a path with a stray or missing trailing slash
//    is redirected to the route (301 for GET, 307 otherwise, query kept);
//    else the cleaned path ("//a", "/./a", "/x/../a") matched without regard
//    to case is redirected to the route's spelling;
//  - then OPTIONS answers 200 with Allow, another method answers 405 with
//    Allow (the methods whose table has the exact path, plus OPTIONS,
//    sorted), and what is left is 404;
//  - HEAD is a method of its own (405 on GET routes, as Go's router);
//  - "OPTIONS *" answers 200 with an empty body (net/http's own handler).
// No Asio or Beast here.

#include <string>
#include <string_view>
#include <vector>

#include "nsq/http/message.h"

namespace nsq::http {

class Router {
 public:
  // Adds `pattern` ("/ping", "/config/:opt") for `method`, answered by the
  // caller's handler number `id`.
  void add(std::string method, std::string pattern, int id);

  struct Result {
    enum class Kind {
      match,               // `id`, `param` (the ":name" segment's value, if any)
      redirect,            // `response` is the complete redirect
      options,             // `response` is the complete 200 answer
      method_not_allowed,  // `allow`: the caller answers 405 with this Allow header
      not_found,           // the caller answers 404
    };
    Kind kind = Kind::not_found;
    int id = -1;
    std::string param;
    std::string allow;
    Response response;
  };

  // Resolves `req` (its method, decoded path and raw target).
  Result route(const Request& req) const;

 private:
  struct Route {
    std::string method;
    std::string pattern;
    int id;
  };
  // The route of `method` matching `path` exactly (param value into `param`).
  const Route* match(std::string_view method, std::string_view path, std::string* param) const;
  // The route of `method` matching `path` case-insensitively, also with a
  // trailing slash added or removed; "" if none, else the fixed path.
  std::string fix_case(std::string_view method, std::string_view path) const;
  std::string allowed(std::string_view path, std::string_view method) const;
  bool has_method(std::string_view method) const;

  std::vector<Route> routes_;
};

// Go's path escaping of a URL path (url.URL.EscapedPath for a path without a
// RawPath): everything but letters, digits and -_.~$&+,/:;=@ as %XX.
std::string escape_path(std::string_view path);

// Go's path.Clean ("" → ".", "//a/./b/../c" → "/a/c").
std::string clean_path(std::string_view path);

}  // namespace nsq::http
