// A prepared kernel: one side of a check, built once and read by every stage. It holds the parsed
// module and its lifted copy (nvcc's math sequences as real functions), both decoded programs (the
// lifted one for symbolic runs, the unlifted one for float32 runs: what the GPU computes), the
// launch the spec describes, the CTAs to run and the source lines race reports name. The symbolic
// run, the float32 side report, counterexample replay and race witnesses all take it, so a side
// is parsed, lifted and decoded once per check (exec::decode_count() counts decodes; a test holds
// a check to four for a pair of kernels).
#pragma once

#include <gpueq/check/run.hpp>
#include <gpueq/check/spec.hpp>
#include <gpueq/exec.hpp>
#include <gpueq/ptx/ir.hpp>
#include <gpueq/ptx/lift.hpp>
#include <gpueq/race/ptx_source.hpp>
#include <gpueq/support/parallel.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace gpueq::check {

struct prepared_kernel {
  std::string name;  // "reference", "candidate", or how a report names a lone kernel
  kernel_spec kernel;
  // Held by pointer: the decoded programs point into them, so a prepared kernel can move.
  std::unique_ptr<const ptx::module> module, lifted;
  std::size_t entry = 0;
  exec::program symbolic_program;  // decoded from `lifted`: symbolic and exact runs
  exec::program float32_program;   // decoded from `module`: float32 runs
  std::vector<race::source_line> lines;  // of `lifted`, whose instructions race reports index
  exec::launch launch;                    // CTA (0,0,0); runs set the CTA
  std::vector<exec::dim3> ctas;
};

// Prepares entry `entry` of a parsed (unlifted) module under kernel spec `k` of `spec`.
inline prepared_kernel prepare(const pair_spec& spec, const ptx::module& parsed, std::size_t entry,
                               const kernel_spec& k, std::string name) {
  prepared_kernel p;
  p.name = std::move(name);
  p.kernel = k;
  p.entry = entry;
  p.module = std::make_unique<const ptx::module>(parsed);
  auto lifted = std::make_unique<ptx::module>(parsed);
  ptx::lift(*lifted);
  p.lifted = std::move(lifted);
  p.symbolic_program = exec::decode(*p.lifted, p.lifted->functions[entry]);
  p.float32_program = exec::decode(*p.module, p.module->functions[entry]);
  p.lines = race::source_lines(*p.lifted, p.lifted->functions[entry]);
  p.launch = make_launch(spec, k);
  p.ctas = ctas_of(k);
  return p;
}

// Both sides of a resolved pair; `reference` is empty when the pair's reference is a
// specification (check/specification.hpp), which is no kernel.
struct prepared_pair {
  std::optional<prepared_kernel> reference;
  prepared_kernel candidate;
};

inline prepared_pair prepare(const pair_spec& spec, const resolved_pair& pair) {
  prepared_pair p{std::nullopt, prepare(spec, pair.candidate, pair.candidate_entry, spec.candidate, "candidate")};
  if (!spec.reference_spec) p.reference = prepare(spec, pair.reference, pair.reference_entry, spec.reference, "reference");
  return p;
}

// The one grid runner of unobserved runs (the float32 side report, counterexample replay, race
// witnesses, `gpueq run`): every CTA of each prepared kernel (or the CTAs `only` names), as
// independent jobs on `threads` threads, the sides with fewer (larger) CTAs first so that a big CTA
// does not start last and run alone, each job in a domain of its own from make_domain(). Results
// are collected per side in grid order (grid_collector), so they do not depend on `threads`.
// The float32 domain runs the unlifted program (what the GPU runs); the exact and symbolic domains,
// which compute over the rationals and reals, run the lifted one (nvcc's math sequences as the
// real functions they approximate).
// The symbolic run of a check, with its race context and term-store forks, is run_sides
// (check/sides.hpp).
template <class D, class MakeDomain>
std::vector<grid_run<typename D::result>> run_grids(std::span<const prepared_kernel* const> sides, MakeDomain&& make_domain,
                                                    unsigned threads = 1, const exec::engine_options& options = {},
                                                    std::span<const exec::dim3> only = {}) {
  using R = typename D::result;
  struct side {
    std::vector<exec::dim3> ctas;
    std::vector<cta_run<R>> runs;
    std::vector<race::cta_footprint> atomics;  // per CTA: its global atomics
  };
  std::vector<side> state(sides.size());
  std::vector<std::size_t> order(sides.size());
  for (std::size_t si = 0; si < sides.size(); ++si) {
    state[si].ctas = only.empty() ? sides[si]->ctas : std::vector<exec::dim3>(only.begin(), only.end());
    state[si].runs.resize(state[si].ctas.size());
    state[si].atomics.resize(state[si].ctas.size());
    order[si] = si;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return state[a].ctas.size() < state[b].ctas.size(); });
  std::vector<std::pair<std::size_t, std::size_t>> jobs;  // (side, CTA)
  for (std::size_t si : order)
    for (std::size_t ci = 0; ci < state[si].ctas.size(); ++ci) jobs.emplace_back(si, ci);
  support::parallel_for(threads, jobs.size(), [&](unsigned, std::size_t job) {
    auto [si, ci] = jobs[job];
    const prepared_kernel& k = *sides[si];
    exec::launch l = k.launch;
    l.cta = state[si].ctas[ci];
    D d = make_domain();
    race::atomic_observer atomics{&state[si].atomics[ci], {}};
    state[si].runs[ci] = run_cta(d, std::is_same_v<D, exec::float32_domain> ? k.float32_program : k.symbolic_program, l, atomics, options);
  });
  std::vector<grid_run<R>> out;
  for (std::size_t si = 0; si < sides.size(); ++si) {
    const exec::launch& l = sides[si]->launch;
    grid_collector<R> collect(l, state[si].ctas);
    D d = make_domain();
    // Elements that CTAs updated only by atomics of one commuting operation (merge_atomic).
    auto combine = [&](std::uint32_t ti, std::uint64_t element, std::uint32_t earlier, std::uint32_t ci, const R& a,
                       const R& b) -> std::optional<R> {
      if constexpr (!D::symbolic) {  // (symbolic results are term ids: run_sides merges terms)
        const auto& t = l.tensors[ti];
        if (!t.input) return std::nullopt;
        const std::uint64_t off = element * t.element_bytes;
        const exec::atomic_op op = state[si].atomics[ci].atomic_only(ti, off, t.element_bytes);
        if (op != state[si].atomics[earlier].atomic_only(ti, off, t.element_bytes)) return std::nullopt;
        return merge_atomic(op, a, b, R(d.finish(d.input(exec::input_ref{ti, t.name, element, t.shape, t.kind}))));
      } else {
        return std::nullopt;
      }
    };
    for (std::uint32_t ci = 0; ci < state[si].ctas.size(); ++ci)
      if (!collect.add(ci, std::move(state[si].runs[ci]), [](const R& a, const R& b) { return same_result(a, b); }, combine))
        break;
    out.push_back(std::move(collect).finish(d));
  }
  return out;
}

// One prepared kernel (see run_grids).
template <class D, class MakeDomain>
grid_run<typename D::result> run_grid(const prepared_kernel& k, MakeDomain&& make_domain, unsigned threads = 1,
                                      const exec::engine_options& options = {}, std::span<const exec::dim3> only = {}) {
  const prepared_kernel* one = &k;
  return std::move(run_grids<D>(std::span<const prepared_kernel* const>(&one, 1), make_domain, threads, options, only).front());
}

}  // namespace gpueq::check
