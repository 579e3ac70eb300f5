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
#include <gpueq/race/inter_cta.hpp>
#include <gpueq/race/ptx_source.hpp>
#include <gpueq/support/parallel.hpp>

#include <algorithm>
#include <array>
#include <atomic>
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
  std::vector<race::source_line> lines;  // of symbolic_program's function, whose instructions race reports index
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
  // The program's own function: with calls inlined, a copy (exec::program::owned) whose
  // instructions are the ones race reports index.
  p.lines = race::source_lines(*p.symbolic_program.module, *p.symbolic_program.function);
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

// The one grid runner. Every stage that runs CTAs goes through it: the symbolic run of a check
// with its race context (run_sides, check/sides.hpp), the float32 side report, counterexample
// replay, race witnesses and `gpueq run` (run_grids below). It calls
//   job(worker, side, index, launch) -> bool (true: the CTA failed)
// for CTA `ctas[side][index]` of every side, as independent jobs on at most `threads` threads
// (worker 0 is the calling thread; cta_workers() says how many there will be, so that a caller
// can set up per-worker state, a domain or a term store, before the run). The sides with fewer
// (larger) CTAs start first, so that a big CTA does not start last and run alone. Once a CTA of a
// side failed, the side's later CTAs are not run (earlier ones still are): collecting the results
// in grid order then stops at the first failure whatever the number of threads. Returns, per side
// and CTA, whether the CTA ran.
inline unsigned cta_workers(std::span<const std::vector<exec::dim3>> ctas, unsigned threads) {
  std::size_t jobs = 0;
  for (auto& c : ctas) jobs += c.size();
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads, jobs)));
}

template <class Job>
std::vector<std::vector<char>> run_ctas(std::span<const prepared_kernel* const> sides,
                                        std::span<const std::vector<exec::dim3>> ctas, unsigned threads, Job&& job) {
  std::vector<std::size_t> order(sides.size());
  for (std::size_t si = 0; si < sides.size(); ++si) order[si] = si;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ctas[a].size() < ctas[b].size(); });
  std::vector<std::pair<std::size_t, std::uint32_t>> jobs;  // (side, CTA index)
  for (std::size_t si : order)
    for (std::uint32_t ci = 0; ci < ctas[si].size(); ++ci) jobs.emplace_back(si, ci);
  std::vector<std::vector<char>> ran(sides.size());
  // The first CTA of each side that failed so far.
  std::unique_ptr<std::atomic<std::uint32_t>[]> stop(new std::atomic<std::uint32_t>[sides.size()]);
  for (std::size_t si = 0; si < sides.size(); ++si) {
    ran[si].assign(ctas[si].size(), 0);
    stop[si] = UINT32_MAX;
  }
  support::parallel_for(cta_workers(ctas, threads), jobs.size(), [&](unsigned w, std::size_t at) {
    auto [si, ci] = jobs[at];
    if (ci > stop[si].load()) return;
    exec::launch l = sides[si]->launch;
    l.cta = ctas[si][ci];
    ran[si][ci] = 1;
    if (job(w, si, ci, static_cast<const exec::launch&>(l)))
      for (std::uint32_t f = stop[si].load(); ci < f && !stop[si].compare_exchange_weak(f, ci);) {
      }
  });
  return ran;
}

// Unobserved runs of whole grids (the float32 side report, counterexample replay, race witnesses,
// `gpueq run`): every CTA of each prepared kernel (or the CTAs `only` names) through run_ctas, in a
// domain per worker from make_domain(). Results are collected per side in grid order
// (grid_collector), so they do not depend on `threads`. With fill_inout false, elements of inout
// tensors that no CTA wrote stay empty instead of getting their input values (a comparison of two
// runs on the same inputs needs only what either wrote).
// The float32 domain runs the unlifted program (what the GPU runs); the exact and symbolic domains,
// which compute over the rationals and reals, run the lifted one (nvcc's math sequences as the
// real functions they approximate).
template <class D>
const exec::program& program_for(const prepared_kernel& k) {
  return std::is_same_v<D, exec::float32_domain> ? k.float32_program : k.symbolic_program;
}

template <class D, class MakeDomain>
std::vector<grid_run<typename D::result>> run_grids(std::span<const prepared_kernel* const> sides, MakeDomain&& make_domain,
                                                    unsigned threads = 1, const exec::engine_options& options = {},
                                                    std::span<const exec::dim3> only = {}, bool fill_inout = true) {
  using R = typename D::result;
  std::vector<std::vector<exec::dim3>> ctas(sides.size());
  std::vector<std::vector<cta_run<R>>> runs(sides.size());
  std::vector<std::vector<race::cta_footprint>> atomics(sides.size());  // per CTA: its global atomics
  for (std::size_t si = 0; si < sides.size(); ++si) {
    ctas[si] = only.empty() ? sides[si]->ctas : std::vector<exec::dim3>(only.begin(), only.end());
    runs[si].resize(ctas[si].size());
    atomics[si].resize(ctas[si].size());
  }
  // One domain per worker, made at its first CTA and kept for the others (run_cta ends each run
  // in it): what a domain builds once, the symbolic domain's chunk pool and input terms, is then
  // built once per worker, not once per CTA.
  std::vector<std::unique_ptr<D>> domains(cta_workers(ctas, threads));
  auto ran = run_ctas(sides, ctas, threads, [&](unsigned w, std::size_t si, std::uint32_t ci, const exec::launch& l) {
    if (!domains[w]) domains[w].reset(new D(make_domain()));  // (D need not be movable)
    race::atomic_observer observer{&atomics[si][ci], {}};
    runs[si][ci] = run_cta(*domains[w], program_for<D>(*sides[si]), l, observer, options);
    return runs[si][ci].error.has_value();
  });
  std::vector<grid_run<R>> out;
  for (std::size_t si = 0; si < sides.size(); ++si) {
    const exec::launch& l = sides[si]->launch;
    grid_collector<R> collect(l, ctas[si]);
    D d = make_domain();
    // Elements that CTAs updated only by atomics of one commuting operation (merge_atomic_updates).
    auto combine = [&](std::uint32_t ti, std::uint64_t element, std::uint32_t earlier, std::uint32_t ci, const R& a,
                       const R& b) {
      return merge_atomic_updates(d, l, ti, element, atomics[si][earlier], atomics[si][ci], a, b);
    };
    for (std::uint32_t ci = 0; ci < ctas[si].size() && ran[si][ci]; ++ci)
      if (!collect.add(ci, std::move(runs[si][ci]), [](const R& a, const R& b) { return same_result(a, b); }, combine))
        break;
    out.push_back(std::move(collect).finish(d, fill_inout));
  }
  return out;
}

// One prepared kernel (see run_grids).
template <class D, class MakeDomain>
grid_run<typename D::result> run_grid(const prepared_kernel& k, MakeDomain&& make_domain, unsigned threads = 1,
                                      const exec::engine_options& options = {}, std::span<const exec::dim3> only = {},
                                      bool fill_inout = true) {
  const prepared_kernel* one = &k;
  return std::move(
      run_grids<D>(std::span<const prepared_kernel* const>(&one, 1), make_domain, threads, options, only, fill_inout).front());
}

}  // namespace gpueq::check
