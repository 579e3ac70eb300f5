// Running one side of a pair spec: the launch built from the spec (tensors, scalars, parameter
// order, grid, block), every CTA the spec asks for run by the execution engine in a value domain,
// and the final contents of the output tensors collected. CTAs of a grid are independent runs
// (each starts from the same initial memory); an output element written by two CTAs is reported,
// since its final value would depend on the order of the CTAs.
#pragma once

#include <gpueq/check/compare.hpp>
#include <gpueq/check/spec.hpp>
#include <gpueq/exec.hpp>
#include <gpueq/race/inter_cta.hpp>

#include <algorithm>
#include <bit>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace gpueq::check {

// The launch of one side (CTA 0,0,0; run_kernel sets the CTA of each run).
inline exec::launch make_launch(const pair_spec& s, const kernel_spec& k) {
  exec::launch l;
  l.grid = k.grid;
  l.block = k.block;
  l.cluster = k.cluster;
  l.dynamic_shared_bytes = k.dynamic_shared_bytes;
  std::map<std::string, std::uint32_t> tensor_index, scalar_index;
  for (auto& [name, t] : s.tensors) {
    exec::tensor_binding b;
    b.name = name;
    b.kind = rkind_of(t.type);
    b.element_bytes = bytes(t.type);
    b.is_signed = is_signed(t.type);
    b.shape = t.shape;
    b.input = t.use == role::input || t.use == role::inout;
    b.output = t.use == role::output || t.use == role::inout;  // scratch: neither (written, never compared)
    if (auto c = s.contents.find(name); c != s.contents.end()) b.contents = given_contents_of(c->second, t.type, t.elements());
    tensor_index[name] = static_cast<std::uint32_t>(l.tensors.size());
    l.tensors.push_back(std::move(b));
  }
  for (auto& [name, sc] : s.scalars) {
    scalar_index[name] = static_cast<std::uint32_t>(l.scalars.size());
    l.scalars.push_back(exec::scalar_binding{name, sc.symbolic, sc.value});
  }
  for (auto& p : k.params) {
    if (auto mp = s.tensor_maps.find(p); mp != s.tensor_maps.end()) {
      exec::param_binding b{false, static_cast<std::uint32_t>(l.tensor_maps.size()), {}};
      b.map = true;
      l.tensor_maps.push_back({p, tensor_index.at(mp->second.tensor), detail::map_of(s, p, mp->second)});
      l.params.push_back(std::move(b));
    } else if (auto st = s.structs.find(p); st != s.structs.end()) {
      exec::param_binding b{false, 0, {}};
      for (auto& f : st->second.fields) {
        detail::field_shape sh = detail::shape_of_field(s, f);
        if (auto it = tensor_index.find(f.name); it != tensor_index.end())
          b.fields.push_back({f.offset, 8, true, it->second, exec::vtype::u64});
        else
          b.fields.push_back({f.offset, sh.bytes, false, scalar_index.at(f.name),
                              exec::vtype_of("." + std::string(check::name(*sh.type))).value_or(exec::vtype::b32)});
      }
      l.params.push_back(std::move(b));
    } else if (auto it = tensor_index.find(p); it != tensor_index.end()) {
      l.params.push_back({true, it->second, {}});
    } else {
      l.params.push_back({false, scalar_index.at(p), {}});
    }
  }
  return l;
}

// The CTAs a side runs: the spec's list, or the whole grid. With a cluster shape, each run is a
// whole cluster: the first CTA of each cluster, in grid order, once (a listed CTA names its cluster).
inline std::vector<exec::dim3> ctas_of(const kernel_spec& k) {
  if (!k.ctas.empty() && !k.cluster[0]) return k.ctas;
  const exec::dim3 step = k.cluster[0] ? k.cluster : exec::dim3{1, 1, 1};
  std::vector<exec::dim3> all;
  if (!k.ctas.empty()) {
    for (exec::dim3 c : k.ctas) {
      for (std::size_t d = 0; d < 3; ++d) c[d] -= c[d] % step[d];
      if (std::find(all.begin(), all.end(), c) == all.end()) all.push_back(c);
    }
    return all;
  }
  for (std::uint32_t z = 0; z < k.grid[2]; z += step[2])
    for (std::uint32_t y = 0; y < k.grid[1]; y += step[1])
      for (std::uint32_t x = 0; x < k.grid[0]; x += step[0]) all.push_back({x, y, z});
  return all;
}

