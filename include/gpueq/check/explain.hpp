// The explain stage of a check, and the concrete runs it is made of: the counterexample (a
// concrete input built from the decision procedure's witness, replayed on both kernels in
// float32), the float32 side report on seeded random inputs, and race witnesses (a CTA in float32
// under two schedules). Everything here runs prepared kernels (check/prepared.hpp) in the float32
// domain, through the grid runner run_grids: the unlifted programs, what the GPU runs.
#pragma once

#include <gpueq/check/prepared.hpp>
#include <gpueq/check/run.hpp>
#include <gpueq/check/sides.hpp>
#include <gpueq/check/specification.hpp>
#include <gpueq/support/hash.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpueq::check {

// A concrete input on which the kernels differ over the reals, replayed on both kernels in the
// float32 domain (what the GPU computes) before it is reported. Every input tensor is filled:
// the elements the differing output depends on with the decision procedure's witness values,
// the others with fixed pseudo-random values in [-1, 1], rounded to their format; a tensor with
// given contents holds them.
struct counterexample_report {
  std::string tensor;
  std::uint64_t index = 0;
  std::string real_reference, real_candidate;  // the exact (real) outputs at the witness point
  std::map<std::string, std::vector<double>> tensors;  // every input tensor, row-major
  std::map<std::string, double> scalars;               // symbolic scalars
  std::optional<double> float_reference, float_candidate;  // float32 runs (nullopt: the run failed)
  std::string float_note;  // why a float32 run gave no value, or that both agree
};

// Both sides in float32 on the same seeded random inputs (what users see on a GPU next to the
// proof).
struct float32_report {
  double max_abs = 0, max_rel = 0;  // over every element both sides write
  std::uint64_t elements = 0;
  std::string worst;  // tensor[index] of the largest absolute difference
};

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

inline double random_unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) / static_cast<double>(1ull << 53) * 2 - 1; }

// Seeded pseudo-random inputs: floats in [-1, 1), integers in [-8, 8], rounded to their formats;
// symbolic scalars 0.75. Each element is computed when it is read, from the seed, the tensor and
// the index (a counter-based generator), so an input tensor costs nothing until a CTA reads it:
// the float32 report on CTA 0 of a 4096x4096 GEMM reads 1 M of its 33.5 M input elements.
class random_inputs {
 public:
  random_inputs(const pair_spec& spec, std::uint64_t seed) {
    for (auto& [name, t] : spec.tensors)
      if (t.use == role::input || t.use == role::inout)
        tensors_.emplace(name, tensor{t.type, support::hash_combine(seed, support::hash_string(name))});
    for (auto& [name, sc] : spec.scalars)
      if (sc.symbolic) scalars_.emplace(name, 0.75);
  }
  // Element i of input `name` (a scalar: its value); 0 for anything else.
  double operator()(std::string_view name, std::uint64_t i) const {
    if (auto it = tensors_.find(name); it != tensors_.end()) {
      const tensor& t = it->second;
      return format_value(random_unit(support::mix64(t.salt + i * 0x9e3779b97f4a7c15ull)) * (is_float(t.type) ? 1 : 8), t.type);
    }
    if (auto it = scalars_.find(name); it != scalars_.end()) return it->second;
    return 0;
  }

 private:
  struct tensor {
    dtype type;
    std::uint64_t salt;
  };
  std::map<std::string, tensor, std::less<>> tensors_;
  std::map<std::string, double, std::less<>> scalars_;
};

// Element i of input `name`: a tensor element, or a scalar (from `tensors` or `scalars`); 0 for
// anything not given.
inline double input_value(const concrete_inputs& tensors, const std::map<std::string, double>& scalars,
                          std::string_view name, std::uint64_t i) {
  if (auto it = tensors.find(std::string(name)); it != tensors.end() && i < it->second.size()) return it->second[i];
  if (auto it = scalars.find(std::string(name)); it != scalars.end()) return it->second;
  return 0;
}

// The float32 domain's input function over random inputs (which must outlive it).
inline auto source_of(const random_inputs& in) {
  return [&in](const exec::input_ref& r) { return in(r.name, r.element); };
}

