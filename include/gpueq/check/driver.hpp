// Checking a pair end to end: parse both kernels, lift nvcc's math idioms, run every CTA of both
// symbolically in one term store with the race context observing, and then decide one obligation
// per output element. What `gpueq check` prints and what the corpus test asserts come from here,
// so the tool and the tests take the same path.
//
// Order of verdicts: a run error (deadlock, out-of-bounds, uninitialized read, not a structured
// CTA, unsupported instruction) or a race/barrier problem in either kernel is reported *instead*
// of an equivalence verdict: outputs of a racy kernel depend on the schedule, so comparing the
// one schedule we ran would prove nothing (VOLTA §4).
#pragma once

#include <gpueq/check/compare.hpp>
#include <gpueq/check/run.hpp>
#include <gpueq/check/spec.hpp>
#include <gpueq/exec.hpp>
#include <gpueq/race.hpp>
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

enum class verdict { equivalent, different, race, deadlock, out_of_bounds, unknown };

inline std::string_view name(verdict v) {
  constexpr std::string_view names[] = {"equivalent", "not-equivalent", "race", "deadlock", "out-of-bounds", "unknown"};
  return names[static_cast<std::size_t>(v)];
}

// Does a verdict meet a spec's "expect"?
inline bool meets(verdict v, expectation e) {
  switch (e) {
    case expectation::equivalent: return v == verdict::equivalent;
    case expectation::different: return v == verdict::different;
    case expectation::race: return v == verdict::race;
    case expectation::deadlock: return v == verdict::deadlock;
    case expectation::out_of_bounds: return v == verdict::out_of_bounds;
  }
  return false;
}

struct check_options {
  // Stop at the first differing element (as `gpueq check` does without --all): deciding every
  // element of a pair that differs everywhere means a counterexample search per element.
  compare_options compare = [] {
    compare_options c;
    c.stop_at_first_difference = true;
    return c;
  }();
  race::options race;
  bool check_races = true;
  exec::engine_options engine;  // race.warp_synchronous also runs warps in lockstep
  bool float32_report = true;    // run both kernels in float32 too (check_result::float32)
  // Threads for the CTAs of both kernels and for the obligations (1: the calling thread only;
  // gpueq check defaults to every core). Results do not depend on it.
  unsigned threads = 1;
  // Progress on long runs: (phase, done, total), phase "run" counting CTAs of both kernels and
  // "decide" counting output elements. Called from the calling thread only.
  std::function<void(std::string_view, std::uint64_t, std::uint64_t)> progress;
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
  std::uint64_t steps = 0;
  std::uint32_t ctas = 0;
  std::vector<std::string> conflicts;
  double seconds = 0;  // running its CTAs (with the race context), summed over threads
};

// A concrete input on which the kernels differ over the reals, replayed on both kernels in the
// float32 domain (what the GPU computes) before it is reported. Every input tensor is filled:
// the elements the differing output depends on with the decision procedure's witness values,
// the others with fixed pseudo-random values in [-1, 1], rounded to their format.
struct counterexample_report {
  std::string tensor;
  std::uint64_t index = 0;
  std::string real_reference, real_candidate;  // the exact (real) outputs at the witness point
  std::map<std::string, std::vector<double>> tensors;  // every input tensor, row-major
  std::map<std::string, double> scalars;               // symbolic scalars
  std::optional<double> float_reference, float_candidate;  // float32 runs (nullopt: the run failed)
  std::string float_note;  // why a float32 run gave no value, or that both agree
};

struct check_result {
  verdict v = verdict::unknown;
  std::string summary;  // one paragraph for people
  side_report reference, candidate;
  std::optional<comparison> compared;
  std::vector<std::string> examples;  // differing elements: both expressions, truncated
  std::optional<counterexample_report> counterexample;
  // Side report: both kernels run in float32 on the same seeded random inputs (what users see on
  // a GPU next to the proof). Empty when either float32 run failed.
  struct float32_report {
    double max_abs = 0, max_rel = 0;  // over every element both kernels write
    std::uint64_t elements = 0;
    std::string worst;  // tensor[index] of the largest absolute difference
  };
  std::optional<float32_report> float32;
  double run_seconds = 0, decide_seconds = 0;
  std::size_t terms = 0;
};

