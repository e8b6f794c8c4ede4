#include "diskqueue/errc.h"

#include <string>

namespace nsq::diskqueue {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "diskqueue"; }
  std::string message(int value) const override {
    switch (static_cast<errc>(value)) {
      case errc::exiting:
        return "exiting";
      case errc::invalid_size:
        return "invalid message write size";
      case errc::not_a_directory:
        return "data path is not a directory";
      case errc::corrupt_metadata:
        return "corrupt metadata";
      case errc::invalid_token:
        return "read token not handed out by this queue";
      case errc::busy:
        return "the queue cannot write without waiting";
    }
    return "unknown diskqueue error";
  }
};

}  // namespace

const std::error_category& error_category() noexcept {
  static const Category category;
  return category;
}

}  // namespace nsq::diskqueue
