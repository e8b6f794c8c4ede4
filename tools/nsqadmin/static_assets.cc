#include "static_assets.h"

#include <cstddef>
#include <fstream>
#include <iterator>

#include "embedded_assets.h"

namespace nsq::admin {
namespace {

std::string_view content_type_for(std::string_view name) {
  auto ends = [&](std::string_view ext) {
    return name.size() >= ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  if (ends(".js")) return "application/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".ico")) return "image/x-icon";
  if (ends(".map")) return "application/json";
  return "application/octet-stream";
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (auto pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
}

// What an operator sees when the binary was built without node/npm.
constexpr std::string_view kNotBuiltPage = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>nsqadmin</title></head>
<body>
<h1>nsqadmin: the web UI is not built</h1>
<p>This nsqadmin binary was compiled without its front end (Node.js and npm were
not available, or <code>scripts/install-deps.sh</code> had not run). Install them,
run <code>scripts/install-deps.sh</code>, rebuild, and restart nsqadmin.</p>
<p>The JSON API works: try <a href="{{BASE_PATH}}api/topics">{{BASE_PATH}}api/topics</a>
and <a href="{{BASE_PATH}}api/nodes">{{BASE_PATH}}api/nodes</a>.</p>
</body></html>
)";

}  // namespace

std::optional<Asset> find_asset(std::string_view name) {
  for (std::size_t i = 0; i < kEmbeddedAssetCount; ++i) {
    if (kEmbeddedAssets[i].name == name) {
      return Asset{kEmbeddedAssets[i].data, content_type_for(name)};
    }
  }
  return std::nullopt;
}

bool ui_built() { return find_asset("index.html").has_value(); }

std::optional<Asset> read_dev_asset(const std::string& dir, std::string_view name,
                                    std::string* storage) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos ||
      name.find('\0') != std::string_view::npos) {
    return std::nullopt;
  }
  std::ifstream in(dir + "/" + std::string(name), std::ios::binary);
  if (!in) return std::nullopt;
  storage->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;  // e.g. a directory: opens, then fails to read
  return Asset{*storage, content_type_for(name)};
}

std::string render_index(std::string_view base_path, std::string_view config_json,
                         std::optional<std::string_view> dev_page) {
  // Links are written relative to "<base>/": the base path always ends in '/'.
  std::string base(base_path);
  if (base.empty() || base.back() != '/') base += '/';
  auto index = find_asset("index.html");
  std::string page(dev_page ? *dev_page : index ? index->data : kNotBuiltPage);
  // The settings sit in a <script> element: "<" must not close it.
  std::string config(config_json);
  replace_all(config, "<", "\\u003c");
  replace_all(page, "{{BASE_PATH}}", base);
  replace_all(page, "{{NSQADMIN_CONFIG}}", config);
  return page;
}

}  // namespace nsq::admin
