#include "rotation.h"

namespace nsq::to_file {

RotationReason rotation_reason(const RotationInput& in) {
  if (!in.open) return RotationReason::no_file;
  if (in.current_name != in.open_name) return RotationReason::new_name;
  if (in.rotate_interval.count() > 0 && in.open_for > in.rotate_interval) {
    return RotationReason::interval;
  }
  if (in.rotate_size > 0 && in.size > in.rotate_size) return RotationReason::size;
  return RotationReason::none;
}

}  // namespace nsq::to_file
