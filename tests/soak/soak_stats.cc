#include "soak/soak_stats.h"

#include <cstdio>

namespace nsq::soak {

double slope(const std::vector<double>& t, const std::vector<double>& y) {
  const std::size_t n = t.size();
  if (n < 2 || y.size() != n) return 0;
  double mt = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mt += t[i];
    my += y[i];
  }
  mt /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < n; ++i) {
    num += (t[i] - mt) * (y[i] - my);
    den += (t[i] - mt) * (t[i] - mt);
  }
  return den > 0 ? num / den : 0;
}

std::string Trend::describe(const char* what, const char* unit) const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s: second-half trend %+.1f %s (limit %.1f) %s", what, growth,
                unit, limit, ok() ? "ok" : "GROWING");
  return buf;
}

}  // namespace nsq::soak
