// Happens-before through mbarriers (issue 20 item 2): an arrive releases, the wait that observes
// the phase completion acquires. The correct ring is race-free; the classic ring bugs are races
// naming both accesses' lines. Kernels: tests/exec/mbarrier_kernels.hpp.
#include <gpueq/exec.hpp>
#include <gpueq/race.hpp>

#include "../exec/harness.hpp"
#include "../exec/mbarrier_kernels.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

using namespace exec_test;
using namespace mbarrier_kernels;
namespace race = gpueq::race;

namespace {

struct ring_run {
  std::unique_ptr<kernel> k;
  std::string text;
  race::report report;
  std::optional<exec::run_error> error;
};

ring_run run_kernel(std::string text, const exec::launch& l) {
  ring_run r;
  REQUIRE(!text.empty());
  r.text = std::move(text);
  r.k = load(r.text, "ring.ptx");
  fixture<exec::exact_domain> f([](std::string_view, std::uint64_t e) { return rat(static_cast<long long>(e)); });
  race::context ctx;
  auto o = run(*r.k, l, f.d, &ctx);
  r.error = o.error;
  r.report = ctx.result();
  return r;
}

ring_run run_ring(std::string text) {
  return run_kernel(std::move(text), one_cta(64, {out_f32("y", 32), in_f32("x", 128)}));
}

// The PTX line of an instruction index of the run's kernel.
std::uint32_t line(const ring_run& r, std::uint32_t instruction) {
  return r.k->module.functions[0].instructions[instruction].line;
}

// A race group of `kind` between the lines holding `first` and `second`.
const race::race_group* find(const ring_run& r, race::race_kind kind, std::string_view first, std::string_view second) {
  for (const auto& g : r.report.races)
    if (g.example.kind == kind && line(r, g.example.first.instruction) == line_of(r.text, first) &&
        line(r, g.example.second.instruction) == line_of(r.text, second))
      return &g;
  return nullptr;
}

std::string listing(const ring_run& r) {
  std::string s;
  for (const auto& g : r.report.races)
    s += std::string(race::name(g.example.kind)) + " lines " + std::to_string(line(r, g.example.first.instruction)) +
         " / " + std::to_string(line(r, g.example.second.instruction)) + "; ";
  return s;
}

}  // namespace

TEST_CASE("the mbarrier ring is race-free: arrive releases, the wait that sees the phase acquires") {
  auto r = run_ring(std::string(ring));
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK_MESSAGE(r.report.races.empty(), listing(r));
  CHECK(r.report.race_count == 0);
  CHECK(r.report.barriers.empty());
}

TEST_CASE("a consumer that reads a stage without waiting on full races with the producer's store") {
  // Thread 63 (a consumer) runs first after the bar.sync and reads a stage nobody has filled: the
  // load waits for a write (engine_options::reads_wait_for_writes), the producers fill the stage,
  // and the retried load is a read unordered after their stores.
  // Running ahead, the consumers complete empty[0]'s phase 1 while the producers that phase 0's
  // completion woke have not tested again: the run also ends in that lap (a barrier error; a race
  // found first outranks it in a verdict).
  auto r = run_ring(ring_with("  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r16], %r9;\n  @!%p3 bra WAIT_FULL;\n", ""));
  REQUIRE(r.error);
  CHECK_MESSAGE(r.error->kind == exec::error_kind::barrier, r.error->message);
  CHECK_MESSAGE(contains(r.error->message, "this completes phase 1 of mbarrier empty[0] (shared byte 0) while threads 0..31"),
                r.error->message);
  CHECK_MESSAGE(find(r, race::race_kind::raw, "st.shared.f32 [%r15], %f2;", "ld.shared.f32 %f2, [%r15];") != nullptr,
                listing(r));
}

TEST_CASE("a consumer that releases the stage (arrives on empty) before reading it races with the refill") {
  // The consumer's arrive moves above its load: the producer, woken by the completed empty phase,
  // overwrites the stage that the consumer's read was not ordered before.
  std::string text = ring_with(
      "  ld.shared.f32 %f2, [%r15];\n  add.f32 %f1, %f1, %f2;\n  add.s32 %r12, %r5, %r11;\n"
      "  mbarrier.arrive.shared::cta.b64 %rd5, [%r12];\n",
      "  add.s32 %r12, %r5, %r11;\n  mbarrier.arrive.shared::cta.b64 %rd5, [%r12];\n"
      "  ld.shared.f32 %f2, [%r15];\n  add.f32 %f1, %f1, %f2;\n");
  auto r = run_ring(text);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK_MESSAGE(find(r, race::race_kind::war, "ld.shared.f32 %f2, [%r15];", "st.shared.f32 [%r15], %f2;") != nullptr,
                listing(r));
}

