#pragma once

#include <ostream>

#include "options.h"

namespace nsq::bench {

// Runs one benchmark as the options say and prints the report (progress
// and results to out, the fatal error to err). Returns the exit code.
int run_bench(const Options& options, Mode mode, std::ostream& out, std::ostream& err);

}  // namespace nsq::bench
