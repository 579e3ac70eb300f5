// Barrier diagnostics through the engine and the race context on small hand-written PTX (issue 21
// item 6): a named-barrier generation that only ever sees bar.arrive is an error naming the
// barrier, the generation and the lines of the arrives (WEFT's all-arrivals class), while a
// producer/consumer handshake (arrive + sync) stays clean; and strict mode
// (race::options::strict_barriers, CUDA's rule for __syncthreads) reports a thread that exits
// before a whole-CTA barrier the others reach, and threads that reach one generation at two
// barrier instructions, which PTX's semantics (the default) accept. Each kernel, with the
// harness's header (.version 8.0, .target sm_80), passes `ptxas -arch=sm_80`.
#include <gpueq/exec.hpp>
#include <gpueq/race.hpp>

#include "../exec/harness.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace exec_test;
namespace race = gpueq::race;

namespace {

using ranges = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

// Named barrier 1, 64 threads: warp 0 copies x into s and arrives, warp 1 waits and copies s to y.
constexpr std::string_view named_handoff = R"(
.visible .entry handoff(.param .u64 y_param, .param .u64 x_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<6>;
  .shared .align 4 .f32 s[32];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  shl.b32 %r3, %r2, 2;
  mov.u32 %r4, s;
  add.s32 %r5, %r4, %r3;
  mul.wide.u32 %rd3, %r2, 4;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra CONSUMER;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  st.shared.f32 [%r5], %f1;
  bar.arrive 1, 64;
  ret;
CONSUMER:
  bar.sync 1, 64;
  ld.shared.f32 %f1, [%r5];
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f1;
  ret;
}
)";

// Threads t >= n return before the __syncthreads (bar.sync 0) the others reach; the others
// reverse x[0..n) into y through s.
constexpr std::string_view early_exit = R"(
.visible .entry early_exit(.param .u64 y_param, .param .u64 x_param, .param .u32 n_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<6>;
  .shared .align 4 .f32 s[64];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  ld.param.u32 %r2, [n_param];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, %r2;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, s;
  add.s32 %r5, %r4, %r3;
  st.shared.f32 [%r5], %f1;
  bar.sync 0;
  sub.s32 %r6, %r2, %r1;
  add.s32 %r6, %r6, -1;
  shl.b32 %r7, %r6, 2;
  add.s32 %r8, %r4, %r7;
  ld.shared.f32 %f1, [%r8];
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f1;
DONE:
  ret;
}
)";

// Warp 0 reaches one bar.sync 0, warp 1 another (a __syncthreads in each arm of a branch that is
// not uniform across the block).
constexpr std::string_view divergent = R"(
.visible .entry divergent(.param .u64 y_param, .param .u64 x_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra UPPER;
  add.f32 %f2, %f1, %f1;
  bar.sync 0;
  bra.uni JOIN;
UPPER:
  mul.f32 %f2, %f1, %f1;
  bar.sync 0;
JOIN:
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f2;
  ret;
}
)";

// 96 threads: warp 2 exits at once; warps 0 and 1 exchange through s behind bar.sync 1, 64, a
// named barrier whose count names its participants.
constexpr std::string_view named_exit = R"(
.visible .entry named_exit(.param .u64 y_param, .param .u64 x_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<6>;
  .shared .align 4 .f32 s[64];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 64;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, s;
  add.s32 %r5, %r4, %r3;
  st.shared.f32 [%r5], %f1;
  bar.sync 1, 64;
  xor.b32 %r6, %r3, 252;
  add.s32 %r7, %r4, %r6;
  ld.shared.f32 %f1, [%r7];
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f1;
DONE:
  ret;
}
)";

std::string replaced(std::string_view text, std::string_view from, std::string_view to) {
  std::string s(text);
  auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  s.replace(at, from.size(), to);
  return s;
}

struct checked {
  std::unique_ptr<kernel> k;
  std::string text;
  race::report report;
  outcome<exec::exact_domain> out;
  std::uint32_t line(std::uint32_t instruction) const { return k->module.functions[0].instructions[instruction].line; }
  std::uint32_t line_of(std::string_view needle) const { return exec_test::line_of(text, needle); }
};

// x[i] = i + 1.
checked run_kernel(std::string text, std::uint32_t threads, std::uint64_t elements, bool strict,
                   std::vector<exec::scalar_binding> scalars = {}) {
  checked c;
  c.text = std::move(text);
  c.k = load(c.text, "barriers.ptx");
  exec::launch l = one_cta(threads, {out_f32("y", elements), in_f32("x", elements)}, std::move(scalars));
  fixture<exec::exact_domain> f([](std::string_view, std::uint64_t e) { return rat(static_cast<long long>(e) + 1); });
  race::options o;
  o.strict_barriers = strict;
  race::context ctx(o);
  c.out = run(*c.k, l, f.d, &ctx);
  c.report = ctx.result();
  return c;
}

