// The race driver: proves each kernel of a spec free of data races and deadlocks, or reports
// them, as `gpueq race` does. It sits on top of check's run stage (every CTA of a prepared kernel
// run symbolically with the race context observing, check/sides.hpp) and screen stage (one
// verdict per kernel, check/verdict.hpp), and adds race witnesses (check/explain.hpp) for the
// first race groups. A specification reference is no kernel and has nothing to race: only the
// kernels of a spec are checked. Rendering the result (text, JSON, SARIF) is the caller's.
#pragma once

#include <gpueq/check/driver.hpp>
#include <gpueq/check/explain.hpp>
#include <gpueq/check/prepared.hpp>
#include <gpueq/check/sides.hpp>
#include <gpueq/check/spec.hpp>
#include <gpueq/support/entry.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace gpueq::race {

struct driver_options {
  bool warp_synchronous = false;  // legacy pre-Volta mode: a warp's threads in lockstep never race
  // Race groups of the first racy CTA for which to search a witness (0: none).
  std::size_t witnesses = 0;
  // Tolerate benign same-value races (check_options::allow_benign): a kernel whose races are all
  // such WAWs is race-free with its races as a note (side_report::benign_tolerated).
  bool allow_benign = false;
  // CUDA's rule for __syncthreads instead of PTX's barrier semantics (race::options::strict_barriers):
  // a thread that exits before a whole-CTA barrier other threads reach, or threads reaching one
  // generation at different barrier instructions, is a barrier-divergence error.
  bool strict_barriers = false;
  unsigned threads = 1;  // for the CTAs of a kernel; results do not depend on it
  exec::engine_options engine;
};

// One kernel's result.
struct kernel_result {
  std::string side;  // "reference", "candidate" or "kernel" (a single-kernel spec)
  const check::kernel_spec* kernel = nullptr;  // into the spec given to check_races
  check::side_report r;  // the run stage's report, with the entry and the source line of every instruction
  std::vector<check::race_witness> witnesses;  // one per race group, for the first driver_options::witnesses
};

// A kernel's verdict in check's vocabulary by the screen stage's precedence (a race found before
// the run stopped, a run error, a barrier problem, an inter-CTA conflict); none when the kernel is
// race-free and well-synchronized.
inline std::optional<check::verdict> finding(const kernel_result& k) {
  check::check_result r;
  if (!check::screen(r, {&k.r})) return std::nullopt;
  return r.v;
}
inline int exit_code(const kernel_result& k) {
  auto v = finding(k);
  return v ? check::exit_code(*v) : 0;
}
inline std::string verdict_name(const kernel_result& k) {
  auto v = finding(k);
  return v ? std::string(check::name(*v)) : "race-free";
}

// Checks every kernel of `spec` (resolved as `pair`): the reference and the candidate of a pair
// of kernels, the candidate of a pair against a specification, the kernel of a single-kernel spec.
GPUEQ_ENTRY std::vector<kernel_result> check_races(const check::pair_spec& spec, const check::resolved_pair& pair,
                                                   const driver_options& options = {});

}  // namespace gpueq::race

// The body of check_races: compiled here (header-only) or in gpueq::compiled (support/entry.hpp).
#if GPUEQ_ENTRY_BODIES
#include <gpueq/race/driver_entries.hpp>
#endif
