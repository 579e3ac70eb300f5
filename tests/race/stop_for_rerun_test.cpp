// engine_options::stop_for_rerun: a run that went warp-wide stops after the warp-wide
// instruction, warp turn or thread's turn in a pass in which its race context found a race (check::run_cta runs such a run again under round robin),
// and run_cta's result is the round-robin run's, with or without the early stop.
#include <gpueq/check/run.hpp>
#include <gpueq/exec.hpp>
#include <gpueq/race.hpp>

#include "../exec/harness.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>

using namespace exec_test;
namespace race = gpueq::race;

namespace {

// Every thread writes s[0] (a WAW race among the first warp's lanes, found in its first round),
// then counts to 5000 and writes the count to out[tid].
const char* racy_then_long = R"(
.visible .entry k(.param .u64 out_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b32 s[1];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  st.shared.u32 [%r2], %r1;
  mov.u32 %r3, 0;
LOOP:
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, 5000;
  @%p1 bra LOOP;
  ld.param.u64 %rd1, [out_param];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r3;
  ret;
}
)";

// The same with a fence first: warp-wide execution stops at it (after the two movs), and the
// per-thread pass runs each thread to its exit; thread 1's store meets thread 0's.
std::string racy_after_fence() {
  std::string s = racy_then_long;
  const std::string after = "  mov.u32 %r2, s;\n";
  s.insert(s.find(after) + after.size(), "  membar.cta;\n");
  return s;
}

struct observed_run {
  std::optional<exec::run_error> error;
  bool raced = false;
  std::uint64_t steps = 0;
  race::report report;
};

// Runs k in float32 with a race context; the run fails exactly when `fails` says, and it went
// warp-wide exactly when asked to.
observed_run run_with(const kernel& k, const exec::launch& l, bool warp_wide, bool stop, bool fails = false) {
  exec::float32_domain d([](const exec::input_ref&) { return 0.0; });
  race::context ctx;
  exec::engine_options o;
  o.warp_wide = warp_wide;
  o.stop_for_rerun = stop;
  exec::engine<exec::float32_domain, race::context> e(k.program, l, d, ctx, o);
  auto error = e.run();
  CHECK(error.has_value() == fails);
  CHECK(e.went_warp_wide() == warp_wide);
  return {error, ctx.found_race(), e.stats().steps, ctx.result()};
}

// check::run_cta (which sets stop_for_rerun) reports round robin's error and steps.
void run_cta_fails_as(const kernel& k, const exec::launch& l, const observed_run& rr) {
  exec::float32_domain d([](const exec::input_ref&) { return 0.0; });
  race::context ctx;
  auto out = gpueq::check::run_cta(d, k.program, l, ctx);
  REQUIRE(out.error.has_value());
  CHECK(out.error->message == rr.error->message);
  CHECK(out.steps == rr.steps);
}

}  // namespace

TEST_CASE("a warp-wide run that met a race stops early under stop_for_rerun; run_cta's report is round robin's") {
  auto k = load(racy_then_long);
  auto l = one_cta(64, {out_int("out", 64)});
  // Each thread: 4 instructions, 5000 iterations of 3, then 6.
  const std::uint64_t full = 64 * (4 + 5000 * 3 + 6);
  observed_run rr = run_with(*k, l, false, false), ww = run_with(*k, l, true, false), stopped = run_with(*k, l, true, true);
  CHECK(rr.raced);
  CHECK(ww.raced);
  CHECK(stopped.raced);
  CHECK(rr.steps == full);
  CHECK(ww.steps == full);
  // Warp 0's lanes ran mov, mov and the racing st.shared warp-wide, and the run stopped there.
  CHECK(stopped.steps == 3 * 32);
  // Under round robin the option changes nothing.
  CHECK(run_with(*k, l, false, true).steps == full);
  // run_cta (which sets the option) reports what round robin reports.
  exec::float32_domain d([](const exec::input_ref&) { return 0.0; });
  race::context ctx;
  auto out = gpueq::check::run_cta(d, k->program, l, ctx);
  CHECK_FALSE(out.error.has_value());
  CHECK(out.steps == full);
  const race::report r = ctx.result();
  REQUIRE(r.races.size() == rr.report.races.size());
  REQUIRE_FALSE(r.races.empty());
  for (std::size_t i = 0; i < r.races.size(); ++i) {
    CHECK(r.races[i].example == rr.report.races[i].example);
    CHECK(r.races[i].count == rr.report.races[i].count);
  }
}