exec::scalar_binding n_is(std::uint32_t n) { return {"n", false, static_cast<double>(n)}; }

}  // namespace

TEST_CASE("a producer/consumer named barrier (bar.arrive + bar.sync) is clean and orders the handoff") {
  for (bool strict : {false, true}) {
    auto c = run_kernel(std::string(named_handoff), 64, 32, strict);
    REQUIRE_MESSAGE(!c.out.error, c.out.error->message);
    CHECK(c.report.clean());
    CHECK(c.report.barriers.empty());
    for (std::uint64_t i = 0; i < 32; ++i) CHECK(*c.out.out["y"][i] == rat(static_cast<long long>(i) + 1));
  }
}

TEST_CASE("a named-barrier generation that only sees bar.arrive is an error naming the barrier and the arrives") {
  // The consumer arrives where it should wait: generation 1 of barrier 1 completes with 64
  // arrivals, nobody waits on it, and the consumer's read is unordered after the producer's store.
  auto c = run_kernel(replaced(named_handoff, "bar.sync 1, 64;", "bar.arrive 1, 64;"), 64, 32, false);
  REQUIRE_MESSAGE(!c.out.error, c.out.error->message);
  CHECK_FALSE(c.report.well_synchronized());
  CHECK_FALSE(c.report.race_free());  // the RAW race on s the missing wait leaves
  REQUIRE(c.report.barriers.size() == 1);
  const race::barrier_diagnostic& d = c.report.barriers[0];
  CHECK(d.problem == race::barrier_problem::all_arrive);
  CHECK(d.is_error());
  CHECK(d.where == race::barrier_mark{{exec::barrier_kind::cta, 1}, 1});
  CHECK(d.count == 64);
  REQUIRE(d.arrived.size() == 2);
  const std::uint32_t producer = c.line_of("bar.arrive 1, 64;\n  ret;\nCONSUMER:");
  const std::uint32_t consumer = c.line_of("bar.arrive 1, 64;\n  ld.shared");
  CHECK(c.line(d.instruction) == producer);
  CHECK(c.line(d.arrived[0].instruction) == producer);
  CHECK(d.arrived[0].ranges == ranges{{0, 31}});
  CHECK(c.line(d.arrived[1].instruction) == consumer);
  CHECK(d.arrived[1].ranges == ranges{{32, 63}});
  std::string text = race::format(d, race::source_lookup([&](std::uint32_t i) {
                                    return race::source_line{c.line(i), "", 0};
                                  }));
  CHECK(text == "error: all-arrive generation on barrier 1 generation 1: completed by arrivals only (threads 0..31 at PTX line " +
                    std::to_string(producer) + ", threads 32..63 at PTX line " + std::to_string(consumer) +
                    "): no thread waited (bar.sync) on it, so it orders nothing");

  // Without the data handoff there is no race, and the barrier error alone makes the run not
  // well-synchronized.
  std::string no_data = replaced(replaced(named_handoff, "bar.sync 1, 64;", "bar.arrive 1, 64;"), "ld.shared.f32 %f1, [%r5];",
                                 "mov.f32 %f1, 0f3F800000;");
  auto alone = run_kernel(no_data, 64, 32, false);
  REQUIRE_MESSAGE(!alone.out.error, alone.out.error->message);
  CHECK(alone.report.race_free());
  CHECK_FALSE(alone.report.well_synchronized());
  REQUIRE(alone.report.barriers.size() == 1);
  CHECK(alone.report.barriers[0].problem == race::barrier_problem::all_arrive);
}

