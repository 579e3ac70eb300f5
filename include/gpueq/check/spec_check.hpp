// Checking a kernel against a specification instead of a second kernel. A specification gives,
// in a term store, the terms every output element should equal (inputs named as the kernel's
// symbolic run names them: tensor[i][j]…, symbolic scalars by name), and the same outputs
// evaluated in double at concrete inputs (for counterexamples and the float32 report). The DSL
// (gpueq::dsl, define()) is the usual way to write one: from_dsl() turns output definitions into
// a specification. The kernel runs exactly as one side of `gpueq check` (check::run_side: race
// context, run errors, inter-CTA conflicts), the comparison is check::compare, and the result is
// the check_result of check_pair, with the specification in the place of the reference kernel.
//
// Pair specs name a registered specification as their reference ("reference": {"spec": NAME});
// register_spec() adds a factory under a name, find_spec() looks one up.
#pragma once

#include <gpueq/check/driver.hpp>
#include <gpueq/dsl/domains.hpp>
#include <gpueq/dsl/expr.hpp>

#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpueq::check {

// Concrete inputs: a tensor element by name and flat row-major index, or a scalar by name (index 0).
using input_source = std::function<double(std::string_view name, std::uint64_t flat)>;

struct specification {
  std::string name, description;
  // The output tensors, one term per element, built in the store the kernel runs in.
  std::function<outputs(term::store&)> lower;
  // The output tensors evaluated in double at concrete inputs.
  std::function<std::map<std::string, std::vector<double>>(const input_source&)> evaluate;
};

namespace detail {
struct spec_source_inputs {
  const input_source* source;
  double operator()(std::string_view name, std::size_t i) const { return (*source)(name, i); }
};
}  // namespace detail

// A specification from DSL output definitions (dsl::define(y(i), …), one per output tensor).
template <class... Defs>
specification from_dsl(std::string name, std::string description, Defs... defs) {
  specification sp;
  sp.name = std::move(name);
  sp.description = std::move(description);
  sp.lower = [defs...](term::store& s) {
    outputs out;
    dsl::lowering lower{s};
    auto one = [&](const auto& def) {
      output_values& v = out[std::string(def.name)];
      v.assign(def.size(), std::nullopt);
      def.tabulate(lower, [&](std::size_t n, term::term_id t) { v[n] = t; });
    };
    (one(defs), ...);
    return out;
  };
  sp.evaluate = [defs...](const input_source& in) {
    std::map<std::string, std::vector<double>> out;
    dsl::numeric<double, detail::spec_source_inputs> d{detail::spec_source_inputs{&in}};
    auto one = [&](const auto& def) {
      std::vector<double>& v = out[std::string(def.name)];
      v.assign(def.size(), 0.0);
      def.tabulate(d, [&](std::size_t n, double x) { v[n] = x; });
    };
    (one(defs), ...);
    return out;
  };
  return sp;
}

// ---- the registry of named specifications -------------------------------------------------------
using spec_factory = std::function<specification()>;

inline std::map<std::string, spec_factory, std::less<>>& spec_registry() {
  static std::map<std::string, spec_factory, std::less<>> registry;
  return registry;
}
// Returns true, so that `inline const bool registered = register_spec(…);` registers at start-up.
inline bool register_spec(std::string name, spec_factory factory) {
  spec_registry()[std::move(name)] = std::move(factory);
  return true;
}
inline std::optional<specification> find_spec(std::string_view name) {
  auto& r = spec_registry();
  if (auto it = r.find(name); it != r.end()) return it->second();
  return std::nullopt;
}
// The specification a pair spec names as its reference; a diagnostic naming the spec file (and
// the registered names) when there is none.
inline specification spec_of(const pair_spec& spec) {
  if (!spec.reference_spec) throw support::diagnostic_error({spec.file, {}, "the reference is a kernel, not a specification"});
  if (auto sp = find_spec(*spec.reference_spec)) return *sp;
  std::string known;
  for (auto& [name, f] : spec_registry()) known += (known.empty() ? "" : ", ") + name;
  throw support::diagnostic_error({spec.file, {}, "reference.spec: no specification named '" + *spec.reference_spec +
                                                      "' is registered" + (known.empty() ? "" : " (known: " + known + ")")});
}

