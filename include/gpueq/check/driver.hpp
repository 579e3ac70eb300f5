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
#include <gpueq/term/print.hpp>

#include <boost/unordered/unordered_flat_map.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <map>
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
};

struct side_report {
  std::string name;  // "reference" / "candidate"
  std::optional<exec::run_error> error;
  std::optional<exec::dim3> failed_cta;
  std::string race_text;  // formatted race/barrier report when not clean
  std::vector<race::race_group> races;  // of the first CTA with a problem (race_cta)
  std::optional<exec::dim3> race_cta;
  bool race_free = true, well_synchronized = true;
  std::uint64_t steps = 0;
  std::uint32_t ctas = 0;
  std::vector<std::string> conflicts;
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

// The race context plus what is needed to print its report.
struct observed_cta {
  race::context ctx;
  exec::run_info info;
  explicit observed_cta(race::options o) : ctx(o) {}
};

// Inter-CTA races on global memory (L&T's global non-interference): CTAs run one after another,
// so the race context cannot see two CTAs meet; instead every global word remembers the CTAs
// that wrote and read it, and a word written by one CTA and touched by another is a race (its
// final value, or what the other CTA read, depends on the order of the CTAs).
class grid_footprint {
 public:
  void cta(std::uint32_t index, exec::dim3 id) {
    cta_ = index;
    ids_.push_back(id);
  }
  void access(const exec::access& a, const exec::run_info& info) {
    if (info.regions[a.region].space != exec::memory_space::global || conflict_) return;
    bool write = a.kind != exec::access_kind::read;
    for (std::uint64_t w = a.offset >> 2; w <= (a.offset + a.width - 1) >> 2; ++w) {
      word& x = words_[(std::uint64_t{a.region} << 44) | w];
      std::int64_t other = -1;
      bool other_wrote = false;
      if (write) {
        if (x.writer >= 0 && x.writer != cta_) other = x.writer, other_wrote = true;
        else if (x.many_readers || (x.reader >= 0 && x.reader != cta_)) other = x.reader;
        x.writer = cta_;
      } else {
        if (x.writer >= 0 && x.writer != cta_) other = x.writer, other_wrote = true;
        if (x.reader < 0) x.reader = cta_;
        else if (x.reader != cta_) x.many_readers = true;
      }
      if (other >= 0 && !conflict_) {
        const auto& r = info.regions[a.region];
        std::uint64_t unit = r.element_bytes ? r.element_bytes : 4;
        conflict_ = r.name + "[" + std::to_string((w << 2) / unit) + "] is " + (write ? "written" : "read") + " by CTA " +
                    cta_name(ids_[cta_]) + " and " + (other_wrote ? "written" : "read") + " by CTA " +
                    cta_name(ids_[static_cast<std::size_t>(other)]) + " (the result depends on the order of the CTAs)";
      }
    }
  }
  const std::optional<std::string>& conflict() const { return conflict_; }