namespace detail {

// The global words one CTA touched (bit 1: read, bit 2: written), for the inter-CTA pass.
struct cta_footprint {
  boost::unordered_flat_map<std::uint64_t, std::uint8_t> words;  // region << 44 | word
  void access(const exec::access& a, const exec::run_info& info) {
    if (info.regions[a.region].space != exec::memory_space::global) return;
    std::uint8_t bit = a.kind == exec::access_kind::read ? 1 : 2;
    for (std::uint64_t w = a.offset >> 2; w <= (a.offset + a.width - 1) >> 2; ++w)
      words[(std::uint64_t{a.region} << 44) | w] |= bit;
  }
};

// Inter-CTA races on global memory (L&T's global non-interference): CTAs run independently, so
// the race context cannot see two CTAs meet; instead every global word remembers the CTAs that
// wrote and read it, and a word written by one CTA and touched by another is a race (its final
// value, or what the other CTA read, depends on the order of the CTAs). CTAs are added in grid
// order, so the conflict reported is the same whatever order they ran in.
class grid_footprint {
 public:
  void add(std::int32_t cta, exec::dim3 id, const cta_footprint& f, const exec::run_info& info) {
    if (ids_.size() <= static_cast<std::size_t>(cta)) ids_.resize(static_cast<std::size_t>(cta) + 1);
    ids_[static_cast<std::size_t>(cta)] = id;
    if (conflict_) return;
    for (auto [key, bits] : f.words) {
      word& x = words_[key];
      bool write = bits & 2;
      std::int64_t other = -1;
      bool other_wrote = false;
      if (x.writer >= 0) other = x.writer, other_wrote = true;
      else if (write && x.reader >= 0) other = x.reader;
      if (write) x.writer = cta;
      if (x.reader < 0) x.reader = cta;
      if (other >= 0 && !conflict_) {
        std::uint32_t region = static_cast<std::uint32_t>(key >> 44);
        std::uint64_t w = key & ((std::uint64_t{1} << 44) - 1);
        const auto& r = info.regions[region];
        std::uint64_t unit = r.element_bytes ? r.element_bytes : 4;
        conflict_ = r.name + "[" + std::to_string((w << 2) / unit) + "] is " + (write ? "written" : "read") + " by CTA " +
                    cta_name(id) + " and " + (other_wrote ? "written" : "read") + " by CTA " +
                    cta_name(ids_[static_cast<std::size_t>(other)]) + " (the result depends on the order of the CTAs)";
      }
    }
  }
  const std::optional<std::string>& conflict() const { return conflict_; }

 private:
  struct word {
    std::int32_t writer = -1, reader = -1;  // the first CTA that wrote / touched it
  };
  boost::unordered_flat_map<std::uint64_t, word> words_;
  std::vector<exec::dim3> ids_;
  std::optional<std::string> conflict_;
};

// The race context, with every global access also recorded in the CTA's footprint.
struct recording_observer {
  race::context* ctx = nullptr;
  cta_footprint* footprint = nullptr;
  void on_start(const exec::run_info& i) { ctx->on_start(i); }
  void on_access(const exec::access& a) {
    ctx->on_access(a);
    if (a.kind != exec::access_kind::read || !ctx->skips_reads(a.region)) footprint->access(a, ctx->info());
  }
  void on_barrier_register(const exec::barrier_registration& r, exec::barrier_key k, std::uint32_t g, std::uint32_t e) {
    ctx->on_barrier_register(r, k, g, e);
  }
  void on_barrier_complete(const exec::barrier_instance& b) { ctx->on_barrier_complete(b); }
  void on_exit(std::uint32_t t) { ctx->on_exit(t); }
};

inline verdict verdict_of(const exec::run_error& e) {
  switch (e.kind) {
    case exec::error_kind::deadlock: case exec::error_kind::barrier: return verdict::deadlock;
    case exec::error_kind::out_of_bounds: case exec::error_kind::misaligned: case exec::error_kind::uninitialized:
      return verdict::out_of_bounds;
    default: return verdict::unknown;
  }
}

// A term printed for a report: the printer stops after about n characters (a GEMM output is a
// DAG whose full text would be enormous).
inline std::string short_text(const term::store& s, term::term_id t, std::size_t n = 400) {
  term::print_options o;
  o.max_chars = n;
  return term::to_string(s, t, o);
}

}  // namespace detail

// One side to run: a lifted module's entry under a kernel spec.
struct side_input {
  const ptx::module* lifted;
  std::size_t entry;
  const kernel_spec* kernel;
  const char* name;  // "reference" / "candidate"
};