namespace detail {

// The specification's outputs must be the pair spec's output tensors, element for element.
inline void check_spec_outputs(const pair_spec& spec, const specification& sp, const outputs& want) {
  auto fail = [&](const std::string& why) {
    throw support::diagnostic_error({spec.file, {}, "specification '" + sp.name + "': " + why});
  };
  for (auto& [name, vals] : want) {
    auto it = spec.tensors.find(name);
    if (it == spec.tensors.end() || it->second.use == role::input) fail("defines '" + name + "', which is not an output tensor of the spec");
    if (it->second.elements() != vals.size())
      fail("'" + name + "' has " + std::to_string(vals.size()) + " elements, the spec's tensor " + std::to_string(it->second.elements()));
  }
  for (auto& [name, t] : spec.tensors)
    if (t.use != role::input && !want.contains(name)) fail("does not define the output tensor '" + name + "'");
}

// Reads `tensors` (which must outlive the source) and a copy of `scalars`.
inline input_source spec_source_of(const std::map<std::string, std::vector<double>>& tensors,
                                   std::map<std::string, double> scalars = {}) {
  return [&tensors, scalars = std::move(scalars)](std::string_view name, std::uint64_t i) {
    return input_value(tensors, scalars, name, i);
  };
}

// The kernel (unlifted) in float32 against the specification in double, on the seeded random
// inputs float32_difference uses.
inline std::optional<check_result::float32_report> spec_float32_difference(const pair_spec& spec, const resolved_pair& pair,
                                                                           const specification& sp, std::uint64_t seed = 1) {
  concrete_inputs in = random_inputs(spec, seed);
  exec::program p = exec::decode(pair.candidate, pair.candidate.functions[pair.candidate_entry]);
  exec::float32_domain d(source_of(in));
  auto got = run_grid(d, p, spec, spec.candidate);
  if (got.error) return std::nullopt;
  return difference(sp.evaluate(spec_source_of(in)), got.values);
}

}  // namespace detail

// Checks the candidate kernel of `spec` (resolved in `pair`) against the specification `sp`.
// The verdict is check_pair's: a run error, race or inter-CTA conflict of the kernel instead of a
// verdict; not-equivalent with a counterexample whose reference value is the specification
// evaluated in double and whose candidate value is the kernel run in float32.
inline check_result check_against_spec(const pair_spec& spec, const resolved_pair& pair, const specification& sp,
                                       const check_options& options = {}) {
  check_result res;
  auto t0 = std::chrono::steady_clock::now();
  ptx::module cand = pair.candidate;
  ptx::lift(cand);
  term::store s;
  outputs want = sp.lower(s);
  detail::check_spec_outputs(spec, sp, want);
  kernel_run cr;
  res.reference.name = "specification";
  res.candidate = run_side(s, cand, pair.candidate_entry, spec, spec.candidate, "candidate", cr, options);
  res.run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.terms = s.size();

  side_report& k = res.candidate;
  if (detail::run_problem(res, {&k})) return res;

  if (options.float32_report) res.float32 = detail::spec_float32_difference(spec, pair, sp);
  auto t1 = std::chrono::steady_clock::now();
  comparison c = compare(s, want, cr.values, detail::compare_options_of(options));
  res.decide_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  std::uint64_t total = 0;
  for (auto& [name, vals] : want) total += vals.size();
  detail::wording w;
  w.reference = "specification";
  w.what = std::to_string(total) + " output elements (specification '" + sp.name + "'; candidate: " +
           std::to_string(k.ctas) + " CTA(s) of block " + cta_name(spec.candidate.block) + ")";
  w.written_by_one = "are not written by the kernel";
  w.proved = "elements of";
  w.equal = "equal the specification over the reals";
  detail::conclude(res, s, c, want, cr.values, total, w, options.compare.stop_at_first_difference);
  for (auto& p : c.problems)
    if (p.status == element_status::different && p.witness) {
      counterexample_report r = counterexample_input(spec, s, p);
      r.float_candidate = replay_side(spec, pair.candidate, pair.candidate_entry, spec.candidate, "candidate", r,
                                      options.race.warp_synchronous || options.engine.lockstep_warps);
      auto value = sp.evaluate(detail::spec_source_of(r.tensors, r.scalars));
      r.float_reference = value.at(p.tensor)[p.index];
      r.float_note.clear();
      if (!r.float_candidate) r.float_note = "the kernel's float32 run gave no value for the element";
      else if (static_cast<double>(static_cast<float>(*r.float_reference)) == *r.float_candidate)
        r.float_note = "the kernel's float32 output equals the specification rounded to float32 at this input (the real-valued outputs differ)";
      r.float_note = r.float_note.empty() ? "reference value: the specification evaluated in double"
                                          : r.float_note + "; reference value: the specification evaluated in double";
      res.counterexample = std::move(r);
      break;
    }
  res.compared = std::move(c);
  return res;
}

// The specification the pair spec names (spec.reference_spec), from the registry.
inline check_result check_against_spec(const pair_spec& spec, const resolved_pair& pair, const check_options& options = {}) {
  return check_against_spec(spec, pair, spec_of(spec), options);
}

}  // namespace gpueq::check
