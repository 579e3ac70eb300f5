// A warp-wide run that stops at a deadlock and met no race is round robin's deadlock as it stands
// (exec::engine::deadlock_is_round_robins): the same message, the same steps, so check::run_cta
// keeps it instead of running the CTA again. A deadlock the scheduler's passes took part in
// (parked mbarrier waits answered false) is run again. Each case is compared with a run under
// round robin.
#include <gpueq/check/run.hpp>
#include <gpueq/exec.hpp>
#include <gpueq/race.hpp>

#include "../exec/harness.hpp"
#include "../exec/mbarrier_kernels.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

using namespace exec_test;
namespace race = gpueq::race;

namespace {

// 96 threads. Warp 0 produces one chunk (bar.arrive 1, 96 after it) and exits; warps 1 and 2
// consume two (bar.sync 1, 96), so the second generation has 64 of 96 threads and the producer
// has exited. Each chunk every thread adds up 40 numbers and stores the sum to its own element.
const char* producer_short = R"(
.visible .entry producer_short(.param .u64 out_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out_param];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  setp.lt.u32 %p1, %r1, 32;
  selp.u32 %r2, 1, 2, %p1;
  mov.u32 %r3, 0;
CHUNK:
  mov.u32 %r4, 0;
  mov.u32 %r5, 0;
SUM:
  add.u32 %r5, %r5, %r4;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p2, %r4, 40;
  @%p2 bra SUM;
  add.u32 %r6, %r5, %r3;
  st.global.u32 [%rd4], %r6;
  @%p1 bar.arrive 1, 96;
  @!%p1 bar.sync 1, 96;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p3, %r3, %r2;
  @%p3 bra CHUNK;
  ret;
}
)";

// 64 threads: warp 0 waits at barrier 1, warp 1 at barrier 2 (each for all threads) after some
// arithmetic: neither generation can complete.
const char* split_barriers = R"(
.visible .entry split(.param .u64 out_param)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out_param];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  mov.u32 %r2, 0;
LOOP:
  add.u32 %r2, %r2, 3;
  setp.lt.u32 %p1, %r2, 300;
  @%p1 bra LOOP;
  st.global.u32 [%rd4], %r2;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bar.sync 1;
  @!%p2 bar.sync 2;
  st.global.u32 [%rd4], %r1;
  ret;
}
)";

// 32 threads: lanes 0..15 shuffle with the full member mask, lanes 16..31 wait at a CTA barrier
// for every thread: each half waits for the other.
const char* shuffle_vs_barrier = R"(
.visible .entry crossed(.param .u64 out_param)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out_param];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  mul.lo.u32 %r2, %r1, 7;
  add.u32 %r3, %r2, 5;
  st.global.u32 [%rd4], %r3;
  setp.lt.u32 %p1, %r1, 16;
  @!%p1 bra WAIT;
  shfl.sync.bfly.b32 %r4, %r3, 1, 31, -1;
  st.global.u32 [%rd4], %r4;
  bra.uni DONE;
WAIT:
  bar.sync 0;
DONE:
  ret;
}
)";

struct deadlocked_run {
  exec::run_error error;
  std::uint64_t steps = 0;
  bool went_warp_wide = false, round_robins = false;
};

deadlocked_run run_engine(const kernel& k, const exec::launch& l, bool warp_wide) {
  exec::float32_domain d([](const exec::input_ref&) { return 1.0; });
  race::context ctx;
  exec::engine_options o;
  o.warp_wide = warp_wide;
  exec::engine<exec::float32_domain, race::context> e(k.program, l, d, ctx, o);
  auto error = e.run();
  REQUIRE(error.has_value());
  CHECK_FALSE(ctx.found_race());
  return {*error, e.stats().steps, e.went_warp_wide(), e.deadlock_is_round_robins(*error)};
}