inline std::string cta_name(const exec::dim3& c) { return race::cta_text(c); }

// What running one side over its CTAs gave, with outputs as values of the domain.
template <class R>
struct grid_run {
  std::map<std::string, element_values<R>> values;  // output tensors per element (paged)
  std::optional<exec::run_error> error;   // the first error of the first CTA that failed
  std::optional<exec::dim3> failed_cta;
  std::vector<std::string> conflicts;     // output elements written by two CTAs
  std::uint64_t steps = 0;                // thread-instructions, all CTAs
  std::uint32_t ctas = 0;
};

using kernel_run = grid_run<term::term_id>;

// What one CTA's run gave: the output elements it wrote (per launch tensor; empty for inputs).
template <class R>
struct cta_run {
  std::vector<std::vector<std::pair<std::uint64_t, R>>> written;
  std::optional<exec::run_error> error;
  std::uint64_t steps = 0;
};

// Two finished values are the same value (floats bit for bit, so a NaN is itself).
template <class R>
bool same_result(const R& a, const R& b) {
  if constexpr (std::is_same_v<R, double>) return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
  else return a == b;
}

// Runs CTA `l.cta` of a launch in domain d with observer o.
template <class D, class O>
cta_run<typename D::result> run_cta(D& d, const exec::program& p, const exec::launch& l, O& o,
                                    const exec::engine_options& options = {}) {
  cta_run<typename D::result> out;
  exec::engine_options opts = options;
  opts.stop_for_rerun = true;  // (a warp-wide run that meets a race or an error is run again below)
  for (;;) {
    exec::engine<D, O> e(p, l, d, o, opts);
    out.error = e.run();
    out.steps = e.stats().steps;
    // A run that went warp-wide and then stopped with an error or met a race (an observer's
    // optional found_race()) runs again from the start under round robin, so that its error, its
    // step count, its race report and any racy values are round robin's (exec::engine_options::
    // warp_wide). The domain forgets the first run (its optional restart_run()); the observer's
    // on_start does. A deadlock without a race is round robin's as it stands, unless the
    // scheduler's passes decided something on the way (exec::engine::deadlock_is_round_robins).
    bool raced = false;
    if constexpr (requires { o.found_race(); }) raced = o.found_race();
    if (e.went_warp_wide() && (raced || (out.error && !e.deadlock_is_round_robins(*out.error)))) {
      opts.warp_wide = false;
      if constexpr (requires { d.restart_run(); }) d.restart_run();
      continue;
    }
    if (!out.error) {
      // Reading an element can fail too (pieces of symbolic values, packed halves that are no
      // number of the tensor's format): the run's error, naming the tensor.
      try {
        out.written.resize(l.tensors.size());
        for (std::uint32_t ti = 0; ti < l.tensors.size(); ++ti) {
          const auto& t = l.tensors[ti];
          if (!t.output) continue;
          for (std::uint64_t i : e.written_elements(ti))
            if (auto c = e.output(ti, i)) out.written[ti].emplace_back(i, e.output_value(ti, *c));
        }
      } catch (const exec::run_failure& f) {
        out.error = f.error;
        out.written.clear();
      }
    }
    break;
  }
  d.end_run();
  return out;
}

