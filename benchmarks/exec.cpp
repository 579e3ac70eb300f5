// Execution-engine throughput: thread-instructions per second of the float32 and the symbolic
// domain on GEMM kernels of the corpus (every CTA of the grid), without race analysis.
//   bench_exec            the table
#include "bench.hpp"

#include <gpueq/check/run.hpp>
#include <gpueq/check/spec_json.hpp>

#include <cstdio>
#include <string>

using namespace gpueq;

namespace {

void measure(const char* pair_file, bool candidate) {
  std::string file = std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/" + pair_file;
  check::pair_spec spec = check::load_spec(file);
  check::resolved_pair pair = check::resolve(spec);
  const ptx::module& m = candidate ? pair.candidate : pair.reference;
  std::size_t entry = candidate ? pair.candidate_entry : pair.reference_entry;
  const check::kernel_spec& k = candidate ? spec.candidate : spec.reference;
  exec::program p = exec::decode(m, m.functions[entry]);
  std::string name = std::string(pair_file) + (candidate ? " (candidate)" : " (reference)");

  std::uint64_t steps = 0;
  double f32 = bench::seconds([&] {
    exec::float32_domain d([](const exec::input_ref& in) { return static_cast<double>(in.element % 7) * 0.25 - 0.5; });
    steps = check::run_grid(d, p, spec, k).steps;
  });
  ptx::module lifted = m;
  ptx::lift(lifted);
  exec::program lp = exec::decode(lifted, lifted.functions[entry]);
  std::uint64_t ssteps = 0;
  std::size_t terms = 0;
  double sym = bench::seconds([&] {
    term::store s;
    ssteps = check::run_symbolic(s, lp, spec, k).steps;
    terms = s.size();
  });
  std::printf("%-58s %12llu %9.3f %8.1f M/s %9.3f %8.1f M/s %10zu\n", name.c_str(),
              static_cast<unsigned long long>(steps), f32, static_cast<double>(steps) / f32 / 1e6, sym,
              static_cast<double>(ssteps) / sym / 1e6, terms);
  std::fflush(stdout);
}

}  // namespace

int main() {
  std::printf("%-58s %12s %9s %12s %9s %12s %10s\n", "kernel (all CTAs)", "thread-ins", "f32 [s]", "f32 rate",
              "sym [s]", "sym rate", "terms");
  measure("sgemm/naive_vs_coalesced.pair.json", false);
  measure("sgemm/naive_vs_2d_blocktile.pair.json", true);
  measure("sgemm/naive_vs_2d_blocktile_128.pair.json", true);
  measure("sgemm/hgemm_naive_vs_mma.pair.json", true);
  measure("attention/ref_vs_flash1.pair.json", true);
  measure("reduction/v1_vs_v7_shfl.pair.json", true);
  std::printf("peak memory: %.0f MiB\n", bench::peak_mib());
}
