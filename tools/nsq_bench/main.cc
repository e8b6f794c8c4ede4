// nsq_bench: load generator for nsqd in the manner of NSQ's bench_writer and
// bench_reader, speaking the TCP protocol so it drives any nsqd.
#include <iostream>

#include "bench.h"
#include "nsq/flags/go_flags.h"
#include "options.h"

int main(int argc, char** argv) {
  nsq::bench::Options options;
  nsq::flags::FlagSet fs("nsq_bench");
  nsq::bench::register_flags(fs, options);
  if (auto parsed = fs.parse(argc, argv); !parsed) {
    if (parsed.error().kind == nsq::flags::FlagError::Kind::help) {
      std::cout << fs.usage();
      return 0;
    }
    std::cerr << parsed.error().message << '\n' << fs.usage();
    return 2;
  }
  auto mode = nsq::bench::validate(options);
  if (!mode) {
    std::cerr << "nsq_bench: " << mode.error() << '\n';
    return 2;
  }
  return nsq::bench::run_bench(options, *mode, std::cout, std::cerr);
}
