#include "nsqd/errc.h"

#include <string>

namespace nsq::nsqd {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "nsqd"; }
  // The texts are Go nsqd's: they end up in E_PUB_FAILED replies.
  std::string message(int value) const override {
    switch (static_cast<errc>(value)) {
      case errc::exiting:
        return "exiting";
      case errc::full:
        return "full";
      case errc::log_corrupt:
        return "replica log corrupt";
      case errc::log_out_of_range:
        return "offset outside the replica log";
      case errc::not_leader:
        return "not the topic's leader";
      case errc::not_enough_replicas:
        return "not enough in-sync replicas";
      case errc::replication_timeout:
        return "replication timed out";
    }
    return "unknown nsqd error";
  }
};

}  // namespace

const std::error_category& error_category() noexcept {
  static const Category category;
  return category;
}

}  // namespace nsq::nsqd