TEST_CASE("an early return before __syncthreads: PTX semantics accept it, strict mode reports the divergence") {
  // n = 40 of 64 threads: threads 40..63 return at the `ret` after DONE; the others reach bar.sync 0.
  auto ptx = run_kernel(std::string(early_exit), 64, 64, false, {n_is(40)});
  REQUIRE_MESSAGE(!ptx.out.error, ptx.out.error->message);
  CHECK(ptx.report.clean());
  for (std::uint64_t i = 0; i < 40; ++i) CHECK(*ptx.out.out["y"][i] == rat(40 - static_cast<long long>(i)));

  auto strict = run_kernel(std::string(early_exit), 64, 64, true, {n_is(40)});
  REQUIRE_MESSAGE(!strict.out.error, strict.out.error->message);
  CHECK(strict.report.race_free());
  CHECK_FALSE(strict.report.well_synchronized());
  REQUIRE(strict.report.barriers.size() == 1);
  const race::barrier_diagnostic& d = strict.report.barriers[0];
  CHECK(d.problem == race::barrier_problem::divergence);
  CHECK(d.where == race::barrier_mark{{exec::barrier_kind::cta, 0}, 1});
  CHECK(d.thread == 40);  // the first thread that did not arrive
  CHECK(strict.line(d.instruction) == strict.line_of("bar.sync 0;"));
  REQUIRE(d.arrived.size() == 1);
  CHECK(d.arrived[0].ranges == ranges{{0, 39}});
  REQUIRE(d.missing.size() == 1);
  CHECK(d.missing[0].ranges == ranges{{40, 63}});
  CHECK(d.missing[0].threads == 24);
  CHECK(strict.line(d.missing[0].instruction) == strict.line_of("DONE:\n  ret;") + 1);
  std::string text = race::format(d, race::source_lookup([&](std::uint32_t i) {
                                    return race::source_line{strict.line(i), "", 0};
                                  }));
  CHECK(text.find("barrier divergence on barrier 0 generation 1: 40 threads waited: threads 0..39 at PTX line ") !=
        std::string::npos);
  CHECK(text.find("; threads 40..63 exited at PTX line " + std::to_string(strict.line_of("DONE:\n  ret;") + 1) +
                  " without reaching it") != std::string::npos);

  // Every thread reaches the barrier (n = 64): strict mode has nothing to report.
  auto all = run_kernel(std::string(early_exit), 64, 64, true, {n_is(64)});
  REQUIRE_MESSAGE(!all.out.error, all.out.error->message);
  CHECK(all.report.clean());
}

TEST_CASE("strict mode: threads exiting after the last barrier, or outside a counted named barrier, are no divergence") {
  // The early return moved after the barrier: every thread reaches bar.sync 0 first.
  std::string late = replaced(replaced(early_exit, "  setp.ge.u32 %p1, %r1, %r2;\n  @%p1 bra DONE;\n", ""),
                              "  bar.sync 0;\n", "  bar.sync 0;\n  setp.ge.u32 %p1, %r1, %r2;\n  @%p1 bra DONE;\n");
  // (threads past n still store s[t] before the barrier: s has 64 elements and x 64)
  auto c = run_kernel(late, 64, 64, true, {n_is(40)});
  REQUIRE_MESSAGE(!c.out.error, c.out.error->message);
  CHECK(c.report.clean());
  // bar.sync 1, 64 names its 64 participants; warp 2's exit concerns no whole-CTA barrier.
  auto named = run_kernel(std::string(named_exit), 96, 64, true);
  REQUIRE_MESSAGE(!named.out.error, named.out.error->message);
  CHECK(named.report.clean());
  for (std::uint64_t i = 0; i < 64; ++i) CHECK(*named.out.out["y"][i] == rat(64 - static_cast<long long>(i)));
}

TEST_CASE("strict mode: one generation of bar.sync 0 reached at two instructions (a divergent branch)") {
  auto ptx = run_kernel(std::string(divergent), 64, 64, false);
  REQUIRE_MESSAGE(!ptx.out.error, ptx.out.error->message);
  CHECK(ptx.report.clean());

  auto strict = run_kernel(std::string(divergent), 64, 64, true);
  REQUIRE_MESSAGE(!strict.out.error, strict.out.error->message);
  REQUIRE(strict.report.barriers.size() == 1);
  const race::barrier_diagnostic& d = strict.report.barriers[0];
  CHECK(d.problem == race::barrier_problem::divergence);
  CHECK(d.missing.empty());
  CHECK(d.thread == 32);  // the first thread at the other instruction
  REQUIRE(d.arrived.size() == 2);
  CHECK(strict.line(d.arrived[0].instruction) == strict.line_of("bar.sync 0;\n  bra.uni JOIN;"));
  CHECK(d.arrived[0].ranges == ranges{{0, 31}});
  CHECK(strict.line(d.arrived[1].instruction) == strict.line_of("bar.sync 0;\nJOIN:"));
  CHECK(d.arrived[1].ranges == ranges{{32, 63}});
  CHECK(race::format(d).find("64 threads reached it at different barrier instructions (a divergent branch): threads "
                             "0..31 at instruction ") != std::string::npos);
}
