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

// A permutation of the k-bit integers [0, 2^k) chosen by `salt`: adding, multiplying by an odd
// number and xor-ing with a right shift are each one-to-one on k bits.
inline std::uint64_t permute_bits(std::uint64_t x, std::uint64_t salt, unsigned k) {
  const std::uint64_t mask = k >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << k) - 1;
  const unsigned shift = (k + 1) / 2;
  x = (x + salt) & mask;
  x = (x * (support::mix64(salt) | 1)) & mask;
  x ^= x >> shift;
  x = (x * (support::mix64(salt + 1) | 1)) & mask;
  x ^= x >> shift;
  return x;
}

// Seeded pseudo-random inputs. Floats in [-1, 1), rounded to their formats. Integer tensors hold
// distinct values spread over a range of 2^k around 0 (signed: [-2^(k-1), 2^(k-1)), unsigned:
// [0, 2^k)), k = 11 or the bits the tensor's size needs, at most the type's width (8-bit types:
// their whole range, so distinct only up to 256 elements) and 24: element i is a seeded
// permutation of i, so no two elements are equal and none is forced small. Equal or tiny integers
// hid bugs: a lost update of a counter, indices that coincide. Each symbolic scalar has its own
// value in [0.5, 1.5) (positive: scalars are scales and epsilons), rounded to its type (an integer
// one: in [1, 1024]). Each element is computed when it is read, from the seed, the tensor and
// the index (a counter-based generator), so an input tensor costs nothing until a CTA reads it:
// the float32 report on CTA 0 of a 4096x4096 GEMM reads 1 M of its 33.5 M input elements.
class random_inputs {
 public:
  random_inputs(const pair_spec& spec, std::uint64_t seed) {
    for (auto& [name, t] : spec.tensors)
      if (t.use == role::input || t.use == role::inout) {
        tensor x{t.type, support::hash_combine(seed, support::hash_string(name)), 0};
        if (!is_float(t.type)) {  // the bits that index the elements, at least 11; at most the type's and 24
          const auto index_bits = static_cast<unsigned>(std::bit_width(t.elements() - 1));
          x.bits = std::min<unsigned>({std::max(11u, index_bits), 8 * bytes(t.type), 24});
        }
        tensors_.emplace(name, x);
      }
    for (auto& [name, sc] : spec.scalars)
      if (sc.symbolic) {
        std::uint64_t bits = support::mix64(support::hash_combine(seed, support::hash_string(name)));
        double v = 1 + random_unit(bits) / 2;
        if (sc.type && !is_float(*sc.type)) v = static_cast<double>(1 + bits % 1024);
        scalars_.emplace(name, sc.type ? format_value(v, *sc.type) : exec::floats::round_to(v, exec::rkind::f32));
      }
  }
  // Element i of input `name` (a scalar: its value); 0 for anything else.
  double operator()(std::string_view name, std::uint64_t i) const {
    if (auto it = tensors_.find(name); it != tensors_.end()) {
      const tensor& t = it->second;
      if (t.bits) {
        auto v = static_cast<double>(permute_bits(i, t.salt, t.bits));
        return is_signed(t.type) ? v - static_cast<double>(std::uint64_t{1} << (t.bits - 1)) : v;
      }
      return format_value(random_unit(support::mix64(t.salt + i * 0x9e3779b97f4a7c15ull)), t.type);
    }
    if (auto it = scalars_.find(name); it != scalars_.end()) return it->second;
    return 0;
  }