TEST_CASE("a consumer that waits for the wrong parity reads the stage unordered: a race") {
  // Parity ((k / 2) & 1) ^ 1 at phase 0 names the phase before it: the first wait passes at once.
  auto r = run_ring(ring_with("and.b32 %r9, %r9, 1;\n  shl.b32 %r11, %r8, 3;\n  add.s32 %r16",
                              "and.b32 %r9, %r9, 1;\n  xor.b32 %r9, %r9, 1;\n  shl.b32 %r11, %r8, 3;\n  add.s32 %r16"));
  if (r.error) CHECK_MESSAGE(r.error->kind == exec::error_kind::deadlock, r.error->message);
  CHECK_MESSAGE(find(r, race::race_kind::raw, "st.shared.f32 [%r15], %f2;", "ld.shared.f32 %f2, [%r15];") != nullptr,
                listing(r));
}

TEST_CASE("an mbarrier used without a barrier after its init races with the init") {
  auto r = run_ring(ring_with("INIT_DONE:\n  bar.sync 0;\n", "INIT_DONE:\n"));
  REQUIRE_MESSAGE(!r.error, r.error->message);
  // Thread 0's init of full[0] (a write of the object) and another thread's arrive or wait on it
  // (an atomic access) are unordered.
  bool found = false;
  for (const auto& g : r.report.races)
    found = found || line(r, g.example.first.instruction) == line_of(r.text, "mbarrier.init.shared::cta.b64 [%r4], 32;");
  CHECK_MESSAGE(found, listing(r));
}

TEST_CASE("the race context keeps a polled generation's clock for waiters that come later") {
  // Direct: thread 0 writes, arrives (the only arrival: the phase completes); thread 1 acquires
  // that generation long after, then reads. Ordered. Thread 2 reads without acquiring: a race.
  exec::run_info info{3, 32, {{exec::memory_space::shared, "s", 4, 64}}};
  race::context ctx;
  ctx.on_start(info);
  const exec::barrier_key bar{exec::barrier_kind::mbarrier, 0x100000008ull};
  ctx.on_access({0, 0, 0, 4, exec::access_kind::write, 1, {}});
  exec::barrier_registration arrive{0, false, 2};
  ctx.on_barrier_register(arrive, bar, 1, 1);
  ctx.on_barrier_complete({bar, 1, 1, std::span(&arrive, 1)});
  ctx.on_barrier_acquire({1, true, 3}, bar, 1);
  ctx.on_access({1, 0, 0, 4, exec::access_kind::read, 4, {}});
  CHECK(ctx.result().races.empty());
  ctx.on_access({2, 0, 0, 4, exec::access_kind::read, 5, {}});
  REQUIRE(ctx.result().races.size() == 1);
  CHECK(ctx.result().races[0].example.kind == race::race_kind::raw);
  CHECK(ctx.result().races[0].example.second.thread == 2);
  // A generation that never completed (or was never kept) gives nothing: thread 2 acquiring
  // generation 2 still races on a second word written by thread 0.
  ctx.on_access({0, 0, 4, 4, exec::access_kind::write, 6, {}});
  ctx.on_barrier_acquire({2, true, 7}, bar, 2);
  ctx.on_access({2, 0, 4, 4, exec::access_kind::read, 8, {}});
  CHECK(ctx.result().races.size() == 2);
  // No barrier diagnostics: a polled generation completed by arrivals alone is how mbarriers work.
  CHECK(ctx.result().barriers.empty());
}

TEST_CASE("cp.async handed to an mbarrier: waiters are ordered after the copies, bar.sync readers race with them") {
  const exec::launch l = one_cta(64, {out_f32("y", 64), in_f32("x", 64)});
  for (auto v : {tracked_variant::noinc, tracked_variant::inc}) {
    auto r = run_kernel(cp_async_tracked(v), l);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK_MESSAGE(r.report.races.empty(), listing(r));
  }
  // bar.sync does not wait for cp.async copies: the read of buf[63 - t] races with thread
  // 63 - t's copy, a write of its asynchronous agent.
  auto r = run_kernel(cp_async_tracked(tracked_variant::bar_sync), l);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  CHECK_MESSAGE(find(r, race::race_kind::raw, "cp.async.ca.shared.global [%r5], [%rd4], 4;", "ld.shared.f32 %f1, [%r8];") !=
                    nullptr,
                listing(r));
}