TEST_CASE("stop_for_rerun also stops a pass after the thread whose turn met the race") {
  auto k = load(racy_after_fence());
  auto l = one_cta(64, {out_int("out", 64)});
  const std::uint64_t per_thread = 5 + 5000 * 3 + 6;
  observed_run rr = run_with(*k, l, false, false), stopped = run_with(*k, l, true, true);
  CHECK(rr.raced);
  CHECK(stopped.raced);
  CHECK(rr.steps == 64 * per_thread);
  // Both warps ran the two movs warp-wide; then threads 0 and 1 ran to their exits.
  CHECK(stopped.steps == 64 * 2 + 2 * (per_thread - 2));
  exec::float32_domain d([](const exec::input_ref&) { return 0.0; });
  race::context ctx;
  auto out = gpueq::check::run_cta(d, k->program, l, ctx);
  CHECK(out.steps == rr.steps);
  const race::report r = ctx.result();
  REQUIRE(r.races.size() == rr.report.races.size());
  for (std::size_t i = 0; i < r.races.size(); ++i) CHECK(r.races[i].example == rr.report.races[i].example);
}

// Thread 40 stores out of bounds (out has 40 elements) after a long loop. Under stop_for_rerun
// the warp-wide run fails as soon as lane 40's store would; run_cta's error and steps are round
// robin's.
namespace {
const char* late_oob = R"(
.visible .entry k(.param .u64 out_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, 0;
LOOP:
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, 1000;
  @%p1 bra LOOP;
  ld.param.u64 %rd1, [out_param];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r3;
  ret;
}
)";
}  // namespace

TEST_CASE("stop_for_rerun: a lane that fails warp-wide stops the run; run_cta's error is round robin's") {
  auto k = load(late_oob);
  auto l = one_cta(64, {out_int("out", 40)});
  const std::uint64_t per_thread = 2 + 1000 * 3 + 6;  // to ret; the store is the 5th after the loop
  observed_run rr = run_with(*k, l, false, false, true), ww = run_with(*k, l, true, false, true),
               stopped = run_with(*k, l, true, true, true);
  REQUIRE(rr.error.has_value());
  REQUIRE(ww.error.has_value());
  REQUIRE(stopped.error.has_value());
  CHECK(rr.error->kind == exec::error_kind::out_of_bounds);
  CHECK(rr.error->thread == 40);
  // Round robin: threads 0..39 run to their exits, thread 40 up to its store.
  CHECK(rr.steps == 40 * per_thread + per_thread - 1);
  CHECK(ww.error->message == rr.error->message);
  // Warp 0 ran warp-wide up to its ret (an exit is no warp-wide instruction), then warp 1 up to
  // the store, which lanes 32..39 ran and lane 40 failed (its step counted).
  CHECK(stopped.error->kind == exec::error_kind::out_of_bounds);
  CHECK(stopped.error->thread == 40);
  CHECK(stopped.steps == 32 * (per_thread - 1) + 32 * (per_thread - 2) + 9);
  run_cta_fails_as(*k, l, rr);
}

// After a barrier's release the warp-wide rounds begin with the warp of the thread that completed
// it (round robin goes on with that thread): here thread 63 completes bar.sync, and warp 1's
// lanes store first, so that lane 40's out-of-bounds store fails before warp 0 stores at all.
// Round robin meets thread 63's store first (it goes on right after its barrier), which run_cta
// reports.
namespace {
const char* oob_after_barrier = R"(
.visible .entry k(.param .u64 out_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [out_param];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  bar.sync 0;
  st.global.u32 [%rd4], %r1;
  ret;
}
)";
}  // namespace

TEST_CASE("stop_for_rerun: after a release the rounds begin with the releasing thread's warp") {
  auto k = load(oob_after_barrier);
  auto l = one_cta(64, {out_int("out", 40)});
  observed_run rr = run_with(*k, l, false, false, true), stopped = run_with(*k, l, true, true, true);
  REQUIRE(rr.error.has_value());
  REQUIRE(stopped.error.has_value());
  // Round robin: every thread runs its 6 instructions up to bar.sync; thread 63, the last, goes
  // on to its store.
  CHECK(rr.error->thread == 63);
  CHECK(rr.steps == 64 * 6 + 1);
  // Warp-wide: 5 instructions per lane, the barrier thread by thread, then warp 1 first: lanes
  // 32..39 store and lane 40 fails (its step counted). (Warp 0 first would add its 32 stores.)
  CHECK(stopped.error->thread == 40);
  CHECK(stopped.steps == 64 * 6 + 9);
  run_cta_fails_as(*k, l, rr);
}
