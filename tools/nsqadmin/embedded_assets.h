#pragma once

#include <cstddef>
#include <string_view>

// Defined in the embedded_assets.cc that CMake generates (embed_assets.cmake)
// from the front-end build output; empty when there was none.
namespace nsq::admin {

struct EmbeddedAsset {
  std::string_view name;
  std::string_view data;
};

extern const EmbeddedAsset kEmbeddedAssets[];
extern const std::size_t kEmbeddedAssetCount;

}  // namespace nsq::admin
