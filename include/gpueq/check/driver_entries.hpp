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
  check_result res;
  res.given = given_of(spec);
  auto t0 = std::chrono::steady_clock::now();
  prepared_kernel ref = prepare(spec, pair.reference, pair.reference_entry, spec.reference, "reference");
  prepared_kernel cand = prepare(spec, pair.candidate, pair.candidate_entry, spec.candidate, "candidate");
  term::store s;
  const prepared_kernel* sides[] = {&ref, &cand};
  std::vector<kernel_run> runs;
  std::vector<side_report> reports = run_sides(s, sides, runs, options);
  res.reference = std::move(reports[0]);
  res.candidate = std::move(reports[1]);
  kernel_run &rr = runs[0], &cr = runs[1];
  res.run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.terms = s.size();

  if (screen(res, {&res.reference, &res.candidate})) return res;
  detail::fill_inout(s, cand.launch, rr.values, cr.values);

  if (options.float32_report) res.float32 = float32_difference(spec, ref, cand, options.threads);
  detail::wording w;
  w.what = std::to_string(detail::element_count(rr.values)) + " output elements (reference: " +
           detail::runs_text(res.reference.ctas, spec.reference) + "; candidate: " +
           detail::runs_text(res.candidate.ctas, spec.candidate) + ")";
  detail::compare_and_explain(res, s, rr.values, cr.values, w, options, [&](const element_result& p) {
    return replay(spec, ref, cand, s, p, options.threads, options.race.warp_synchronous || options.engine.lockstep_warps);
  });
  return res;
}

GPUEQ_ENTRY check_result check_pair(const pair_spec& spec, const resolved_pair& pair, const check_options& options) {
  if (spec.reference_spec) return check_against_spec(spec, pair, options);
  return check_kernels(spec, pair, options);
}

}  // namespace gpueq::check