// The first index >= i at which a tensor's values may hold one (element_values skips its
// unwritten pages; a dense vector holds every index).
template <class T>
std::uint64_t next_index(const element_values<T>& v, std::uint64_t i) {
  return v.next(i);
}
template <class T>
std::uint64_t next_index(const std::vector<T>&, std::uint64_t i) {
  return i;
}

// Largest absolute and relative difference over the elements both sides give.
template <class A, class B>
float32_report difference(const std::map<std::string, A>& a, const std::map<std::string, B>& b) {
  auto value = [](const auto& element) -> std::optional<double> { return element; };
  float32_report r;
  for (auto& [name, va] : a) {
    auto it = b.find(name);
    if (it == b.end()) continue;
    const auto& vb = it->second;
    std::uint64_t n = std::min<std::uint64_t>(va.size(), vb.size());
    for (std::uint64_t i = next_index(va, 0); i < n; i = next_index(va, i + 1)) {
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
    if (t.use != role::input && t.use != role::inout) continue;
    auto& vals = r.tensors[name];
    vals.resize(t.elements());
    if (auto c = spec.contents.find(name); c != spec.contents.end()) {  // what the kernels read: the given contents
      auto given = given_contents_of(c->second, t.type, t.elements());
      for (std::uint64_t i = 0; i < vals.size(); ++i) vals[i] = element_value(given->bits(i), t.type);
      continue;
    }
    for (auto& v : vals) {
      seed = support::mix64(seed + 1);
      v = detail::format_value(detail::random_unit(seed), t.type);
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

// Runs one kernel in float32 on a counterexample's input and reads the differing element; a
// failed run or an unwritten element is noted in r.float_note.
inline std::optional<double> replay_side(const prepared_kernel& k, counterexample_report& r, unsigned threads = 1,
                                         bool lockstep = false) {
  exec::engine_options eo;
  eo.lockstep_warps = lockstep;
  auto g = run_grid<exec::float32_domain>(
      k,
      [&] {
        return exec::float32_domain([&](const exec::input_ref& in) {
          return detail::input_value(r.tensors, r.scalars, in.name, in.element);
        });
      },
      threads, eo);
  if (g.error) {
    r.float_note += k.name + " float32 run failed: " + g.error->message + "; ";
    return std::nullopt;
  }
  auto& v = g.values.at(r.tensor)[r.index];
  if (!v) r.float_note += k.name + " does not write the element in float32; ";
  return v;
}

// Builds the concrete input from a witness and runs both kernels on it in float32.
inline counterexample_report replay(const pair_spec& spec, const prepared_kernel& reference, const prepared_kernel& candidate,
                                    const term::store& s, const element_result& e, unsigned threads = 1,
                                    bool lockstep = false) {
  counterexample_report r = counterexample_input(spec, s, e);
  r.float_reference = replay_side(reference, r, threads, lockstep);
  r.float_candidate = replay_side(candidate, r, threads, lockstep);
  if (r.float_reference && r.float_candidate && *r.float_reference == *r.float_candidate)
    r.float_note += "the float32 outputs coincide at this input (the real-valued outputs differ)";
  return r;
}

// Runs both kernels in float32 on seeded random inputs in [-1, 1] and compares (run_grids: the
// CTAs of both are jobs on `threads` threads).
inline std::optional<float32_report> float32_difference(const pair_spec& spec, const prepared_kernel& reference,
                                                        const prepared_kernel& candidate, unsigned threads = 1,
                                                        std::uint64_t seed = 1) {
  detail::random_inputs in(spec, seed);
  const prepared_kernel* sides[] = {&reference, &candidate};
  // Inout elements neither side writes hold the same input on both: left out (fill_inout false).
  auto outs = run_grids<exec::float32_domain>(sides, [&] { return exec::float32_domain(detail::source_of(in)); }, threads,
                                              {}, {}, /*fill_inout=*/false);
  if (outs[0].error || outs[1].error) return std::nullopt;
  return detail::difference(outs[0].values, outs[1].values);
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

namespace detail {

// The first output element (tensor, flat index) whose bits differ between two runs, or that one
// run wrote and the other did not; nullopt when the runs agree everywhere.
template <class R>
std::optional<std::pair<std::string, std::uint64_t>> first_bit_difference(const grid_run<R>& x, const grid_run<R>& y) {
  for (const auto& [name, vx] : x.values) {
    const auto& vy = y.values.at(name);
    for (std::uint64_t i = next_either(vx, vy, 0); i < vx.size(); i = next_either(vx, vy, i + 1))
      if (vx[i].has_value() != vy[i].has_value() ||
          (vx[i] && std::bit_cast<std::uint64_t>(*vx[i]) != std::bit_cast<std::uint64_t>(*vy[i])))
        return std::pair{name, i};
  }
  return std::nullopt;
}

}  // namespace detail

inline race_witness witness(const pair_spec& spec, const prepared_kernel& k, const exec::dim3& cta, const race::race& r) {
  race_witness w;
  std::uint32_t n = k.kernel.block[0] * k.kernel.block[1] * k.kernel.block[2];
  if (k.kernel.cluster[0]) n *= k.kernel.cluster[0] * k.kernel.cluster[1] * k.kernel.cluster[2];  // a cluster's run
  std::vector<std::uint32_t> order;
  for (std::uint32_t t = 0; t < n; ++t)
    if (t != r.second.thread) order.push_back(t);
  order.insert(std::find(order.begin(), order.end(), r.first.thread), r.second.thread);
  w.schedule_a = "round robin in thread order (thread " + std::to_string(r.first.thread) + " before thread " +
                 std::to_string(r.second.thread) + ")";
  w.schedule_b = "round robin with thread " + std::to_string(r.second.thread) + " moved ahead of thread " +
                 std::to_string(r.first.thread);
  detail::random_inputs in(spec, 7);
  auto run = [&](std::vector<std::uint32_t> thread_order) {
    exec::engine_options o;
    o.thread_order = std::move(thread_order);
    return run_grid<exec::float32_domain>(k, [&] { return exec::float32_domain(detail::source_of(in)); }, 1, o,
                                          std::span<const exec::dim3>(&cta, 1), /*fill_inout=*/false);
  };
  auto ga = run({}), gb = run(order);
  if (ga.error || gb.error) {
    w.note = "a float32 run stopped: " + (ga.error ? ga.error->message : gb.error->message);
    return w;
  }
  if (!detail::first_bit_difference(ga, gb)) {
    // When the second thread already comes first in the order (the run reached the accesses in
    // later sweeps, after barriers), delay the first thread to the end of every sweep instead.
    std::vector<std::uint32_t> late;
    for (std::uint32_t t = 0; t < n; ++t)
      if (t != r.first.thread) late.push_back(t);
    late.push_back(r.first.thread);
    auto gc = run(late);
    if (!gc.error && detail::first_bit_difference(ga, gc)) {
      gb = std::move(gc);
      w.schedule_b = "round robin with thread " + std::to_string(r.first.thread) + " last in every sweep";
    }
  }
  if (auto d = detail::first_bit_difference(ga, gb)) {
    const auto& [name, i] = *d;
    w.differs = true;
    w.where = name + "[" + std::to_string(i) + "]";
    w.a = std::as_const(ga.values.at(name))[i].value_or(NAN);
    w.b = std::as_const(gb.values.at(name))[i].value_or(NAN);
    return w;
  }
  w.note = "the outputs are the same under both schedules on these inputs (the race may not change the outputs, or "
           "needs another interleaving)";
  return w;
}


namespace detail {

// Reads `tensors` (which must outlive the source) and a copy of `scalars`.
inline input_source spec_source_of(const std::map<std::string, std::vector<double>>& tensors,
                                   std::map<std::string, double> scalars = {}) {
  return [&tensors, scalars = std::move(scalars)](std::string_view name, std::uint64_t i) {
    return input_value(tensors, scalars, name, i);
  };
}

// The kernel in float32 against the specification in double, on the seeded random
// inputs float32_difference uses.
inline std::optional<float32_report> spec_float32_difference(const pair_spec& spec, const prepared_kernel& candidate,
                                                             const specification& sp, unsigned threads = 1,
                                                             std::uint64_t seed = 1) {
  random_inputs in(spec, seed);
  auto got = run_grid<exec::float32_domain>(candidate, [&] { return exec::float32_domain(source_of(in)); }, threads);
  if (got.error) return std::nullopt;
  return difference(sp.evaluate([&in](std::string_view name, std::uint64_t i) { return in(name, i); }), got.values);
}

}  // namespace detail

}  // namespace gpueq::check
