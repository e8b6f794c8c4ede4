#include "rotation.h"

#include <gtest/gtest.h>

namespace nsq::to_file {
namespace {

RotationInput open_file() {
  RotationInput in;
  in.open = true;
  in.open_name = "a.log";
  in.current_name = "a.log";
  return in;
}

TEST(Rotation, NoFileFirst) {
  RotationInput in;
  EXPECT_EQ(rotation_reason(in), RotationReason::no_file);
}

TEST(Rotation, NewDatetimeName) {
  RotationInput in = open_file();
  in.current_name = "b.log";
  EXPECT_EQ(rotation_reason(in), RotationReason::new_name);
}

TEST(Rotation, IntervalOnlyWhenExceeded) {
  RotationInput in = open_file();
  in.rotate_interval = std::chrono::seconds(10);
  in.open_for = std::chrono::seconds(10);
  EXPECT_EQ(rotation_reason(in), RotationReason::none);
  in.open_for = std::chrono::seconds(11);
  EXPECT_EQ(rotation_reason(in), RotationReason::interval);
  in.rotate_interval = std::chrono::seconds(0);
  EXPECT_EQ(rotation_reason(in), RotationReason::none);
}

TEST(Rotation, SizeOnlyWhenExceeded) {
  RotationInput in = open_file();
  in.rotate_size = 100;
  in.size = 100;
  EXPECT_EQ(rotation_reason(in), RotationReason::none);
  in.size = 101;
  EXPECT_EQ(rotation_reason(in), RotationReason::size);
  in.rotate_size = 0;
  EXPECT_EQ(rotation_reason(in), RotationReason::none);
}

}  // namespace
}  // namespace nsq::to_file
