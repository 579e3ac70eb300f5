// The body of race::check_races (declared and documented in race/driver.hpp): included by
// driver.hpp in the header-only build, compiled once into gpueq::compiled otherwise
// (support/entry.hpp, src/race_entries.cpp).
#pragma once

#include <gpueq/race/driver.hpp>

namespace gpueq::race {

GPUEQ_ENTRY std::vector<kernel_result> check_races(const check::pair_spec& spec, const check::resolved_pair& pair,
                                                   const driver_options& options) {
  check::check_options co;
  co.race.warp_synchronous = options.warp_synchronous;
  co.allow_benign = options.allow_benign;
  co.race.strict_barriers = options.strict_barriers;
  co.threads = options.threads;
  co.engine = options.engine;
  co.float32_report = false;
  std::vector<kernel_result> out;
  for (bool cand : {false, true}) {
    if (cand && spec.single) break;
    if (!check::has_kernel(spec, cand)) continue;
    kernel_result k;
    k.side = spec.single ? "kernel" : cand ? "candidate" : "reference";
    k.kernel = cand ? &spec.candidate : &spec.reference;
    check::prepared_kernel p = check::prepare(spec, cand ? pair.candidate : pair.reference,
                                              cand ? pair.candidate_entry : pair.reference_entry, *k.kernel, k.side);
    term::store s;
    check::kernel_run outputs;
    k.r = check::run_side(s, p, outputs, co);
    if (options.witnesses && !k.r.error && k.r.race_report)
      for (std::size_t g = 0; g < k.r.race_report->races.size() && g < options.witnesses; ++g)
        k.witnesses.push_back(check::witness(spec, p, *k.r.race_cta, k.r.race_report->races[g].example));
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace gpueq::race