 private:
  struct word {
    std::int32_t writer = -1, reader = -1;
    bool many_readers = false;
  };
  boost::unordered_flat_map<std::uint64_t, word> words_;
  std::int32_t cta_ = 0;
  std::vector<exec::dim3> ids_;
  std::optional<std::string> conflict_;
};

struct recording_observer {
  observed_cta* cta = nullptr;
  grid_footprint* grid = nullptr;
  void on_start(const exec::run_info& i) {
    cta->info = i;
    cta->ctx.on_start(i);
  }
  void on_access(const exec::access& a) {
    cta->ctx.on_access(a);
    grid->access(a, cta->info);
  }
  void on_barrier_register(const exec::barrier_registration& r, exec::barrier_key k, std::uint32_t g, std::uint32_t e) {
    cta->ctx.on_barrier_register(r, k, g, e);
  }
  void on_barrier_complete(const exec::barrier_instance& b) { cta->ctx.on_barrier_complete(b); }
  void on_exit(std::uint32_t t) { cta->ctx.on_exit(t); }
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

inline side_report run_side(term::store& s, const ptx::module& lifted, std::size_t entry, const pair_spec& spec,
                            const kernel_spec& k, const char* side, kernel_run& out, const check_options& options) {
  side_report r;
  r.name = side;
  exec::engine_options engine = options.engine;
  engine.lockstep_warps = engine.lockstep_warps || options.race.warp_synchronous;
  exec::program p = exec::decode(lifted, lifted.functions[entry]);
  std::vector<race::source_line> lines = race::source_lines(lifted, lifted.functions[entry]);
  if (options.check_races) {
    detail::observed_cta cta(options.race);
    detail::grid_footprint grid;
    detail::recording_observer obs{&cta, &grid};
    std::uint32_t index = 0;
    out = run_symbolic<detail::recording_observer>(
        s, p, spec, k,
        [&](const exec::dim3& c) -> detail::recording_observer& {
          grid.cta(index++, c);
          return obs;
        },
        [&](const exec::dim3& c, detail::recording_observer&) {
          const race::report& rep = cta.ctx.result();
          if (!rep.clean() && r.race_text.empty()) {
            r.race_free = rep.race_free();
            r.well_synchronized = rep.well_synchronized();
            r.race_text = "CTA " + cta_name(c) + ":\n" + race::format(rep, cta.info, lines);
            r.races = rep.races;
            r.race_cta = c;
          }
        },
        engine);
    if (grid.conflict()) r.conflicts.insert(r.conflicts.begin(), *grid.conflict());
  } else {
    out = run_symbolic(s, p, spec, k, {}, {}, engine);
  }
  r.error = out.error;
  r.failed_cta = out.failed_cta;
  r.steps = out.steps;
  r.ctas = out.ctas;
  r.conflicts.insert(r.conflicts.end(), out.conflicts.begin(), out.conflicts.end());
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

}  // namespace detail

// Builds the concrete input from a witness and runs both (unlifted) kernels on it in float32.
inline counterexample_report replay(const pair_spec& spec, const resolved_pair& pair, const term::store& s,
                                    const element_result& e, bool lockstep = false) {
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
  auto inputs = [&](const exec::input_ref& in) -> double {
    if (auto it = r.tensors.find(std::string(in.name)); it != r.tensors.end() && in.element < it->second.size())
      return it->second[in.element];
    if (auto it = r.scalars.find(std::string(in.name)); it != r.scalars.end()) return it->second;
    return 0;
  };
  auto run = [&](const ptx::module& m, std::size_t entry, const kernel_spec& k, const char* side) -> std::optional<double> {
    exec::program p = exec::decode(m, m.functions[entry]);
    exec::float32_domain d(inputs);
    exec::engine_options eo;
    eo.lockstep_warps = lockstep;
    auto g = run_grid<exec::float32_domain>(d, p, spec, k, {}, {}, eo);
    if (g.error) {
      r.float_note += std::string(side) + " float32 run failed: " + g.error->message + "; ";
      return std::nullopt;
    }
    auto& v = g.values.at(e.tensor)[e.index];
    if (!v) r.float_note += std::string(side) + " does not write the element in float32; ";
    return v;
  };
  r.float_reference = run(pair.reference, pair.reference_entry, spec.reference, "reference");
  r.float_candidate = run(pair.candidate, pair.candidate_entry, spec.candidate, "candidate");
  if (r.float_reference && r.float_candidate && *r.float_reference == *r.float_candidate)
    r.float_note += "the float32 outputs coincide at this input (the real-valued outputs differ)";
  return r;
}

// Runs both (unlifted) kernels in float32 on seeded random inputs in [-1, 1] and compares.
inline std::optional<check_result::float32_report> float32_difference(const pair_spec& spec, const resolved_pair& pair,
                                                                      std::uint64_t seed = 1) {
  std::map<std::string, std::vector<double>> in;
  for (auto& [name, t] : spec.tensors) {
    auto& v = in[name];
    v.resize(t.use == role::output ? 0 : t.elements());
    for (auto& x : v) {
      seed = support::mix64(seed + 0x632be59bd9b4e019ull);
      x = detail::format_value((static_cast<double>(seed >> 11) / static_cast<double>(1ull << 53) * 2 - 1) * (is_float(t.type) ? 1 : 8),
                               t.type);
    }
  }
  for (auto& [name, sc] : spec.scalars)
    if (sc.symbolic) in[name] = {0.75};
  auto source = [&](const exec::input_ref& r) {
    auto it = in.find(std::string(r.name));
    return it != in.end() && r.element < it->second.size() ? it->second[r.element] : 0.0;
  };
  auto run = [&](const ptx::module& m, std::size_t entry, const kernel_spec& k) {
    exec::program p = exec::decode(m, m.functions[entry]);
    exec::float32_domain d(source);
    return run_grid(d, p, spec, k);
  };
  auto a = run(pair.reference, pair.reference_entry, spec.reference);
  auto b = run(pair.candidate, pair.candidate_entry, spec.candidate);
  if (a.error || b.error) return std::nullopt;
  check_result::float32_report r;
  for (auto& [name, va] : a.values) {
    const auto& vb = b.values.at(name);
    for (std::size_t i = 0; i < va.size(); ++i) {
      if (!va[i] || !vb[i]) continue;
      ++r.elements;
      double d = std::fabs(*va[i] - *vb[i]);
      if (std::isnan(d)) d = INFINITY;
      if (d > r.max_abs || r.worst.empty()) {
        r.max_abs = std::max(r.max_abs, d);
        r.worst = name + "[" + std::to_string(i) + "]";
      }
      double scale = std::max(std::fabs(*va[i]), std::fabs(*vb[i]));
      if (scale > 0) r.max_rel = std::max(r.max_rel, d / scale);
    }
  }
  return r;
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
  std::map<std::string, std::vector<double>> in;
  std::uint64_t seed = 7;
  for (auto& [name, t] : spec.tensors) {
    auto& v = in[name];
    v.resize(t.use == role::output ? 0 : t.elements());
    for (auto& x : v) {
      seed = support::mix64(seed + 0x632be59bd9b4e019ull);
      x = detail::format_value((static_cast<double>(seed >> 11) / static_cast<double>(1ull << 53) * 2 - 1) * (is_float(t.type) ? 1 : 8),
                               t.type);
    }
  }
  for (auto& [name, sc] : spec.scalars)
    if (sc.symbolic) in[name] = {0.75};
  auto source = [&](const exec::input_ref& ref) {
    auto it = in.find(std::string(ref.name));
    return it != in.end() && ref.element < it->second.size() ? it->second[ref.element] : 0.0;
  };
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
  kernel_run rr, cr;
  res.reference = run_side(s, ref, pair.reference_entry, spec, spec.reference, "reference", rr, options);
  res.candidate = run_side(s, cand, pair.candidate_entry, spec, spec.candidate, "candidate", cr, options);
  res.run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.terms = s.size();

  // Run errors first, then races, then the comparison.
  for (side_report* side : {&res.reference, &res.candidate})
    if (side->error) {
      res.v = detail::verdict_of(*side->error);
      res.summary = side->name + " kernel, CTA " + cta_name(*side->failed_cta) + ": " + side->error->message;
      return res;
    }
  for (side_report* side : {&res.reference, &res.candidate})
    if (!side->race_text.empty()) {
      res.v = side->race_free ? verdict::deadlock : verdict::race;
      res.summary = side->name + " kernel is " + (side->race_free ? "not well-synchronized" : "racy") + ":\n" + side->race_text;
      return res;
    }
  for (side_report* side : {&res.reference, &res.candidate})
    if (!side->conflicts.empty()) {
      res.v = verdict::race;
      res.summary = side->name + " kernel: two CTAs write one output element (an inter-CTA race): " + side->conflicts.front();
      return res;
    }

  if (options.float32_report) res.float32 = float32_difference(spec, pair);
  auto t1 = std::chrono::steady_clock::now();
  comparison c = compare(s, rr.values, cr.values, options.compare);
  res.decide_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  std::uint64_t total = 0;
  for (auto& [name, vals] : rr.values) total += vals.size();
  std::string what = std::to_string(total) + " output elements (reference: " + std::to_string(res.reference.ctas) +
                     " CTA(s) of block " + cta_name(spec.reference.block) + "; candidate: " +
                     std::to_string(res.candidate.ctas) + " CTA(s) of block " + cta_name(spec.candidate.block) + ")";
  if (c.different) {
    res.v = verdict::different;
    res.summary = c.elements < total && options.compare.stop_at_first_difference
                      ? "a difference among " + what + ", found after deciding " + std::to_string(c.elements)
                      : std::to_string(c.different) + " of " + what + " differ";
  } else if (c.written_by_one) {
    res.v = verdict::different;
    res.summary = std::to_string(c.written_by_one) + " of " + what + " are written by one kernel only";
  } else if (c.unknown) {
    res.v = verdict::unknown;
    res.summary = std::to_string(c.unknown) + " of " + what + " could not be decided";
  } else {
    res.v = verdict::equivalent;
    res.summary = "all " + std::to_string(c.equal) + " written elements of " + what + " are equal over the reals" +
                  (c.unwritten ? " (" + std::to_string(c.unwritten) + " elements written by neither)" : std::string());
  }
  for (auto& p : c.problems) {
    if (res.examples.size() >= 3) break;
    std::string e = p.tensor + "[" + std::to_string(p.index) + "]";
    auto rv = rr.values.at(p.tensor)[p.index], cv = cr.values.at(p.tensor)[p.index];
    if (p.status == element_status::written_by_one) e += ": " + p.reason;
    else {
      e += ":\n    reference = " + (rv ? detail::short_text(s, *rv) : std::string("(unwritten)"));
      e += "\n    candidate = " + (cv ? detail::short_text(s, *cv) : std::string("(unwritten)"));
      if (p.status == element_status::unknown) e += "\n    unknown: " + p.reason;
    }
    res.examples.push_back(std::move(e));
  }
  for (auto& p : c.problems)
    if (p.status == element_status::different && p.witness) {
      res.counterexample = replay(spec, pair, s, p, options.race.warp_synchronous || options.engine.lockstep_warps);
      break;
    }
  res.compared = std::move(c);
  return res;
}

}  // namespace gpueq::check
