// A program outside the nsq tree using the installed libdiskqueue.
#include <diskqueue/disk_queue.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  nsq::diskqueue::Options options;
  options.name = "consumer";
  options.data_path = argv[1];
  auto queue = nsq::diskqueue::DiskQueue::open(options);
  if (!queue) return 3;
  if ((*queue)->put("hello from outside")) return 4;
  auto record = (*queue)->try_read();
  if (!record || *record != "hello from outside") return 5;
  std::puts("ok");
  return 0;
}