// Makes the term of every element of the launch's input tensors, in canonical order (by tensor
// name, then row-major), before any CTA runs, when they number at most `limit`. A loop's products,
// whose factors it loads in increasing index, then reach store::dot in id order (a GEMM tile's
// dots need no sort, whatever order the threads first loaded them in), and run_sides' forks share
// them. Otherwise inputs are made when first loaded; either way the terms are the same.
inline void make_inputs(exec::symbolic_domain& d, const exec::launch& l, std::uint64_t limit = std::uint64_t{1} << 22) {
  std::uint64_t total = 0;
  for (auto& t : l.tensors)
    if (t.input) total += t.elements();
  if (total > limit) return;
  d.store().reserve(total);
  for (std::uint32_t ti = 0; ti < l.tensors.size(); ++ti) {
    const auto& t = l.tensors[ti];
    if (!t.input) continue;
    for (std::uint64_t e = 0; e < t.elements(); ++e) d.input(exec::input_ref{ti, t.name, e, t.shape, t.kind});
  }
}

// Runs the CTAs of every side symbolically, as independent jobs on `options.threads` threads,
// with the race context observing. The calling thread runs its jobs in `s`; every other thread
// in a store of its own (a fork of `s`), whose outputs are imported into `s` afterwards (a CTA's
// terms do not depend on the store they are built in). Results are collected in grid order, so
// reports are the same for any number of threads: the first failing CTA of a side stops that
// side (later CTAs are skipped), the first CTA with a race report gives the side's race text, and
// the inter-CTA pass adds CTAs in grid order.
inline std::vector<side_report> run_sides(term::store& s, const pair_spec& spec, std::span<const side_input> sides,
                                          std::vector<kernel_run>& outs, const check_options& options) {
  exec::engine_options engine = options.engine;
  engine.lockstep_warps = engine.lockstep_warps || options.race.warp_synchronous;
  struct side_state {
    exec::program program;
    std::vector<race::source_line> lines;
    exec::launch launch;
    std::vector<exec::dim3> ctas;
    std::atomic<std::uint32_t> stop{UINT32_MAX};  // the first CTA that failed, so far
  };
  struct job_result {
    bool ran = false;
    unsigned worker = 0;
    cta_run<term::term_id> run;
    detail::cta_footprint footprint;
    exec::run_info info;
    std::optional<race::report> races;  // when not clean
    bool incomplete = false;            // it wrote an input-only tensor whose reads went unrecorded
    double seconds = 0;
  };
  std::vector<std::unique_ptr<side_state>> state;
  std::vector<std::pair<std::size_t, std::uint32_t>> jobs;  // (side, CTA number)
  for (std::size_t si = 0; si < sides.size(); ++si) {
    auto st = std::make_unique<side_state>();
    const ptx::module& m = *sides[si].lifted;
    st->program = exec::decode(m, m.functions[sides[si].entry]);
    st->lines = race::source_lines(m, m.functions[sides[si].entry]);
    st->launch = make_launch(spec, *sides[si].kernel);
    st->ctas = ctas_of(*sides[si].kernel);
    for (std::uint32_t ci = 0; ci < st->ctas.size(); ++ci) jobs.emplace_back(si, ci);
    state.push_back(std::move(st));
  }
  std::vector<job_result> results(jobs.size());
  unsigned threads = std::max(1u, std::min<unsigned>(options.threads, static_cast<unsigned>(jobs.size())));
  // Each thread runs its jobs in a store of its own (the calling thread in s), with its own domain
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
  // The other threads' stores are forks of s taken after its inputs are made (make_inputs): what s
  // held then has the same ids in every store, so importing their outputs maps no input.
  std::vector<std::unique_ptr<worker_state>> workers;
  workers.push_back(std::make_unique<worker_state>(nullptr, s, options.race));
  // (Not when a side runs only some CTAs of its grid: those read a part of the inputs.)
  const bool whole_grids =
      std::all_of(sides.begin(), sides.end(), [](const side_input& in) { return in.kernel->ctas.empty(); });
  if (!state.empty() && whole_grids) make_inputs(workers[0]->d, state[0]->launch);
  for (unsigned t = 1; t < threads; ++t) {
    auto own = std::make_unique<term::store>(s);
    term::store& st = *own;
    workers.push_back(std::make_unique<worker_state>(std::move(own), st, options.race));
  }
  // The jobs of a pass, in the order they start: the sides with the fewest CTAs first (their CTAs
  // are the largest when both sides compute the same outputs), so that one big CTA does not start
  // last and run alone. The first pass leaves reads of input-only tensors unrecorded
  // (race::options::skip_input_reads: a GEMM's bulk of accesses); a side with a CTA that writes
  // one anyway runs all its CTAs again recording everything (`full`), since its intra-CTA report
  // and its inter-CTA footprints both need those reads.
  std::vector<std::size_t> todo(jobs.size());
  std::iota(todo.begin(), todo.end(), std::size_t{0});
  std::stable_sort(todo.begin(), todo.end(), [&](std::size_t a, std::size_t b) {
    return state[jobs[a].first]->ctas.size() < state[jobs[b].first]->ctas.size();
  });
  std::vector<char> full(sides.size(), 0);
  std::size_t total = jobs.size();
  std::atomic<std::size_t> finished{0};

  auto run_job = [&](unsigned w, std::size_t i) {
    worker_state& ws = *workers[w];
    std::size_t j = todo[i];
    auto [si, ci] = jobs[j];
    race::context& ctx = full[si] ? ws.full_ctx : ws.skip_ctx;
    side_state& st = *state[si];
    if (ci > st.stop.load()) return;
    exec::launch l = st.launch;
    l.cta = st.ctas[ci];
    job_result& r = results[j];
    r.worker = w;
    auto t0 = std::chrono::steady_clock::now();
    if (options.check_races) {
      detail::recording_observer obs{&ctx, &r.footprint};
      r.run = run_cta(ws.d, st.program, l, obs, engine);
      r.info = ctx.info();
      r.incomplete = ctx.incomplete();
      if (!ctx.result().clean()) r.races = ctx.take_result();
    } else {
      exec::null_observer none;
      r.run = run_cta(ws.d, st.program, l, none, engine);
    }
    r.ran = true;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++finished;
    if (w == 0 && options.progress) options.progress("run", finished.load(), total);
    if (r.run.error)
      for (std::uint32_t f = st.stop.load(); ci < f && !st.stop.compare_exchange_weak(f, ci);) {
      }
  };
  support::parallel_for(threads, todo.size(), run_job);
  if (options.check_races) {
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (results[j].ran && results[j].incomplete) full[jobs[j].first] = 1;
    std::erase_if(todo, [&](std::size_t j) { return !full[jobs[j].first]; });
    for (std::size_t j : todo) results[j] = job_result{};
    total += todo.size();
    if (!todo.empty()) support::parallel_for(threads, todo.size(), run_job);
  }

  // Collect, side by side, in grid order.
  std::vector<side_report> reports;
  outs.assign(sides.size(), {});
  std::vector<std::vector<term::term_id>> memo(threads);
  std::size_t j = 0;
  for (std::size_t si = 0; si < sides.size(); ++si) {
    side_state& st = *state[si];
    side_report r;
    r.name = sides[si].name;
    grid_collector<term::term_id> collect(st.launch, st.ctas);
    detail::grid_footprint grid;
    for (std::uint32_t ci = 0; ci < st.ctas.size(); ++ci, ++j) {
      job_result& jr = results[j];
      if (!jr.ran) continue;
      r.seconds += jr.seconds;
      if (jr.races && r.race_text.empty()) {
        r.race_free = jr.races->race_free();
        r.well_synchronized = jr.races->well_synchronized();
        r.race_text = "CTA " + cta_name(st.ctas[ci]) + ":\n" + race::format(*jr.races, jr.info, st.lines);
        r.race_cta = st.ctas[ci];
        r.race_report = std::move(jr.races);
        r.race_info = jr.info;  // a copy: the inter-CTA pass below reads it too
      }
      if (options.check_races) grid.add(static_cast<std::int32_t>(ci), st.ctas[ci], jr.footprint, jr.info);
      if (jr.worker != 0)
        for (auto& written : jr.run.written)
          for (auto& [i, v] : written) v = s.import(workers[jr.worker]->store, v, memo[jr.worker]);
      collect.add(ci, std::move(jr.run), [](term::term_id a, term::term_id b) { return a == b; });
    }
    exec::symbolic_domain d(s);
    outs[si] = std::move(collect).finish(d);
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
inline side_report run_side(term::store& s, const ptx::module& lifted, std::size_t entry, const pair_spec& spec,
                            const kernel_spec& k, const char* side, kernel_run& out, const check_options& options) {
  side_input in{&lifted, entry, &k, side};
  std::vector<kernel_run> outs;
  side_report r = std::move(run_sides(s, spec, std::span<const side_input>(&in, 1), outs, options).front());
  out = std::move(outs.front());
  return r;
}

namespace detail {

inline std::uint64_t flat_index(std::span<const std::uint32_t> idx, const std::vector<std::uint64_t>& shape) {
  std::uint64_t f = 0;
  for (std::size_t d = 0; d < idx.size() && d < shape.size(); ++d) f = f * shape[d] + idx[d];
  return f;
}

inline double format_value(double v, dtype d) {
  if (!is_float(d)) return std::nearbyint(v);
  return exec::floats::round_to(v, rkind_of(d));
}

// Concrete inputs by name: tensors row-major (outputs empty) and symbolic scalars (one value).
using concrete_inputs = std::map<std::string, std::vector<double>>;

// Seeded pseudo-random inputs: floats in [-1, 1), integers in [-8, 8], rounded to their formats;
// symbolic scalars 0.75.
inline concrete_inputs random_inputs(const pair_spec& spec, std::uint64_t seed) {
  concrete_inputs in;
  for (auto& [name, t] : spec.tensors) {
    auto& v = in[name];
    v.resize(t.use == role::output ? 0 : t.elements());
    for (auto& x : v) {
      seed = support::mix64(seed + 0x632be59bd9b4e019ull);
      x = format_value((static_cast<double>(seed >> 11) / static_cast<double>(1ull << 53) * 2 - 1) * (is_float(t.type) ? 1 : 8),
                       t.type);
    }
  }
  for (auto& [name, sc] : spec.scalars)
    if (sc.symbolic) in[name] = {0.75};
  return in;
}

// Element i of input `name`: a tensor element, or a scalar (from `tensors` or `scalars`); 0 for
// anything not given.
inline double input_value(const concrete_inputs& tensors, const std::map<std::string, double>& scalars,
                          std::string_view name, std::uint64_t i) {
  if (auto it = tensors.find(std::string(name)); it != tensors.end() && i < it->second.size()) return it->second[i];
  if (auto it = scalars.find(std::string(name)); it != scalars.end()) return it->second;
  return 0;
}

// The float32 domain's input function over concrete inputs (which must outlive it).
inline auto source_of(const concrete_inputs& in) {
  return [&in](const exec::input_ref& r) { return input_value(in, {}, r.name, r.element); };
}

// Largest absolute and relative difference over the elements both sides give.
template <class A, class B>
check_result::float32_report difference(const std::map<std::string, A>& a, const std::map<std::string, B>& b) {
  auto value = [](const auto& element) -> std::optional<double> { return element; };
  check_result::float32_report r;
  for (auto& [name, va] : a) {
    auto it = b.find(name);
    if (it == b.end()) continue;
    const auto& vb = it->second;
    for (std::size_t i = 0; i < va.size() && i < vb.size(); ++i) {
      std::optional<double> x = value(va[i]), y = value(vb[i]);
      if (!x || !y) continue;
      ++r.elements;
      double d = std::fabs(*x - *y);
      if (std::isnan(d)) d = INFINITY;
      if (d > r.max_abs || r.worst.empty()) {
        r.max_abs = std::max(r.max_abs, d);
        r.worst = name + "[" + std::to_string(i) + "]";
      }
      double scale = std::max(std::fabs(*x), std::fabs(*y));
      if (scale > 0) r.max_rel = std::max(r.max_rel, d / scale);
    }
  }
  return r;
}

// The comparison's options under a check's: its threads and its progress ("decide").
inline compare_options compare_options_of(const check_options& options) {
  compare_options co = options.compare;
  co.threads = std::max(co.threads, options.threads);
  if (options.progress && !co.progress) {
    co.progress = [progress = options.progress](std::uint64_t done, std::uint64_t total) { progress("decide", done, total); };
    co.progress_every = 256;
  }
  return co;
}

// A run error, race report or inter-CTA conflict of any side becomes the verdict (in that order:
// errors first); true when one did.
inline bool run_problem(check_result& res, std::initializer_list<const side_report*> sides) {
  for (const side_report* side : sides)
    if (side->error) {
      res.v = verdict_of(*side->error);
      res.summary = side->name + " kernel, CTA " + cta_name(*side->failed_cta) + ": " + side->error->message;
      return true;
    }
  for (const side_report* side : sides)
    if (!side->race_text.empty()) {
      res.v = side->race_free ? verdict::deadlock : verdict::race;
      res.summary = side->name + " kernel is " + (side->race_free ? "not well-synchronized" : "racy") + ":\n" + side->race_text;
      return true;
    }
  for (const side_report* side : sides)
    if (!side->conflicts.empty()) {
      res.v = verdict::race;
      res.summary = side->name + " kernel: two CTAs write one output element (an inter-CTA race): " + side->conflicts.front();
      return true;
    }
  return false;
}

// How a comparison's result is worded: the reference side's name, what `what` says was checked,
// and the phrases for a proof and for elements the candidate alone (or the reference alone)
// writes.
struct wording {
  std::string reference = "reference";
  std::string what;
  std::string written_by_one = "are written by one kernel only";
  std::string proved = "written elements of";
  std::string equal = "are equal over the reals";
};

// The verdict, summary and differing examples of a finished comparison.
inline void conclude(check_result& res, const term::store& s, const comparison& c, const outputs& ref,
                     const outputs& cand, std::uint64_t total, const wording& w, bool stop_at_first_difference) {
  if (c.different) {
    res.v = verdict::different;
    res.summary = c.elements < total && stop_at_first_difference
                      ? "a difference among " + w.what + ", found after deciding " + std::to_string(c.elements)
                      : std::to_string(c.different) + " of " + w.what + " differ";
  } else if (c.written_by_one) {
    res.v = verdict::different;
    res.summary = std::to_string(c.written_by_one) + " of " + w.what + " " + w.written_by_one;
  } else if (c.unknown) {
    res.v = verdict::unknown;
    res.summary = std::to_string(c.unknown) + " of " + w.what + " could not be decided";
  } else {
    res.v = verdict::equivalent;
    res.summary = "all " + std::to_string(c.equal) + " " + w.proved + " " + w.what + " " + w.equal +
                  (c.unwritten ? " (" + std::to_string(c.unwritten) + " elements written by neither)" : std::string());
    // --fast: say how much of it rests on fingerprints, which are evidence, not a proof.
    if (c.by_fingerprint)
      res.summary += "; " + std::to_string(c.by_fingerprint) + " of them by equal fingerprints only (equal with "
                     "high probability, not proved: check without --fast for a proof)";
  }
  for (auto& p : c.problems) {
    if (res.examples.size() >= 3) break;
    std::string e = p.tensor + "[" + std::to_string(p.index) + "]";
    auto rv = ref.at(p.tensor)[p.index], cv = cand.at(p.tensor)[p.index];
    if (p.status == element_status::written_by_one)
      e += rv ? ": only the " + w.reference + " writes it" : ": only the candidate writes it";
    else {
      e += ":\n    " + w.reference + " = " + (rv ? short_text(s, *rv) : std::string("(unwritten)"));
      e += "\n    candidate = " + (cv ? short_text(s, *cv) : std::string("(unwritten)"));
      if (p.status == element_status::unknown) e += "\n    unknown: " + p.reason;
    }
    res.examples.push_back(std::move(e));
  }
}

}  // namespace detail

// The concrete input of a counterexample: the witness's values for the inputs the differing
// element depends on, fixed pseudo-random values for every other input element.
inline counterexample_report counterexample_input(const pair_spec& spec, const term::store& s, const element_result& e) {
  counterexample_report r;
  r.tensor = e.tensor;
  r.index = e.index;
  r.real_reference = e.witness->lhs.str(12);
  r.real_candidate = e.witness->rhs.str(12);
  std::uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (auto& [name, t] : spec.tensors) {
    if (t.use == role::output) continue;
    auto& vals = r.tensors[name];
    vals.resize(t.elements());
    for (auto& v : vals) {
      seed = support::mix64(seed + 1);
      v = detail::format_value(static_cast<double>(seed >> 11) / static_cast<double>(1ull << 53) * 2 - 1, t.type);
    }
  }
  for (auto& [name, sc] : spec.scalars)
    if (sc.symbolic) r.scalars[name] = 1;
  for (auto& iv : e.witness->inputs) {
    std::string name(s.tensor_name(iv.input));
    double v = iv.value.convert_to<double>();
    if (auto it = spec.tensors.find(name); it != spec.tensors.end()) {
      auto& vals = r.tensors[name];
      std::uint64_t i = detail::flat_index(s.input_indices(iv.input), it->second.shape);
      if (i < vals.size()) vals[i] = detail::format_value(v, it->second.type);
    } else if (auto sc = spec.scalars.find(name); sc != spec.scalars.end()) {
      r.scalars[name] = sc->second.type ? detail::format_value(v, *sc->second.type) : exec::floats::round_to(v, exec::rkind::f32);
    }
  }
  return r;
}

// Runs one (unlifted) kernel in float32 on a counterexample's input and reads the differing
// element; a failed run or an unwritten element is noted in r.float_note.
inline std::optional<double> replay_side(const pair_spec& spec, const ptx::module& m, std::size_t entry,
                                         const kernel_spec& k, const char* side, counterexample_report& r,
                                         bool lockstep = false) {
  auto inputs = [&](const exec::input_ref& in) { return detail::input_value(r.tensors, r.scalars, in.name, in.element); };
  exec::program p = exec::decode(m, m.functions[entry]);
  exec::float32_domain d(inputs);
  exec::engine_options eo;
  eo.lockstep_warps = lockstep;
  auto g = run_grid<exec::float32_domain>(d, p, spec, k, {}, {}, eo);
  if (g.error) {
    r.float_note += std::string(side) + " float32 run failed: " + g.error->message + "; ";
    return std::nullopt;
  }
  auto& v = g.values.at(r.tensor)[r.index];
  if (!v) r.float_note += std::string(side) + " does not write the element in float32; ";
  return v;
}

// Builds the concrete input from a witness and runs both (unlifted) kernels on it in float32.
inline counterexample_report replay(const pair_spec& spec, const resolved_pair& pair, const term::store& s,
                                    const element_result& e, bool lockstep = false) {
  counterexample_report r = counterexample_input(spec, s, e);
  r.float_reference = replay_side(spec, pair.reference, pair.reference_entry, spec.reference, "reference", r, lockstep);
  r.float_candidate = replay_side(spec, pair.candidate, pair.candidate_entry, spec.candidate, "candidate", r, lockstep);
  if (r.float_reference && r.float_candidate && *r.float_reference == *r.float_candidate)
    r.float_note += "the float32 outputs coincide at this input (the real-valued outputs differ)";
  return r;
}

// Runs both (unlifted) kernels in float32 on seeded random inputs in [-1, 1] and compares. The
// CTAs of both are jobs on `threads` threads (the sides with fewer, larger CTAs first).
inline std::optional<check_result::float32_report> float32_difference(const pair_spec& spec, const resolved_pair& pair,
                                                                      unsigned threads = 1, std::uint64_t seed = 1) {
  detail::concrete_inputs in = detail::random_inputs(spec, seed);
  struct side {
    exec::program p;
    exec::launch l;
    std::vector<exec::dim3> ctas;
    std::vector<cta_run<double>> runs;
  };
  auto make = [&](const ptx::module& m, std::size_t entry, const kernel_spec& k) {
    side x{exec::decode(m, m.functions[entry]), make_launch(spec, k), ctas_of(k), {}};
    x.runs.resize(x.ctas.size());
    return x;
  };
  side sides[2] = {make(pair.reference, pair.reference_entry, spec.reference),
                   make(pair.candidate, pair.candidate_entry, spec.candidate)};
  std::vector<std::pair<std::size_t, std::size_t>> jobs;  // (side, CTA)
  for (std::size_t si : sides[1].ctas.size() < sides[0].ctas.size() ? std::array{1, 0} : std::array{0, 1})
    for (std::size_t ci = 0; ci < sides[si].ctas.size(); ++ci) jobs.emplace_back(si, ci);
  support::parallel_for(threads, jobs.size(), [&](unsigned, std::size_t j) {
    auto [si, ci] = jobs[j];
    side& x = sides[si];
    exec::launch l = x.l;
    l.cta = x.ctas[ci];
    exec::float32_domain d(detail::source_of(in));
    exec::null_observer none;
    x.runs[ci] = run_cta(d, x.p, l, none);
  });
  std::optional<grid_run<double>> outs[2];
  for (std::size_t si = 0; si < 2; ++si) {
    grid_collector<double> collect(sides[si].l, sides[si].ctas);
    for (std::uint32_t ci = 0; ci < sides[si].ctas.size(); ++ci)
      if (!collect.add(ci, std::move(sides[si].runs[ci]), [](double a, double b) { return same_result(a, b); })) break;
    exec::float32_domain d(detail::source_of(in));
    outs[si] = std::move(collect).finish(d);
    if (outs[si]->error) return std::nullopt;
  }
  return detail::difference(outs[0]->values, outs[1]->values);
}

// A witness for a race: the CTA run in float32 on seeded random inputs under two schedules, the
// default round robin (the racing accesses in the order the report gives) and the same with the
// second thread moved just ahead of the first (so its access, in the same barrier segment, comes
// first). Different final outputs show the race is harmful.
struct race_witness {
  std::string schedule_a, schedule_b;
  bool differs = false;
  std::string where;         // the first output element that differs
  double a = 0, b = 0;       // its values under the two schedules
  std::string note;          // a run that failed, or why nothing differs
};

inline race_witness witness(const pair_spec& spec, const ptx::module& m, std::size_t entry, const kernel_spec& k,
                            const exec::dim3& cta, const race::race& r) {
  race_witness w;
  kernel_spec one = k;
  one.ctas = {cta};
  std::uint32_t n = k.block[0] * k.block[1] * k.block[2];
  std::vector<std::uint32_t> order;
  for (std::uint32_t t = 0; t < n; ++t)
    if (t != r.second.thread) order.push_back(t);
  order.insert(std::find(order.begin(), order.end(), r.first.thread), r.second.thread);
  w.schedule_a = "round robin in thread order (thread " + std::to_string(r.first.thread) + " before thread " +
                 std::to_string(r.second.thread) + ")";
  w.schedule_b = "round robin with thread " + std::to_string(r.second.thread) + " moved ahead of thread " +
                 std::to_string(r.first.thread);
  detail::concrete_inputs in = detail::random_inputs(spec, 7);
  auto source = detail::source_of(in);
  exec::program p = exec::decode(m, m.functions[entry]);
  auto run = [&](std::vector<std::uint32_t> thread_order) {
    exec::float32_domain d(source);
    exec::engine_options o;
    o.thread_order = std::move(thread_order);
    return run_grid<exec::float32_domain>(d, p, spec, one, {}, {}, o);
  };
  auto ga = run({}), gb = run(order);
  if (ga.error || gb.error) {
    w.note = "a float32 run stopped: " + (ga.error ? ga.error->message : gb.error->message);
    return w;
  }
  auto same = [&](const auto& x, const auto& y) {
    for (auto& [name, vx] : x.values)
      for (std::size_t i = 0; i < vx.size(); ++i) {
        const auto& vy = y.values.at(name)[i];
        if (vx[i].has_value() != vy.has_value() || (vx[i] && std::bit_cast<std::uint64_t>(*vx[i]) != std::bit_cast<std::uint64_t>(*vy)))
          return false;
      }
    return true;
  };
  if (same(ga, gb)) {
    // When the second thread already comes first in the order (the run reached the accesses in
    // later sweeps, after barriers), delay the first thread to the end of every sweep instead.
    std::vector<std::uint32_t> late;
    for (std::uint32_t t = 0; t < n; ++t)
      if (t != r.first.thread) late.push_back(t);
    late.push_back(r.first.thread);
    auto gc = run(late);
    if (!gc.error && !same(ga, gc)) {
      gb = std::move(gc);
      w.schedule_b = "round robin with thread " + std::to_string(r.first.thread) + " last in every sweep";
    }
  }
  for (auto& [name, va] : ga.values) {
    const auto& vb = gb.values.at(name);
    for (std::size_t i = 0; i < va.size(); ++i)
      if (va[i].has_value() != vb[i].has_value() || (va[i] && std::bit_cast<std::uint64_t>(*va[i]) != std::bit_cast<std::uint64_t>(*vb[i]))) {
        w.differs = true;
        w.where = name + "[" + std::to_string(i) + "]";
        w.a = va[i].value_or(NAN);
        w.b = vb[i].value_or(NAN);
        return w;
      }
  }
  w.note = "the outputs are the same under both schedules on these inputs (the race may not change the outputs, or "
           "needs another interleaving)";
  return w;
}

// Checks a resolved pair (see check::resolve). The modules are lifted here (copies).
inline check_result check_pair(const pair_spec& spec, const resolved_pair& pair, const check_options& options = {}) {
  check_result res;
  auto t0 = std::chrono::steady_clock::now();
  ptx::module ref = pair.reference, cand = pair.candidate;
  ptx::lift(ref);
  ptx::lift(cand);
  term::store s;
  const side_input sides[] = {{&ref, pair.reference_entry, &spec.reference, "reference"},
                              {&cand, pair.candidate_entry, &spec.candidate, "candidate"}};
  std::vector<kernel_run> runs;
  std::vector<side_report> reports = run_sides(s, spec, sides, runs, options);
  res.reference = std::move(reports[0]);
  res.candidate = std::move(reports[1]);
  kernel_run &rr = runs[0], &cr = runs[1];
  res.run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.terms = s.size();

  // Run errors first, then races, then the comparison.
  if (detail::run_problem(res, {&res.reference, &res.candidate})) return res;

  if (options.float32_report) res.float32 = float32_difference(spec, pair, options.threads);
  auto t1 = std::chrono::steady_clock::now();
  comparison c = compare(s, rr.values, cr.values, detail::compare_options_of(options));
  res.decide_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  std::uint64_t total = 0;
  for (auto& [name, vals] : rr.values) total += vals.size();
  detail::wording w;
  w.what = std::to_string(total) + " output elements (reference: " + std::to_string(res.reference.ctas) +
           " CTA(s) of block " + cta_name(spec.reference.block) + "; candidate: " + std::to_string(res.candidate.ctas) +
           " CTA(s) of block " + cta_name(spec.candidate.block) + ")";
  detail::conclude(res, s, c, rr.values, cr.values, total, w, options.compare.stop_at_first_difference);
  for (auto& p : c.problems)
    if (p.status == element_status::different && p.witness) {
      res.counterexample = replay(spec, pair, s, p, options.race.warp_synchronous || options.engine.lockstep_warps);
      break;
    }
  res.compared = std::move(c);
  return res;
}

}  // namespace gpueq::check