 private:
  struct tensor {
    dtype type;
    std::uint64_t salt;
    unsigned bits;  // an integer tensor: its values' range is 2^bits wide; 0 for floats
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

// A witness for a race: the CTA run in float32 on seeded random inputs (detail::random_inputs)
// under the default round robin (the racing accesses in the order the report gives) and under
// schedules that order them otherwise, tried in turn until an output differs:
//   1. the second thread moved just ahead of the first in every sweep (its access, in the same
//      barrier segment, comes first);
//   2. the first thread last in every sweep (the accesses were reached in later sweeps);
//   3. the first thread held right after its racing access until the second thread has made its
//      own (a lost update: the other thread's read-modify-write lands inside the first's);
//   4. the first thread's warp (but the second thread) held right before the first racing access
//      until the second thread has made its own (a warp that lags across barrier generations it
//      is not needed for: a race that only named barriers order).
// The holds are engine_options::hold; a hold the run cannot keep (the held threads are needed
// for the other thread to get there) is let go and the run completes under round robin.
// Different final outputs show the race is harmful.
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

namespace detail {

// The float32 program's instruction for instruction i of the symbolic program, which race reports
// index: lifting rewrites idioms into one instruction and drops the rest, so indices may shift;
// the same PTX line at the same occurrence (inlined calls repeat a callee's lines) is the same
// instruction. nullopt when the line is not in the float32 program.
inline std::optional<std::uint32_t> float32_instruction(const prepared_kernel& k, std::uint32_t i) {
  const auto& sym = k.symbolic_program.function->instructions;
  const auto& f32 = k.float32_program.function->instructions;
  if (i >= sym.size()) return std::nullopt;
  std::size_t occurrence = 0;
  for (std::uint32_t j = 0; j < i; ++j) occurrence += sym[j].line == sym[i].line;
  for (std::uint32_t j = 0; j < f32.size(); ++j)
    if (f32[j].line == sym[i].line && occurrence-- == 0) return j;
  return std::nullopt;
}

inline std::string kind_name(const race::race_access& a) {
  return a.kind == exec::access_kind::read ? "read" : a.kind == exec::access_kind::write ? "write" : "atomic";
}

}  // namespace detail

inline race_witness witness(const pair_spec& spec, const prepared_kernel& k, const exec::dim3& cta, const race::race& r) {
  race_witness w;
  std::uint32_t n = k.kernel.block[0] * k.kernel.block[1] * k.kernel.block[2];
  if (k.kernel.cluster[0]) n *= k.kernel.cluster[0] * k.kernel.cluster[1] * k.kernel.cluster[2];  // a cluster's run
  w.schedule_a = "round robin in thread order (thread " + std::to_string(r.first.thread) + " before thread " +
                 std::to_string(r.second.thread) + ")";
  detail::random_inputs in(spec, 7);
  auto run = [&](exec::engine_options o) {
    o.warp_wide = false;  // the schedules named here are round robin's, thread by thread
    return run_grid<exec::float32_domain>(k, [&] { return exec::float32_domain(detail::source_of(in)); }, 1, o,
                                          std::span<const exec::dim3>(&cta, 1), /*fill_inout=*/false);
  };
  auto ga = run({});
  if (ga.error) {
    w.note = "a float32 run stopped: " + ga.error->message;
    return w;
  }
  // The other schedules, in the order they are tried (see above).
  std::vector<std::pair<std::string, exec::engine_options>> schedules;
  {
    exec::engine_options o;
    for (std::uint32_t t = 0; t < n; ++t)
      if (t != r.second.thread) o.thread_order.push_back(t);
    o.thread_order.insert(std::find(o.thread_order.begin(), o.thread_order.end(), r.first.thread), r.second.thread);
    schedules.emplace_back("round robin with thread " + std::to_string(r.second.thread) + " moved ahead of thread " +
                               std::to_string(r.first.thread),
                           std::move(o));
  }
  {
    exec::engine_options o;
    for (std::uint32_t t = 0; t < n; ++t)
      if (t != r.first.thread) o.thread_order.push_back(t);
    o.thread_order.push_back(r.first.thread);
    schedules.emplace_back("round robin with thread " + std::to_string(r.first.thread) + " last in every sweep",
                           std::move(o));
  }
  auto first_at = detail::float32_instruction(k, r.first.instruction);
  auto second_at = detail::float32_instruction(k, r.second.instruction);
  if (first_at && second_at && !r.first.async_proxy && !r.second.async_proxy) {
    const std::string first = "thread " + std::to_string(r.first.thread) + "'s " + detail::kind_name(r.first);
    const std::string until =
        " until thread " + std::to_string(r.second.thread) + "'s " + detail::kind_name(r.second) + " is done";
    exec::engine_options o;
    o.hold = {{r.first.thread}, *first_at, /*after=*/true, r.second.thread, *second_at};
    schedules.emplace_back("round robin with thread " + std::to_string(r.first.thread) + " held right after its " +
                               detail::kind_name(r.first) + until,
                           o);
    const std::uint32_t warp = r.first.thread / exec::warp_threads;
    o.hold = {{}, *first_at, /*after=*/false, r.second.thread, *second_at};
    for (std::uint32_t t = warp * exec::warp_threads; t < std::min(n, (warp + 1) * exec::warp_threads); ++t)
      o.hold.threads.push_back(t);  // the engine never holds the releasing thread
    schedules.emplace_back("round robin with warp " + std::to_string(warp) + " held right before " + first + until,
                           std::move(o));
  }
  std::string failed;
  for (auto& [name, o] : schedules) {
    auto gb = run(std::move(o));
    if (gb.error) {
      if (failed.empty()) failed = "; a float32 run stopped under " + name + ": " + gb.error->message;
      continue;
    }
    if (auto d = detail::first_bit_difference(ga, gb)) {
      const auto& [tensor, i] = *d;
      w.schedule_b = name;
      w.differs = true;
      w.where = tensor + "[" + std::to_string(i) + "]";
      w.a = std::as_const(ga.values.at(tensor))[i].value_or(NAN);
      w.b = std::as_const(gb.values.at(tensor))[i].value_or(NAN);
      return w;
    }
  }
  w.schedule_b = schedules.front().first;
  w.note = "the outputs are the same under every schedule tried on these inputs (the race may not change the "
           "outputs, or needs another interleaving)" + failed;
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
