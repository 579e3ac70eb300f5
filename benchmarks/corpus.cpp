// The corpus table (issues 6 and 8): every pair of examples/kernels checked end to end as `gpueq
// check` does, one row per pair: verdict; phases: parse (reading the spec and both PTX files),
// symbolic execution of each kernel with the race analysis, the race analysis's share of it
// (the same runs repeated without the race context, subtracted), the decision; total (parse +
// check, without the extra runs), thread-instructions, terms, and the peak memory of that pair
// alone (each pair is checked in a child process, whose peak resident size the parent reads).
//   bench_corpus [-jN] [substring]     N threads (default 1), only pairs whose path has the substring
//   bench_corpus --sgemm-k 256,512     instead: the 128x128-tile SGEMM pair at those K (issue 8's
//                                      SGEMM target is K = 4096; the corpus pair has K = 128)
//   --no-float32                       without the float32 side report (gpueq check --no-float32)
//   --fast                             fingerprints accepted as equal (gpueq check --fast)
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
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace gpueq;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The child's work: one line "verdict parse ref cand race decide total steps terms".
struct mode {
  unsigned threads = 1;
  bool float32 = true, fast = false;
};

std::string measure(const std::string& f, const mode& how) {
  auto t0 = std::chrono::steady_clock::now();
  check::pair_spec spec = check::load_spec(f);
  check::resolved_pair pair = check::resolve(spec);
  double parse = since(t0);
  check::check_options o;
  o.threads = how.threads;
  o.float32_report = how.float32;
  o.compare.decide.fast = how.fast;
  auto t1 = std::chrono::steady_clock::now();
  check::check_result r = check::check_pair(spec, pair, o);
  double total = parse + since(t1);
  // The race analysis's share: the symbolic runs again without it (one thread, per side).
  double race = 0;
  {
    check::check_options plain = o;
    plain.check_races = false;
    plain.threads = 1;
    double without = 0;
    for (bool candidate : {false, true}) {
      if (!check::has_kernel(spec, candidate)) continue;
      check::prepared_kernel k = check::prepare(spec, candidate ? pair.candidate : pair.reference,
                                                candidate ? pair.candidate_entry : pair.reference_entry,
                                                candidate ? spec.candidate : spec.reference, "side");
      term::store s;
      check::kernel_run out;
      auto t2 = std::chrono::steady_clock::now();
      (void)check::run_side(s, k, out, plain);
      without += since(t2);
    }
    race = std::max(0.0, r.reference.seconds + r.candidate.seconds - without);
  }
  char line[512];
  std::snprintf(line, sizeof line, "%s %f %f %f %f %f %f %llu %zu", std::string(check::name(r.v)).c_str(), parse,
                r.reference.seconds, r.candidate.seconds, race, r.decide_seconds, total,
                static_cast<unsigned long long>(r.reference.steps + r.candidate.steps), r.terms);
  return line;
}

// The corpus's 128x128-tile SGEMM pair with inner dimension k (a spec in the temporary directory,
// pointing at the corpus PTX).
std::string scaled_sgemm(unsigned k) {
  namespace fs = std::filesystem;
  fs::path src = fs::path(GPUEQ_SOURCE_DIR) / "examples" / "kernels" / "sgemm" / "naive_vs_2d_blocktile_128.pair.json";
  std::ifstream in(src);
  nlohmann::json j = nlohmann::json::parse(in);
  j["scalars"]["K"] = k;
  j["tensors"]["A"]["shape"] = {128, k};
  j["tensors"]["B"]["shape"] = {k, 128};
  for (const char* side : {"reference", "candidate"})
    j[side]["ptx"] = (src.parent_path() / j[side]["ptx"].get<std::string>()).string();
  j.erase("$schema");
  fs::path out = fs::temp_directory_path() / ("gpueq_sgemm_128x128_k" + std::to_string(k) + ".pair.json");
  std::ofstream(out) << j.dump(1);
  return out.string();
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::string filter;
  mode how;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.starts_with("-j")) how.threads = static_cast<unsigned>(std::max(1, std::atoi(a.c_str() + 2)));
    else if (a == "--no-float32") how.float32 = false;
    else if (a == "--fast") how.fast = true;
    else filter = a;
  }
  std::vector<std::string> files, names;
  std::vector<unsigned> ks;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--sgemm-k") {
      std::stringstream list(argv[i + 1]);
      for (std::string k; std::getline(list, k, ',');) ks.push_back(static_cast<unsigned>(std::stoul(k)));
      filter.clear();
    }
  if (!ks.empty()) {
    for (unsigned k : ks) {
      files.push_back(scaled_sgemm(k));
      names.push_back("sgemm 128x128 tile, K=" + std::to_string(k));
    }
  } else {
    for (auto& e : fs::recursive_directory_iterator(fs::path(GPUEQ_SOURCE_DIR) / "examples" / "kernels"))
      if (e.path().string().ends_with(".pair.json") && e.path().string().find(filter) != std::string::npos)
        files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (auto& f : files) names.push_back(fs::relative(f, fs::path(GPUEQ_SOURCE_DIR) / "examples" / "kernels").string());
  }
  std::printf("%u thread(s)%s%s; times in seconds; run ref/cand: symbolic execution with the race analysis (CPU "
              "seconds summed over threads), race: its share of them; total: wall clock%s\n",
              how.threads, how.float32 ? "" : ", --no-float32", how.fast ? ", --fast" : "",
              how.float32 ? ", with the float32 side report" : "");
  std::printf("%-46s %-14s %6s %7s %7s %6s %7s %7s %11s %8s %6s\n", "pair", "verdict", "parse", "run ref", "run cand",
              "race", "decide", "total", "thread-ins", "terms", "MiB");
  std::fflush(stdout);
  double all = 0;
  for (std::size_t n = 0; n < files.size(); ++n) {
    const std::string& f = files[n];
    int fd[2];
    if (pipe(fd) != 0) return 1;
    pid_t pid = fork();
    if (pid == 0) {
      close(fd[0]);
      std::string line;
      try {
        line = measure(f, how);
      } catch (const std::exception& e) {
        line = "error";
      }
      if (write(fd[1], line.data(), line.size()) < 0) _exit(1);
      _exit(0);
    }
    close(fd[1]);
    char buf[512] = {};
    std::size_t got = 0;
    for (ssize_t k; (k = read(fd[0], buf + got, sizeof buf - 1 - got)) > 0;) got += static_cast<std::size_t>(k);
    close(fd[0]);
    int status = 0;
    rusage u{};
    wait4(pid, &status, 0, &u);
    char verdict[32] = "crashed";
    double parse = 0, ref = 0, cand = 0, race = 0, dec = 0, total = 0;
    unsigned long long steps = 0;
    std::size_t terms = 0;
    std::sscanf(buf, "%31s %lf %lf %lf %lf %lf %lf %llu %zu", verdict, &parse, &ref, &cand, &race, &dec, &total, &steps,
                &terms);
    all += total;
    const std::string& name = names[n];
    std::printf("%-46s %-14s %6.3f %7.3f %7.3f %6.3f %7.3f %7.3f %11llu %8zu %6.0f\n", name.c_str(), verdict, parse, ref,
                cand, race, dec, total, steps, terms, static_cast<double>(u.ru_maxrss) / 1024.0);
    std::fflush(stdout);
  }
  std::printf("%zu pairs, %.1f s in all\n", files.size(), all);
}
