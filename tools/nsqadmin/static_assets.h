#pragma once

#include <optional>
#include <string>
#include <string_view>

// The web UI's files, compiled into the binary (CMake turns the front-end
// build output into embedded_assets.cc), so nsqadmin is one self-contained
// file. Without a front-end build the table holds no index.html and
// nsqadmin serves a page saying so; the API works either way.
namespace nsq::admin {

struct Asset {
  std::string_view data;
  std::string_view content_type;
};

// "app.js", "app.css", "index.html", ... (no directories).
std::optional<Asset> find_asset(std::string_view name);

// True when the front end was built into this binary.
bool ui_built();

// The page for every UI route: index.html with the nsqadmin settings the
// front end reads (`config_json`, a JSON object) and the base path filled in,
// or the not-built page.
// `page` replaces the embedded index.html (--dev-static-dir's copy).
std::string render_index(std::string_view base_path, std::string_view config_json,
                         std::optional<std::string_view> page = std::nullopt);

// --dev-static-dir: the file `name` of `dir` (one path segment, "." and ".."
// refused), read at each request so a rebuilt bundle shows on reload.
std::optional<Asset> read_dev_asset(const std::string& dir, std::string_view name,
                                    std::string* storage);

}  // namespace nsq::admin
