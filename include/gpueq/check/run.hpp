// Running one side of a pair spec: the launch built from the spec (tensors, scalars, parameter
// order, grid, block), every CTA the spec asks for run by the execution engine in a value domain,
// and the final contents of the output tensors collected. CTAs of a grid are independent runs
// (each starts from the same initial memory); an output element written by two CTAs is reported,
// since its final value would depend on the order of the CTAs.
#pragma once

#include <gpueq/check/compare.hpp>
#include <gpueq/check/spec.hpp>
#include <gpueq/exec.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpueq::check {

inline exec::rkind rkind_of(dtype d) {
  switch (d) {
    case dtype::f16: return exec::rkind::f16;
    case dtype::bf16: return exec::rkind::bf16;
    case dtype::f32: return exec::rkind::f32;
    case dtype::f64: return exec::rkind::f64;
    default: return exec::rkind::integer;
  }
}

// The launch of one side (CTA 0,0,0; run_kernel sets the CTA of each run).
inline exec::launch make_launch(const pair_spec& s, const kernel_spec& k) {
  exec::launch l;
  l.grid = k.grid;
  l.block = k.block;
  l.dynamic_shared_bytes = k.dynamic_shared_bytes;
  std::map<std::string, std::uint32_t> tensor_index, scalar_index;
  for (auto& [name, t] : s.tensors) {
    exec::tensor_binding b;
    b.name = name;
    b.kind = rkind_of(t.type);
    b.element_bytes = bytes(t.type);
    b.is_signed = t.type == dtype::s8 || t.type == dtype::s16 || t.type == dtype::s32 || t.type == dtype::s64;
    b.shape = t.shape;
    b.input = t.use != role::output;
    b.output = t.use != role::input;
    tensor_index[name] = static_cast<std::uint32_t>(l.tensors.size());
    l.tensors.push_back(std::move(b));
  }
  for (auto& [name, sc] : s.scalars) {
    scalar_index[name] = static_cast<std::uint32_t>(l.scalars.size());
    l.scalars.push_back(exec::scalar_binding{name, sc.symbolic, sc.value});
  }
  for (auto& p : k.params) {
    if (auto it = tensor_index.find(p); it != tensor_index.end()) l.params.push_back({true, it->second});
    else l.params.push_back({false, scalar_index.at(p)});
  }
  return l;
}

// The CTAs a side runs: the spec's list, or the whole grid.
inline std::vector<exec::dim3> ctas_of(const kernel_spec& k) {
  if (!k.ctas.empty()) return k.ctas;
  std::vector<exec::dim3> all;
  for (std::uint32_t z = 0; z < k.grid[2]; ++z)
    for (std::uint32_t y = 0; y < k.grid[1]; ++y)
      for (std::uint32_t x = 0; x < k.grid[0]; ++x) all.push_back({x, y, z});
  return all;
}

inline std::string cta_name(const exec::dim3& c) {
  return "(" + std::to_string(c[0]) + "," + std::to_string(c[1]) + "," + std::to_string(c[2]) + ")";
}

// What running one side over its CTAs gave, with outputs as values of the domain.
template <class R>
struct grid_run {
  std::map<std::string, std::vector<std::optional<R>>> values;  // output tensors per element
  std::optional<exec::run_error> error;   // the first error of the first CTA that failed
  std::optional<exec::dim3> failed_cta;
  std::vector<std::string> conflicts;     // output elements written by two CTAs
  std::uint64_t steps = 0;                // thread-instructions, all CTAs
  std::uint32_t ctas = 0;
};

using kernel_run = grid_run<term::term_id>;

// Runs every CTA of one side in domain d; `observer(cta)` gives the observer for a CTA and
// `after(cta, observer)` is called when its run ended (the race report is read there). Unwritten
// elements of inout tensors keep their input values.
template <class D, class O = exec::null_observer>
grid_run<typename D::real> run_grid(D& d, const exec::program& p, const pair_spec& spec, const kernel_spec& k,
                                    const std::function<O&(const exec::dim3&)>& observer = {},
                                    const std::function<void(const exec::dim3&, O&)>& after = {},
                                    const exec::engine_options& options = {}) {
  using real = typename D::real;
  grid_run<real> out;
  exec::launch l = make_launch(spec, k);
  std::map<std::string, std::vector<std::uint32_t>> writer;  // CTA index + 1 per element
  for (auto& t : l.tensors)
    if (t.output) {
      out.values[t.name].assign(t.elements(), std::nullopt);
      writer[t.name].assign(t.elements(), 0);
    }
  std::vector<exec::dim3> ctas = ctas_of(k);
  for (std::uint32_t ci = 0; ci < ctas.size(); ++ci) {
    l.cta = ctas[ci];
    exec::null_observer none;
    O* op = nullptr;
    if constexpr (std::same_as<O, exec::null_observer>) op = observer ? &observer(ctas[ci]) : &none;
    else op = &observer(ctas[ci]);  // an observer type other than the null one needs its factory
    O& o = *op;
    exec::engine<D, O> e(p, l, d, o, options);
    std::optional<exec::run_error> err = e.run();
    if (after) after(ctas[ci], o);
    out.steps += e.stats().steps;
    ++out.ctas;
    if (err) {
      out.error = err;
      out.failed_cta = ctas[ci];
      return out;
    }
    for (std::uint32_t ti = 0; ti < l.tensors.size(); ++ti) {
      const auto& t = l.tensors[ti];
      if (!t.output) continue;
      auto& vals = out.values[t.name];
      auto& who = writer[t.name];
      for (std::uint64_t i = 0; i < t.elements(); ++i) {
        auto c = e.output(ti, i);
        if (!c) continue;
        real v = e.output_value(ti, *c);
        if (who[i] && (!vals[i] || !d.same(*vals[i], v)) && out.conflicts.size() < 16)
          out.conflicts.push_back(t.name + "[" + std::to_string(i) + "] is written by CTA " + cta_name(ctas[who[i] - 1]) +
                                  " and by CTA " + cta_name(ctas[ci]));
        vals[i] = v;
        who[i] = ci + 1;
      }
    }
  }
  for (std::uint32_t ti = 0; ti < l.tensors.size(); ++ti) {
    const auto& t = l.tensors[ti];
    if (!(t.output && t.input)) continue;
    auto& vals = out.values[t.name];
    for (std::uint64_t i = 0; i < vals.size(); ++i)
      if (!vals[i]) vals[i] = d.input(exec::input_ref{ti, t.name, i, t.shape, t.kind});
  }
  return out;
}

// Runs every CTA of one side symbolically in store `s`. The program must be decoded from the
// lifted module (real functions instead of nvcc's math sequences).
template <class O = exec::null_observer>
kernel_run run_symbolic(term::store& s, const exec::program& p, const pair_spec& spec, const kernel_spec& k,
                        const std::function<O&(const exec::dim3&)>& observer = {},
                        const std::function<void(const exec::dim3&, O&)>& after = {},
                        const exec::engine_options& options = {}) {
  exec::symbolic_domain d(s);
  return run_grid<exec::symbolic_domain, O>(d, p, spec, k, observer, after, options);
}

}  // namespace gpueq::check
