// The bodies of check's entry points (declared and documented in check/driver.hpp): included by
// driver.hpp in the header-only build, compiled once into gpueq::compiled otherwise
// (support/entry.hpp, src/check_entries.cpp).
#pragma once

#include <gpueq/check/driver.hpp>

namespace gpueq::check {

GPUEQ_ENTRY check_result check_against_spec(const pair_spec& spec, const resolved_pair& pair, const specification& sp,
                                            const check_options& options) {
  check_result res;
  res.given = given_of(spec);
  auto t0 = std::chrono::steady_clock::now();
  prepared_kernel cand = prepare(spec, pair.candidate, pair.candidate_entry, spec.candidate, "candidate");
  term::store s;
  outputs want = sp.lower(s);
  detail::check_spec_outputs(spec, sp, want);
  kernel_run cr;
  res.reference.name = "specification";
  res.candidate = run_side(s, cand, cr, options);
  res.run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.terms = s.size();

  side_report& k = res.candidate;
  if (screen(res, {&k})) return res;
  detail::fill_inout(s, cand.launch, want, cr.values);

  if (options.float32_report) res.float32 = detail::spec_float32_difference(spec, cand, sp, options.threads);
  detail::wording w;
  w.reference = "specification";
  w.what = std::to_string(detail::element_count(want)) + " output elements (specification '" + sp.name + "'; candidate: " +
           detail::runs_text(k.ctas, spec.candidate) + ")";
  w.written_by_one = "are not written by the kernel";
  w.proved = "elements of";
  w.equal = "equal the specification over the reals";
  detail::compare_and_explain(res, s, want, cr.values, w, options, [&](const element_result& p) {
    counterexample_report r = counterexample_input(spec, s, p);
    r.float_candidate = replay_side(cand, r, options.threads, options.race.warp_synchronous || options.engine.lockstep_warps);
    auto value = sp.evaluate(detail::spec_source_of(r.tensors, r.scalars));
    r.float_reference = value.at(p.tensor)[p.index];
    r.float_note.clear();
    if (!r.float_candidate) r.float_note = "the kernel's float32 run gave no value for the element";
    else if (static_cast<double>(static_cast<float>(*r.float_reference)) == *r.float_candidate)
      r.float_note = "the kernel's float32 output equals the specification rounded to float32 at this input (the real-valued outputs differ)";
    r.float_note = r.float_note.empty() ? "reference value: the specification evaluated in double"
                                        : r.float_note + "; reference value: the specification evaluated in double";
    return r;
  });
  return res;
}

GPUEQ_ENTRY check_result check_against_spec(const pair_spec& spec, const resolved_pair& pair, const check_options& options) {
  return check_against_spec(spec, pair, spec_of(spec), options);
}

GPUEQ_ENTRY check_result check_kernels(const pair_spec& spec, const resolved_pair& pair, const check_options& options) {
  auto t0 = std::chrono::steady_clock::now();
  prepared_kernel ref = prepare(spec, pair.reference, pair.reference_entry, spec.reference, "reference");
  prepared_kernel cand = prepare(spec, pair.candidate, pair.candidate_entry, spec.candidate, "candidate");
  term::store s;
  const prepared_kernel* sides[] = {&ref, &cand};
  // One path of the case split (check/paths.hpp); without a branch point the first is the check.
  case_paths paths;
  std::uint32_t explored = 0, dropped = 0;
  std::optional<check_result> last;  // the last feasible path's result (each so far equivalent)
  for (;;) {
    if (explored == options.max_paths && explored > 0) {  // paths remain: the budget is spent
      check_result res = last ? std::move(*last) : check_result{};
      res.given = given_of(spec);
      res.v = verdict::unknown;
      res.summary = "the case split over comparisons of symbolic values needs more than " + std::to_string(options.max_paths) +
                    " paths (the budget, --max-paths): " + std::to_string(explored) + " explored (" +
                    std::to_string(dropped) + " of them dropped as contradictory), every feasible one equivalent";
      return res;
    }
    check_result res;
    res.given = given_of(spec);
    std::vector<kernel_run> runs;
    std::vector<side_report> reports = run_sides(s, sides, runs, options, options.max_paths ? &paths : nullptr);
    ++explored;
    res.reference = std::move(reports[0]);
    res.candidate = std::move(reports[1]);
    kernel_run &rr = runs[0], &cr = runs[1];
    res.run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.terms = s.size();
    const bool split = paths.branched();
    const std::string path = split ? " (case split, path " + std::to_string(explored) + ": " + describe_path(s, paths) + ")" : "";
    if (screen(res, {&res.reference, &res.candidate})) {
      if (split) res.summary += path;
      return res;
    }
    check_options path_options = options;
    if (split) {
      term::order o = assumptions_of(s, paths);
      if (!o.consistent(s)) {  // no input takes this path
        ++dropped;
        if (!advance(paths)) break;
        continue;
      }
      resolve_outputs(s, o, rr.values);
      resolve_outputs(s, o, cr.values);
      // A counterexample of this path must take this path.
      path_options.compare.decide.constrained = assumption_terms(paths);
      path_options.compare.decide.admissible = [&paths](const term::store& in, const canon::assignment& at) {
        return satisfies(in, paths, at);
      };
    }
    detail::fill_inout(s, cand.launch, rr.values, cr.values);
    if (options.float32_report && explored == 1) res.float32 = float32_difference(spec, ref, cand, options.threads);
    detail::wording w;
    w.what = std::to_string(detail::element_count(rr.values)) + " output elements (reference: " +
             detail::runs_text(res.reference.ctas, spec.reference) + "; candidate: " +
             detail::runs_text(res.candidate.ctas, spec.candidate) + ")";
    detail::compare_and_explain(res, s, rr.values, cr.values, w, path_options, [&](const element_result& p) {
      return replay(spec, ref, cand, s, p, options.threads, options.race.warp_synchronous || options.engine.lockstep_warps);
    });
    if (!split) return res;
    if (res.v != verdict::equivalent) {
      res.summary += path;
      return res;
    }
    last = std::move(res);
    if (!advance(paths)) break;
  }
  // Every path explored, every feasible one equivalent (a path is feasible for some input, so at
  // least one was compared).
  if (!last) last.emplace();  // (none feasible: the assumptions' reasoning is wrong somewhere)
  last->summary += ". Case split over comparisons of symbolic values: equivalent on each of the " +
                   std::to_string(explored - dropped) + " feasible path(s) (" + std::to_string(dropped) +
                   " dropped as contradictory).";
  return std::move(*last);
}

GPUEQ_ENTRY check_result check_pair(const pair_spec& spec, const resolved_pair& pair, const check_options& options) {
  if (spec.reference_spec) return check_against_spec(spec, pair, options);
  return check_kernels(spec, pair, options);
}

GPUEQ_ENTRY grid_outputs run_outputs(const prepared_kernel& k, run_domain d,
                                     const std::function<double(const exec::input_ref&)>& source,
                                     const exec::engine_options& options) {
  grid_outputs out;
  auto take = [&](auto& g) { out.error = g.error, out.steps = g.steps, out.ctas = g.ctas; };
  if (d == run_domain::float32) {
    auto g = run_grid<exec::float32_domain>(k, [&] { return exec::float32_domain(source); }, 1, options);
    for (auto& [name, vals] : g.values) out.values[name] = vals.dense();
    take(g);
  } else if (d == run_domain::rational) {
    auto g = run_grid<exec::exact_domain>(
        k, [&] { return exec::exact_domain([&](const exec::input_ref& r) { return support::rational(source(r)); }); }, 1, options);
    for (auto& [name, vals] : g.values)
      for (auto& v : vals.dense()) out.values[name].push_back(v ? std::optional<double>(v->convert_to<double>()) : std::nullopt);
    take(g);
  } else {
    term::store s;
    auto g = run_grid<exec::symbolic_domain>(k, [&] { return exec::symbolic_domain(s); }, 1, options);
    for (auto& [name, vals] : g.values)
      for (auto& v : vals.dense()) out.texts[name].push_back(v ? std::optional<std::string>(short_text(s, *v, 2000)) : std::nullopt);
    take(g);
  }
  return out;
}

}  // namespace gpueq::check
