// Execution-engine throughput: thread-instructions per second of the float32 and the symbolic
// domain on GEMM kernels of the corpus (every CTA of the grid), without race analysis.
//   bench_exec                 the table (float32: best of 5 runs; symbolic: one run)
//   bench_exec --f32 | --sym   one domain only (for `perf record` / `perf stat` of one path)
//   bench_exec --repeat N      best of N runs in both domains
//   bench_exec --only TEXT     only the kernels whose pair file contains TEXT
#include "bench.hpp"

#include <gpueq/check/prepared.hpp>
#include <gpueq/check/spec_json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace gpueq;

namespace {

struct settings {
  bool f32 = true, sym = true;
  int f32_repeats = 5, sym_repeats = 1;
  std::string only;
};

void measure(const settings& s, const char* pair_file, bool candidate) {
  if (!s.only.empty() && std::string(pair_file).find(s.only) == std::string::npos) return;
  std::string file = std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/" + pair_file;
  check::pair_spec spec = check::load_spec(file);
  check::resolved_pair pair = check::resolve(spec);
  if (!check::has_kernel(spec, candidate)) return;
  const ptx::module& m = candidate ? pair.candidate : pair.reference;
  std::size_t entry = candidate ? pair.candidate_entry : pair.reference_entry;
  const check::kernel_spec& k = candidate ? spec.candidate : spec.reference;
  std::string name = std::string(pair_file) + (candidate ? " (candidate)" : " (reference)");

  // The one grid runner over a prepared kernel (float32: the unlifted program; symbolic: lifted).
  check::prepared_kernel pk = check::prepare(spec, m, entry, k, candidate ? "candidate" : "reference");
  std::uint64_t steps = 0;
  double f32 = 0;
  if (s.f32) {
    f32 = bench::seconds(
        [&] {
          steps = check::run_grid<exec::float32_domain>(pk, [] {
                    return exec::float32_domain(
                        [](const exec::input_ref& in) { return static_cast<double>(in.element % 7) * 0.25 - 0.5; });
                  }).steps;
        },
        s.f32_repeats);
  }
  std::uint64_t ssteps = 0;
  std::size_t terms = 0;
  double sym = 0;
  if (s.sym) {
    sym = bench::seconds(
        [&] {
          term::store st;
          ssteps = check::run_grid<exec::symbolic_domain>(pk, [&] { return exec::symbolic_domain(st); }).steps;
          terms = st.size();
        },
        s.sym_repeats);
  }
  auto rate = [](std::uint64_t n, double t) { return t > 0 ? static_cast<double>(n) / t / 1e6 : 0.0; };
  std::printf("%-58s %12llu %9.3f %8.1f M/s %9.3f %8.1f M/s %10zu\n", name.c_str(),
              static_cast<unsigned long long>(s.f32 ? steps : ssteps), f32, rate(steps, f32), sym, rate(ssteps, sym),
              terms);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--f32")) s.sym = false;
    else if (!std::strcmp(argv[i], "--sym")) s.f32 = false;
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) s.f32_repeats = s.sym_repeats = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) s.only = argv[++i];
    else {
      std::fprintf(stderr, "usage: bench_exec [--f32 | --sym] [--repeat N] [--only TEXT]\n");
      return 2;
    }
  }
  std::printf("%-58s %12s %9s %12s %9s %12s %10s\n", "kernel (all CTAs)", "thread-ins", "f32 [s]", "f32 rate",
              "sym [s]", "sym rate", "terms");
  measure(s, "sgemm/naive_vs_coalesced.pair.json", false);
  measure(s, "sgemm/naive_vs_2d_blocktile.pair.json", true);
  measure(s, "sgemm/naive_vs_2d_blocktile_128.pair.json", true);
  measure(s, "sgemm/hgemm_naive_vs_mma.pair.json", true);
  measure(s, "attention/ref_vs_flash1.pair.json", true);
  measure(s, "reduction/v1_vs_v7_shfl.pair.json", true);
  std::printf("peak memory: %.0f MiB\n", bench::peak_mib());
}