namespace {

// One value handed over through an mbarrier: thread 0 initializes it (`count` arrivals), a
// bar.sync publishes the init, thread 0 runs `before_wait` and waits on phase 0 with `wait`, then
// loads the shared word that thread 32 stored before running `producer`; thread 33 runs
// `helper`. Every spelling below passes `ptxas -arch=sm_90a` (with `.version 8.6`, which `.relaxed`
// needs, and `.target sm_90a` in place of the harness's header).
std::string handoff(int count, std::string_view before_wait, std::string_view wait, std::string_view producer,
                    std::string_view helper = "") {
  return R"(
.visible .entry handoff(.param .u64 y_param)
{
  .reg .pred %p<5>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .u32 data;
  ld.param.u64 %rd1, [y_param];
  mov.u32 %r1, bar;
  mov.u32 %r5, data;
  mov.u32 %r2, %tid.x;
  setp.ne.u32 %p2, %r2, 0;
  @%p2 bra READY;
  mbarrier.init.shared::cta.b64 [%r1], )" +
         std::to_string(count) + R"(;
READY:
  bar.sync 0;
  @%p2 bra OTHER;
)" + std::string(before_wait) +
         R"(WAIT:
  )" + std::string(wait) +
         R"( %p1, [%r1], 0;
  @!%p1 bra WAIT;
  ld.shared.u32 %r3, [%r5];
  st.global.u32 [%rd1], %r3;
  ret;
OTHER:
  setp.eq.u32 %p4, %r2, 33;
  @%p4 bra HELPER;
  setp.ne.u32 %p3, %r2, 32;
  @%p3 bra OUT;
  st.shared.u32 [%r5], 7;
)" + std::string(producer) +
         R"(  ret;
HELPER:
)" + std::string(helper) +
         R"(OUT:
  ret;
}
)";
}

ring_run run_handoff(std::string text) { return run_kernel(std::move(text), one_cta(64, {out_int("y", 1)})); }

constexpr std::string_view acquire_wait = "mbarrier.try_wait.parity.shared::cta.b64";
constexpr std::string_view release_arrive = "  mbarrier.arrive.shared::cta.b64 _, [%r1];\n";

}  // namespace

// PTX ISA, mbarrier: "The .relaxed qualifier does not provide any memory ordering semantics and
// visibility guarantees"; mbarrier.expect_tx and mbarrier.complete_tx admit only .relaxed. The
// ordering a wait gives covers the accesses before an arrive with release semantics (and the
// async copies handed to the object), so each of these hand-overs is a race; the default
// (.release arrive, .acquire wait) is the control that orders the same accesses.
TEST_CASE("mbarrier: only a releasing arrive and an acquiring wait order a hand-over") {
  SUBCASE("the control: .release arrive (default), .acquire wait (default): race-free") {
    auto r = run_handoff(handoff(1, "", acquire_wait, release_arrive));
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK_MESSAGE(r.report.races.empty(), listing(r));
  }
  SUBCASE("a .relaxed arrive releases nothing") {
    auto r = run_handoff(handoff(1, "", acquire_wait, "  mbarrier.arrive.relaxed.cta.shared::cta.b64 _, [%r1];\n"));
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK_MESSAGE(find(r, race::race_kind::raw, "st.shared.u32 [%r5], 7;", "ld.shared.u32 %r3, [%r5];") != nullptr,
                  listing(r));
  }
  SUBCASE("a .relaxed wait acquires nothing") {
    auto r = run_handoff(handoff(1, "", "mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64", release_arrive));
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK_MESSAGE(find(r, race::race_kind::raw, "st.shared.u32 [%r5], 7;", "ld.shared.u32 %r3, [%r5];") != nullptr,
                  listing(r));
  }
  SUBCASE("mbarrier.complete_tx releases nothing") {
    auto r = run_handoff(handoff(1, "  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 4;\n", acquire_wait,
                                 "  mbarrier.complete_tx.shared::cta.b64 [%r1], 4;\n"));
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK_MESSAGE(find(r, race::race_kind::raw, "st.shared.u32 [%r5], 7;", "ld.shared.u32 %r3, [%r5];") != nullptr,
                  listing(r));
  }
  SUBCASE("mbarrier.expect_tx releases nothing, though the phase cannot complete before it") {
    // Two arrivals: thread 0's and thread 33's (after its complete_tx); thread 32 only stores and
    // expects the 4 bytes.
    auto r = run_handoff(handoff(2, release_arrive, acquire_wait, "  mbarrier.expect_tx.shared::cta.b64 [%r1], 4;\n",
                                 "  mbarrier.complete_tx.shared::cta.b64 [%r1], 4;\n" + std::string(release_arrive)));
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK_MESSAGE(find(r, race::race_kind::raw, "st.shared.u32 [%r5], 7;", "ld.shared.u32 %r3, [%r5];") != nullptr,
                  listing(r));
  }
}