// The value of an element that two CTAs (or groups of CTAs) updated only by atomics of one
// commuting operation, from their values a and b: each ran from the input value x, so their
// contributions add up as a + (b - x), or meet in max(a, b) / min(a, b). Over values with
// arithmetic (float32 doubles, rationals); merge_atomic_updates merges terms.
template <class R>
std::optional<R> merge_atomic(exec::atomic_op op, const R& a, const R& b, const R& x) {
  switch (op) {
    case exec::atomic_op::add: return a + (b - x);
    case exec::atomic_op::max: return a < b ? b : a;
    case exec::atomic_op::min: return b < a ? b : a;
    default: return std::nullopt;
  }
}

// The value of element `element` of launch tensor `ti` that two CTAs (or groups of CTAs) left as a
// and b, when both footprints show that they updated its bytes only by atomics of one commuting
// operation (otherwise none): merge_atomic from the input value d gives the element, and over
// terms in the symbolic domain. The one combine step of run_sides and run_grids.
template <class D>
std::optional<typename D::result> merge_atomic_updates(D& d, const exec::launch& l, std::uint32_t ti, std::uint64_t element,
                                                       const race::cta_footprint& first, const race::cta_footprint& second,
                                                       const typename D::result& a, const typename D::result& b) {
  using R = typename D::result;
  const auto& t = l.tensors[ti];
  if (!t.input) return std::nullopt;
  const std::uint64_t off = element * t.element_bytes;
  const exec::atomic_op op = second.atomic_only(ti, off, t.element_bytes);
  if (op != first.atomic_only(ti, off, t.element_bytes)) return std::nullopt;
  // The element's initial value, which an add needs; none where the domain has no value for its
  // given contents (-inf in the exact domain): then no merge.
  R x{};
  if (op == exec::atomic_op::add) {
    try {
      x = R(d.finish(exec::initial_value(d, t, ti, element)));
    } catch (const exec::domain_error&) {
      return std::nullopt;
    }
  }
  if constexpr (D::symbolic) {
    term::store& terms = d.store();
    term::term_id ops[2] = {a, b};
    switch (op) {
      case exec::atomic_op::add: return terms.add(a, terms.sub(b, x));
      case exec::atomic_op::max: return terms.max(ops);
      case exec::atomic_op::min: return terms.min(ops);
      default: return std::nullopt;
    }
  } else {
    return merge_atomic(op, a, b, x);
  }
}

// A grid_collector's default: no two CTAs' values of an element merge.
struct no_combine {
  template <class R>
  std::optional<R> operator()(std::uint32_t, std::uint64_t, std::uint32_t, std::uint32_t, const R&, const R&) const {
    return std::nullopt;
  }
};