// k deadlocks under both schedules with the same report and steps; run_cta reports the same.
// Returns whether the warp-wide run was round robin's as it stood.
bool same_deadlock(const kernel& k, const exec::launch& l) {
  deadlocked_run rr = run_engine(k, l, false), ww = run_engine(k, l, true);
  CHECK(rr.error.kind == exec::error_kind::deadlock);
  CHECK_FALSE(rr.went_warp_wide);
  CHECK(ww.went_warp_wide);  // (else the case tests nothing)
  CHECK(ww.error.kind == rr.error.kind);
  CHECK(ww.error.message == rr.error.message);
  CHECK(ww.error.thread == rr.error.thread);
  CHECK(ww.steps == rr.steps);
  exec::float32_domain d([](const exec::input_ref&) { return 1.0; });
  race::context ctx;
  auto out = gpueq::check::run_cta(d, k.program, l, ctx);
  REQUIRE(out.error.has_value());
  CHECK(out.error->message == rr.error.message);
  CHECK(out.steps == rr.steps);
  CHECK_FALSE(ctx.found_race());
  return ww.round_robins;
}

}  // namespace

TEST_CASE("a warp-wide deadlock without a race is round robin's: message and steps") {
  SUBCASE("a producer that arrives once too few times at a named barrier") {
    auto k = load(producer_short, "producer_short.ptx");
    auto l = one_cta(96, {out_int("out", 96)});
    CHECK(same_deadlock(*k, l));
    deadlocked_run rr = run_engine(*k, l, false);
    // Steps by hand: 8 instructions before the loop; a chunk is 2 movs, 40 rounds of the sum's
    // 4, the add and the store, both barrier instructions (the one whose guard is false counts
    // too) = 166, then add, setp, bra = 169. The producer runs one chunk and ret; a consumer one
    // chunk and its second up to the bar.sync it waits at.
    CHECK_MESSAGE(rr.error.message.find("[barrier 1 generation 2: 64 registered, 96 expected]") != std::string::npos,
                  rr.error.message);
    CHECK_MESSAGE(rr.error.message.find("32 thread(s) exited") != std::string::npos, rr.error.message);
    const std::uint64_t producer = 8 + 169 + 1, consumer = 8 + 169 + 166;
    CHECK(rr.steps == 32 * producer + 64 * consumer);
  }
  SUBCASE("two warps at two different barriers") {
    auto k = load(split_barriers, "split.ptx");
    CHECK(same_deadlock(*k, one_cta(64, {out_int("out", 64)})));
  }
  SUBCASE("half a warp at a shuffle, half at a CTA barrier") {
    auto k = load(shuffle_vs_barrier, "crossed.ptx");
    CHECK(same_deadlock(*k, one_cta(32, {out_int("out", 32)})));
  }
}

TEST_CASE("a deadlock reached through parked mbarrier waits answered false runs again under round robin") {
  // The ring's producer waits on empty[0] without the initial parity flip (mbarrier_test): every
  // wait parks, the scheduler answers them false until it gives up, and only then is it a
  // deadlock. How often it answered depends on the passes: run_cta runs it again.
  std::string text = mbarrier_kernels::ring_with("  xor.b32 %r10, %r9, 1;\n", "  mov.b32 %r10, %r9;\n");
  REQUIRE(!text.empty());
  auto k = load(text, "parity.ptx");
  auto l = one_cta(64, {out_f32("y", 32), in_f32("x", 128)});
  deadlocked_run ww = run_engine(*k, l, true);
  CHECK(ww.error.kind == exec::error_kind::deadlock);
  CHECK(ww.went_warp_wide);
  CHECK_FALSE(ww.round_robins);
  deadlocked_run rr = run_engine(*k, l, false);
  exec::float32_domain d([](const exec::input_ref&) { return 1.0; });
  race::context ctx;
  auto out = gpueq::check::run_cta(d, k->program, l, ctx);
  REQUIRE(out.error.has_value());
  CHECK(out.error->message == rr.error.message);
  CHECK(out.steps == rr.steps);
}
