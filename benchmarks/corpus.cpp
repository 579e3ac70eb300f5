// The corpus table (issue 8): every pair of examples/kernels checked end to end as `gpueq check`
// does (runs with race analysis, then the decision), one row per pair: verdict, run and decide
// time, total, thread-instructions, terms, and the peak memory of that pair alone (each pair is
// checked in a child process, whose peak resident size the parent reads).
//   bench_corpus [substring]     only pairs whose path contains the substring
#include "bench.hpp"

#include "../examples/specs/corpus.hpp"  // pairs whose reference is a registered specification

#include <gpueq/check/driver.hpp>
#include <gpueq/check/spec_check.hpp>
#include <gpueq/check/spec_json.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace gpueq;

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::string filter = argc > 1 ? argv[1] : "";
  std::vector<std::string> files;
  for (auto& e : fs::recursive_directory_iterator(fs::path(GPUEQ_SOURCE_DIR) / "examples" / "kernels"))
    if (e.path().string().ends_with(".pair.json") && e.path().string().find(filter) != std::string::npos)
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::printf("%-48s %-15s %8s %8s %8s %12s %9s %8s\n", "pair", "verdict", "run [s]", "dec [s]", "total", "thread-ins",
              "terms", "MiB");
  std::fflush(stdout);
  double all = 0;
  for (auto& f : files) {
    int fd[2];
    if (pipe(fd) != 0) return 1;
    pid_t pid = fork();
    if (pid == 0) {
      close(fd[0]);
      check::pair_spec spec = check::load_spec(f);
      check::resolved_pair pair = check::resolve(spec);
      auto t0 = std::chrono::steady_clock::now();
      check::check_result r = spec.reference_spec ? check::check_against_spec(spec, pair) : check::check_pair(spec, pair);
      double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      char line[256];
      int n = std::snprintf(line, sizeof line, "%s %f %f %f %llu %zu", std::string(check::name(r.v)).c_str(), r.run_seconds,
                            r.decide_seconds, total,
                            static_cast<unsigned long long>(r.reference.steps + r.candidate.steps), r.terms);
      if (write(fd[1], line, static_cast<std::size_t>(n)) < 0) _exit(1);
      _exit(0);
    }
    close(fd[1]);
    char buf[256] = {};
    std::size_t got = 0;
    for (ssize_t k; (k = read(fd[0], buf + got, sizeof buf - 1 - got)) > 0;) got += static_cast<std::size_t>(k);
    close(fd[0]);
    int status = 0;
    rusage u{};
    wait4(pid, &status, 0, &u);
    char verdict[32] = "crashed";
    double run = 0, dec = 0, total = 0;
    unsigned long long steps = 0;
    std::size_t terms = 0;
    std::sscanf(buf, "%31s %lf %lf %lf %llu %zu", verdict, &run, &dec, &total, &steps, &terms);
    all += total;
    std::string name = fs::relative(f, fs::path(GPUEQ_SOURCE_DIR) / "examples" / "kernels").string();
    std::printf("%-48s %-15s %8.3f %8.3f %8.3f %12llu %9zu %8.0f\n", name.c_str(), verdict, run, dec, total, steps, terms,
                static_cast<double>(u.ru_maxrss) / 1024.0);
    std::fflush(stdout);
  }
  std::printf("%zu pairs, %.1f s in all\n", files.size(), all);
}