// Collects the CTAs' runs of one side into its final outputs, in CTA order: an element written
// by two CTAs is a conflict (its final value would depend on the order of the CTAs); the first
// CTA that failed stops the collection. `finish` gives unwritten elements of inout tensors their
// input values.
template <class R>
class grid_collector {
 public:
  grid_collector(const exec::launch& l, std::vector<exec::dim3> ctas) : l_(l), ctas_(std::move(ctas)) {
    for (auto& t : l.tensors)
      if (t.output) {
        out_.values[t.name].assign(t.elements(), std::nullopt);
        writer_[t.name].assign(t.elements(), std::nullopt);
      }
  }
  // Adds CTA number ci; false once a CTA failed (the rest are not collected). `same` compares
  // two values of the domain. `combine(tensor, element, earlier CTA, ci, earlier value, value)`
  // may merge an element two CTAs both updated by commuting atomics (their contributions add up,
  // or meet in a max/min) instead of calling it a conflict; it returns nullopt where it cannot.
  template <class Same, class Combine = no_combine>
  bool add(std::uint32_t ci, cta_run<R>&& run, Same&& same, Combine&& combine = {}) {
    if (out_.error) return false;
    out_.steps += run.steps;
    ++out_.ctas;
    if (run.error) {
      out_.error = std::move(run.error);
      out_.failed_cta = ctas_[ci];
      return false;
    }
    for (std::uint32_t ti = 0; ti < run.written.size(); ++ti) {
      if (run.written[ti].empty()) continue;
      const auto& t = l_.tensors[ti];
      auto& vals = out_.values[t.name];
      auto& who = writer_[t.name];
      for (auto& [i, v] : run.written[ti]) {
        std::optional<std::uint32_t>& earlier = who[i];
        if (earlier && vals[i])
          if (std::optional<R> merged = combine(ti, i, *earlier, ci, *vals[i], v)) {
            vals[i] = std::move(merged);
            earlier = ci;
            continue;
          }
        if (earlier && (!vals[i] || !same(*vals[i], v)) && out_.conflicts.size() < 16)
          out_.conflicts.push_back(t.name + "[" + std::to_string(i) + "] is written by CTA " + cta_name(ctas_[*earlier]) +
                                   " and by CTA " + cta_name(ctas_[ci]));
        vals[i] = v;
        earlier = ci;
      }
    }
    return true;
  }
  // With fill_inout false, unwritten elements of inout tensors stay empty: a check fills only the
  // ones the other side writes (check::detail::fill_inout), so a CTA that writes a small tile of a
  // large inout tensor costs what it touches.
  // After a failed CTA nothing is filled. Given contents a domain has no value for (-inf in
  // the exact domain) make the run's error, naming the element.
  template <class D>
  grid_run<R> finish(D& d, bool fill_inout = true) && {
    for (std::uint32_t ti = 0; ti < l_.tensors.size() && fill_inout && !out_.error; ++ti) {
      const auto& t = l_.tensors[ti];
      if (!(t.output && t.input)) continue;
      auto& vals = out_.values[t.name];
      for (std::uint64_t i = 0; i < vals.size(); ++i) {
        if (vals[i]) continue;
        try {
          vals[i] = d.finish(exec::initial_value(d, t, ti, i));
        } catch (const exec::domain_error& e) {
          out_.error = exec::run_error{exec::error_kind::domain, 0, 0, false,
                                       "inout tensor " + t.name + ", element " + std::to_string(i) +
                                           " (unwritten, its given contents): " + e.what()};
          return std::move(out_);
        }
      }
    }
    return std::move(out_);
  }
  const std::vector<exec::dim3>& ctas() const { return ctas_; }

 private:

  const exec::launch& l_;
  std::vector<exec::dim3> ctas_;
  grid_run<R> out_;
  std::map<std::string, element_values<std::uint32_t>> writer_;  // the CTA index that wrote each element
};

// Runs every CTA of one side in domain d, one after another, on the calling thread;
// `observer(cta)` gives the observer for a CTA and `after(cta, observer)` is called when its run
// ended. Unwritten elements of inout tensors keep their input values. This is the low-level
// runner for a decoded program and an observer of the caller's (the fast-forms differential test
// hashes every engine event through it); the check pipeline, `gpueq run` and the laws test run
// prepared kernels through run_ctas/run_grids (check/prepared.hpp) instead. Open: an observer
// factory in run_grids, so that this one can go.
template <class D, class O = exec::null_observer>
grid_run<typename D::result> run_grid(D& d, const exec::program& p, const pair_spec& spec, const kernel_spec& k,
                                    const std::function<O&(const exec::dim3&)>& observer = {},
                                    const std::function<void(const exec::dim3&, O&)>& after = {},
                                    const exec::engine_options& options = {}) {
  exec::launch l = make_launch(spec, k);
  grid_collector<typename D::result> collect(l, ctas_of(k));
  const auto& ctas = collect.ctas();
  for (std::uint32_t ci = 0; ci < ctas.size(); ++ci) {
    l.cta = ctas[ci];
    exec::null_observer none;
    O* op = nullptr;
    if constexpr (std::same_as<O, exec::null_observer>) op = observer ? &observer(ctas[ci]) : &none;
    else op = &observer(ctas[ci]);  // an observer type other than the null one needs its factory
    auto run = run_cta(d, p, l, *op, options);
    if (after) after(ctas[ci], *op);
    if (!collect.add(ci, std::move(run), [](const auto& a, const auto& b) { return same_result(a, b); })) break;
  }
  return std::move(collect).finish(d);
}

}  // namespace gpueq::check
