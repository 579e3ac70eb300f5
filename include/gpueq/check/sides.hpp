// The run stage of a check: every CTA of each side symbolically, on a thread pool, with the race
// context observing (intra-CTA races, barrier problems) and each CTA's global footprint recorded
// for the inter-CTA pass. What a side's run found is its side_report; its outputs are a
// kernel_run. check/driver.hpp screens the reports and compares the outputs.
#pragma once

#include <gpueq/check/compare.hpp>
#include <gpueq/check/prepared.hpp>
#include <gpueq/check/run.hpp>
#include <gpueq/check/spec.hpp>
#include <gpueq/exec.hpp>
#include <gpueq/race.hpp>
#include <gpueq/race/inter_cta.hpp>
#include <gpueq/support/parallel.hpp>
#include <gpueq/term/print.hpp>

#include <boost/unordered/unordered_flat_map.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <exception>
#include <memory>
#include <thread>
#include <bit>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <span>
#include <optional>
#include <string>
#include <vector>

namespace gpueq::check {

struct check_options {
  // Stop at the first differing element (as `gpueq check` does without --all): deciding every
  // element of a pair that differs everywhere means a counterexample search per element.
  compare_options compare = [] {
    compare_options c;
    c.stop_at_first_difference = true;
    return c;
  }();
  race::options race;  // the race analysis: warp_synchronous, strict_barriers (CUDA's __syncthreads rule), caps
  bool check_races = true;
  // Tolerate benign same-value races (two writes of the same value, CUDA's `if (...) flag = 1;`
  // from many threads): when every racy CTA's races are such WAWs and its barriers are in order,
  // the side's races are a note (side_report::benign_tolerated) instead of a finding.
  bool allow_benign = false;
  exec::engine_options engine;  // race.warp_synchronous also runs warps in lockstep
  bool float32_report = true;    // run both kernels in float32 too (check_result::float32)
  // Threads for the CTAs of both kernels and for the obligations (1: the calling thread only;
  // gpueq check defaults to every core). Results do not depend on it.
  unsigned threads = 1;
  // Progress on long runs: (phase, done, total), phase "run" counting CTAs of both kernels and
  // "decide" counting output elements. Called from the calling thread only.
  std::function<void(std::string_view, std::uint64_t, std::uint64_t)> progress;
  // The case split over comparisons of symbolic values (exec/case_split.hpp, check_kernels): at
  // most this many paths (runs of both kernels with one outcome per undecided comparison that a
  // run cannot go on without); past it the verdict is unknown, naming the budget. 0: no case
  // split, such a comparison stops the run as not structured.
  std::uint32_t max_paths = 4096;
};

struct side_report {
  std::string name;  // "reference" / "candidate"
  std::optional<exec::run_error> error;
  std::optional<exec::dim3> failed_cta;
  std::string race_text;  // formatted race/barrier report when not clean
  std::optional<exec::dim3> race_cta;       // the first CTA with a race or barrier problem
  std::optional<race::report> race_report;  // the race context's whole report of race_cta
  exec::run_info race_info;                 // that run's regions (array names) and warp size
  bool race_free = true, well_synchronized = true;
  // With check_options::allow_benign: every racy CTA had benign same-value races only (and no
  // barrier error), so race_text is a note and no finding. The report shown is then the first
  // such CTA's; a CTA with a harmful race is always the one shown.
  bool benign_tolerated = false;
  std::uint64_t steps = 0;
  std::uint32_t ctas = 0;
  std::vector<std::string> conflicts;
  double seconds = 0;  // running its CTAs (with the race context), summed over threads
  // Where reports point: the kernel's entry and, per instruction of the program that ran, its PTX
  // line and CUDA file:line (the prepared kernel's lines).
  std::string entry;
  std::uint32_t entry_line = 0;
  std::vector<race::source_line> lines;
};


// Makes the term of every element of the launch's input tensors, in canonical order (by tensor
// name, then row-major), before any CTA runs, when they number at most `limit`. A loop's products,
// whose factors it loads in increasing index, then reach store::dot in id order (a GEMM tile's
// dots need no sort, whatever order the threads first loaded them in), and run_sides' forks share
// them. Otherwise inputs are made when first loaded; either way the terms are the same.
inline void make_inputs(exec::symbolic_domain& d, const exec::launch& l, std::uint64_t limit = std::uint64_t{1} << 22) {
  std::uint64_t total = 0;
  for (auto& t : l.tensors)
    if (t.input && !t.contents) total += t.elements();
  if (total > limit) return;
  d.store().reserve(total);
  for (std::uint32_t ti = 0; ti < l.tensors.size(); ++ti) {
    const auto& t = l.tensors[ti];
    if (!t.input || t.contents) continue;  // given contents are no inputs
    for (std::uint64_t e = 0; e < t.elements(); ++e) d.input(exec::input_ref{ti, t.name, e, t.shape, t.kind});
  }
}

// Runs the CTAs of every side symbolically, as independent jobs on `options.threads` threads,
// with the race context observing. The calling thread runs its jobs in `s`; every other thread
// in a store of its own (a fork of `s`), whose outputs are imported into `s` afterwards (a CTA's
// terms do not depend on the store they are built in). Results are collected in grid order, so
// reports are the same for any number of threads: the first failing CTA of a side stops that
// side (later CTAs are skipped), the first CTA with a race report gives the side's race text, and
// the inter-CTA pass adds CTAs in grid order. Elements of inout tensors that no CTA wrote are
// left empty (they hold their input values; detail::fill_inout gives them those terms where the
// compare stage needs them).
// The case split of a check (exec/case_split.hpp, check_kernels): per side and CTA, the outcomes a
// run replays and, after run_sides, the path it took (its assumptions' terms in run_sides' store).
struct case_paths {
  std::vector<std::vector<exec::case_split>> runs;  // [side][CTA index]
  bool branched() const {
    for (auto& side : runs)
      for (auto& r : side)
        if (!r.taken.empty()) return true;
    return false;
  }
};

inline std::vector<side_report> run_sides(term::store& s, std::span<const prepared_kernel* const> sides,
                                          std::vector<kernel_run>& outs, const check_options& options,
                                          case_paths* paths = nullptr) {
  exec::engine_options engine = options.engine;
  engine.lockstep_warps = engine.lockstep_warps || options.race.warp_synchronous;
  struct job_result {
    bool ran = false;
    unsigned worker = 0;
    cta_run<term::term_id> run;
    race::cta_footprint footprint;
    exec::run_info info;
    std::optional<race::report> races;  // when not clean
    bool incomplete = false;            // it wrote an input-only tensor whose reads went unrecorded
    double seconds = 0;
  };
  std::vector<std::vector<exec::dim3>> ctas(sides.size());
  std::vector<std::vector<job_result>> results(sides.size());
  std::size_t total = 0;
  for (std::size_t si = 0; si < sides.size(); ++si) {
    ctas[si] = sides[si]->ctas;
    results[si].resize(ctas[si].size());
    total += ctas[si].size();
  }
  if (paths) {
    paths->runs.resize(sides.size());
    for (std::size_t si = 0; si < sides.size(); ++si) paths->runs[si].resize(ctas[si].size());
  }
  const unsigned threads = cta_workers(ctas, options.threads);
  // Each worker runs its jobs in a store of its own (the calling thread in s), with its own domain
  // and race contexts.
  struct worker_state {
    std::unique_ptr<term::store> own;
    term::store& store;
    exec::symbolic_domain d;
    race::context skip_ctx, full_ctx;
    worker_state(std::unique_ptr<term::store> o, term::store& st, const race::options& ro)
        : own(std::move(o)), store(st), d(store), skip_ctx(with_skip(ro, true)), full_ctx(with_skip(ro, false)) {}
    static race::options with_skip(race::options o, bool skip) {
      o.skip_input_reads = skip;
      return o;
    }
  };
  // The other workers' stores are forks of s taken after its inputs are made (make_inputs): what s
  // held then has the same ids in every store, so importing their outputs maps no input.
  std::vector<std::unique_ptr<worker_state>> workers;
  workers.push_back(std::make_unique<worker_state>(nullptr, s, options.race));
  // (Not when a side runs only some CTAs of its grid: those read a part of the inputs.)
  const bool whole_grids =
      std::all_of(sides.begin(), sides.end(), [](const prepared_kernel* k) { return k->kernel.ctas.empty(); });
  if (!sides.empty() && whole_grids) make_inputs(workers[0]->d, sides[0]->launch);
  for (unsigned t = 1; t < threads; ++t) {
    auto own = std::make_unique<term::store>(s);
    term::store& st = *own;
    workers.push_back(std::make_unique<worker_state>(std::move(own), st, options.race));
  }
  // Two passes through the grid runner. The first leaves reads of input-only tensors unrecorded
  // (race::options::skip_input_reads: a GEMM's bulk of accesses); a side with a CTA that writes
  // one anyway runs all its CTAs again recording everything (`full`), since its intra-CTA report
  // and its inter-CTA footprints both need those reads.
  std::vector<char> full(sides.size(), 0);
  std::atomic<std::size_t> finished{0};
  auto run_job = [&](unsigned w, std::size_t si, std::uint32_t ci, const exec::launch& l) {
    worker_state& ws = *workers[w];
    race::context& ctx = full[si] ? ws.full_ctx : ws.skip_ctx;
    job_result& r = results[si][ci];
    r.worker = w;
    auto t0 = std::chrono::steady_clock::now();
    if (paths) {  // a fresh path that replays its prescribed outcomes
      exec::case_split& c = paths->runs[si][ci];
      c = exec::case_split{std::move(c.prescribed), {}, {}, {}};
      ws.d.attach(&c);
    }
    struct detach {
      exec::symbolic_domain& d;
      ~detach() { d.attach(nullptr); }
    } detach_after{ws.d};
    if (options.check_races) {
      race::recording_observer obs{&ctx, &r.footprint};
      r.run = run_cta(ws.d, sides[si]->symbolic_program, l, obs, engine);
      r.info = ctx.info();
      r.incomplete = ctx.incomplete();
      if (!ctx.result().clean()) r.races = ctx.take_result();
    } else {
      exec::null_observer none;
      r.run = run_cta(ws.d, sides[si]->symbolic_program, l, none, engine);
    }
    r.ran = true;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++finished;
    if (w == 0 && options.progress) options.progress("run", finished.load(), total);
    return r.run.error.has_value();
  };
  run_ctas(sides, ctas, threads, run_job);
  if (options.check_races) {
    bool again = false;
    for (std::size_t si = 0; si < sides.size(); ++si) {
      for (auto& r : results[si])
        if (r.ran && r.incomplete) full[si] = 1;
      if (full[si]) {
        for (auto& r : results[si]) r = job_result{};
        total += ctas[si].size();
        again = true;
      } else {
        ctas[si].clear();  // not run again
      }
    }
    if (again) run_ctas(sides, ctas, threads, run_job);
  }

  // The other workers' outputs (and the assumptions of their paths) into s, each worker's at once
  // (store::import_all: the lookups of a GEMM's long dots on all threads, which would otherwise
  // wait for one thread to import them).
  for (unsigned w = 1; w < threads; ++w) {
    std::vector<term::term_id*> places;
    for (std::size_t si = 0; si < sides.size(); ++si)
      for (std::uint32_t ci = 0; ci < results[si].size(); ++ci) {
        job_result& jr = results[si][ci];
        if (!jr.ran || jr.worker != w) continue;
        for (auto& written : jr.run.written)
          for (auto& [i, v] : written) places.push_back(&v);
        if (paths)
          for (auto& a : paths->runs[si][ci].assumed) {
            places.push_back(&a.a);
            places.push_back(&a.b);
          }
      }
    std::vector<term::term_id> roots(places.size());
    for (std::size_t i = 0; i < places.size(); ++i) roots[i] = *places[i];
    std::vector<term::term_id> memo;
    s.import_all(workers[w]->store, roots, memo, threads);
    for (std::size_t i = 0; i < places.size(); ++i) *places[i] = roots[i];
  }

  // Collect, side by side, in grid order.
  std::vector<side_report> reports;
  outs.assign(sides.size(), {});
  for (std::size_t si = 0; si < sides.size(); ++si) {
    const prepared_kernel& k = *sides[si];
    side_report r;
    r.name = sides[si]->name;
    const ptx::function& f = sides[si]->lifted->functions[sides[si]->entry];
    r.entry = std::string(sides[si]->lifted->str(f.name));
    r.entry_line = f.line;
    r.lines = sides[si]->lines;
    grid_collector<term::term_id> collect(k.launch, k.ctas);
    race::grid_footprint grid;
    exec::symbolic_domain inputs(s);
    // An element of an inout tensor that CTAs only updated by atomics of one commuting operation
    // (the inter-CTA pass found no race on it) is what every CTA's contribution gives together:
    // each CTA ran from the input value x, so a + (b - x) for add, max(a, b) and min(a, b).
    auto combine = [&](std::uint32_t ti, std::uint64_t element, std::uint32_t earlier, std::uint32_t ci,
                       term::term_id a, term::term_id b) -> std::optional<term::term_id> {
      if (!options.check_races) return std::nullopt;  // no footprints were recorded
      return merge_atomic_updates(inputs, k.launch, ti, element, results[si][earlier].footprint, results[si][ci].footprint, a, b);
    };
    for (std::uint32_t ci = 0; ci < k.ctas.size(); ++ci) {
      job_result& jr = results[si][ci];
      if (!jr.ran) continue;
      r.seconds += jr.seconds;
      const bool tolerable =
          jr.races && options.allow_benign && jr.races->only_benign_races() && jr.races->well_synchronized();
      if (jr.races && (r.race_text.empty() || (r.benign_tolerated && !tolerable))) {
        r.benign_tolerated = tolerable;
        r.race_free = jr.races->race_free();
        r.well_synchronized = jr.races->well_synchronized();
        r.race_text = "CTA " + cta_name(k.ctas[ci]) + ":\n" + race::format(*jr.races, jr.info, k.lines);
        r.race_cta = k.ctas[ci];
        r.race_report = std::move(jr.races);
        r.race_info = jr.info;  // a copy: the inter-CTA pass below reads it too
      }
      if (options.check_races) grid.add(static_cast<std::int32_t>(ci), k.ctas[ci], jr.footprint, jr.info);
      collect.add(ci, std::move(jr.run), [](term::term_id a, term::term_id b) { return a == b; }, combine);
    }
    inputs.end_run();
    exec::symbolic_domain d(s);
    outs[si] = std::move(collect).finish(d, /*fill_inout=*/false);  // the compare stage fills what it needs
    if (grid.conflict()) r.conflicts.push_back(*grid.conflict());
    r.error = outs[si].error;
    r.failed_cta = outs[si].failed_cta;
    r.steps = outs[si].steps;
    r.ctas = outs[si].ctas;
    r.conflicts.insert(r.conflicts.end(), outs[si].conflicts.begin(), outs[si].conflicts.end());
    reports.push_back(std::move(r));
  }
  return reports;
}

// Runs one side (see run_sides).
inline side_report run_side(term::store& s, const prepared_kernel& k, kernel_run& out, const check_options& options) {
  const prepared_kernel* one = &k;
  std::vector<kernel_run> outs;
  side_report r = std::move(run_sides(s, std::span<const prepared_kernel* const>(&one, 1), outs, options).front());
  out = std::move(outs.front());
  return r;
}

}  // namespace gpueq::check
