// A small timing harness for the benchmarks: wall time of a callable (best of a few runs) and
// peak resident memory, printed as one table row.
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace gpueq::bench {

template <class F>
double seconds(F&& f, int repeats = 1) {
  double best = 1e300;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < best) best = s;
  }
  return best;
}

inline double peak_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

inline void header(const char* title) {
  std::printf("%s\n%-44s %12s %12s %10s\n", title, "case", "build [s]", "decide [s]", "verdict");
}

inline void row(const std::string& name, double build, double decide, const char* verdict) {
  std::printf("%-44s %12.4f %12.4f %10s\n", name.c_str(), build, decide, verdict);
  std::fflush(stdout);
}

}  // namespace gpueq::bench
