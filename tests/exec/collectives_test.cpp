// Warp collectives, bar.red, atomics and the other memory spaces, in every domain where they
// apply: vote (ballot/all), redux, match, activemask, shfl idx/up/down with a segment width and
// the predicate destination, predicated non-branch instructions; __syncthreads_count and
// friends (bar.red); shared-memory atomic accumulation (a sum term in the symbolic domain) and
// atomic tickets (concrete only: their old values depend on the schedule); per-thread local
// memory reached through cvta.local; the dynamic shared array; packed f16x2 arithmetic.
#include "harness.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace exec_test;

namespace {

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

// Eleven 32-bit results per thread (z[11 tid + k]), 64 threads.
constexpr std::string_view warp_ops = R"(
.visible .entry warp_ops(.param .u64 z_param)
{
  .reg .pred %p<8>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [z_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %laneid;
  mul.lo.u32 %r3, %r1, 44;
  cvt.u64.u32 %rd2, %r3;
  add.s64 %rd3, %rd1, %rd2;
  and.b32 %r4, %r2, 1;
  setp.eq.u32 %p1, %r4, 1;
  vote.sync.ballot.b32 %r5, %p1, -1;
  st.global.u32 [%rd3], %r5;
  setp.lt.u32 %p2, %r2, 32;
  vote.sync.all.pred %p3, %p2, -1;
  vote.sync.all.pred %p4, %p1, -1;
  selp.u32 %r6, 2, 0, %p3;
  selp.u32 %r7, 1, 0, %p4;
  add.s32 %r8, %r6, %r7;
  st.global.u32 [%rd3+4], %r8;
  redux.sync.add.u32 %r9, %r2, -1;
  st.global.u32 [%rd3+8], %r9;
  redux.sync.max.u32 %r10, %r1, -1;
  st.global.u32 [%rd3+12], %r10;
  shfl.sync.idx.b32 %r11, %r1, 3, 0x181f, -1;
  st.global.u32 [%rd3+16], %r11;
  shfl.sync.up.b32 %r12, %r1, 2, 0, -1;
  st.global.u32 [%rd3+20], %r12;
  shfl.sync.down.b32 %r13|%p5, %r1, 4, 0x181f, -1;
  st.global.u32 [%rd3+24], %r13;
  selp.u32 %r14, 1, 0, %p5;
  st.global.u32 [%rd3+28], %r14;
  shr.u32 %r15, %r2, 3;
  match.any.sync.b32 %r16, %r15, -1;
  st.global.u32 [%rd3+32], %r16;
  activemask.b32 %r17;
  st.global.u32 [%rd3+36], %r17;
  mov.u32 %r18, 3;
  @%p1 mov.u32 %r18, 7;
  st.global.u32 [%rd3+40], %r18;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("warp collectives: vote, redux, shfl with segments, match, activemask, guards", D, DOMAINS) {
  auto k = load(warp_ops, "warp_ops.ptx");
  exec::launch l = one_cta(64, {out_int("z", 64 * 11)});
  fixture<D> f(small_integers(0));
  auto z = cells(*k, l, f.d, 0);
  REQUIRE(z.size() == 64 * 11);
  auto at = [&](std::uint32_t t, std::uint32_t slot) -> std::uint32_t {
    const auto& c = z[t * 11 + slot];
    REQUIRE(c.has_value());
    REQUIRE(c->is_bits());
    return static_cast<std::uint32_t>(c->bits);
  };
  for (std::uint32_t t = 0; t < 64; ++t) {
    CAPTURE(t);
    std::uint32_t lane = t % 32, base = t - lane;
    CHECK(at(t, 0) == 0xaaaaaaaau);                                     // ballot of odd lanes
    CHECK(at(t, 1) == 2);                                               // all(true), not all(odd)
    CHECK(at(t, 2) == 496);                                             // sum of lanes 0..31
    CHECK(at(t, 3) == base + 31);                                       // max of the warp's tids
    CHECK(at(t, 4) == base + (lane & ~7u) + 3);                         // idx 3 within groups of 8
    CHECK(at(t, 5) == (lane >= 2 ? t - 2 : t));                         // up 2: low lanes keep theirs
    CHECK(at(t, 6) == (lane % 8 + 4 <= 7 ? t + 4 : t));                 // down 4 within groups of 8
    CHECK(at(t, 7) == (lane % 8 + 4 <= 7 ? 1u : 0u));                   // ... and whether it moved
    CHECK(at(t, 8) == (0xffu << (8 * (lane / 8))));                     // lanes with equal lane/8
    // activemask names the warp's lanes that have not exited; under the one-thread-at-a-time
    // schedule some lanes may already have finished, so only the caller's own bit is certain.
    CHECK((at(t, 9) >> lane & 1) == 1);
    CHECK(at(t, 10) == (lane % 2 ? 7u : 3u));                           // @p mov honours p
  }
}

TEST_CASE_TEMPLATE("bar.red: popc, and, or over the CTA's predicates", D, DOMAINS) {
  constexpr std::string_view reduce = R"(
.visible .entry reduce(.param .u64 z_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [z_param];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 10;
  bar.red.popc.u32 %r2, 0, %p1;
  bar.red.and.pred %p2, 0, %p1;
  bar.red.or.pred %p3, 0, %p1;
  selp.u32 %r3, 1, 0, %p2;
  selp.u32 %r4, 1, 0, %p3;
  mul.wide.u32 %rd2, %r1, 12;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+4], %r3;
  st.global.u32 [%rd3+8], %r4;
  ret;
}
)";
  auto k = load(reduce, "reduce.ptx");
  exec::launch l = one_cta(64, {out_int("z", 64 * 3)});
  fixture<D> f(small_integers(0));
  auto z = cells(*k, l, f.d, 0);
  REQUIRE(z.size() == 64 * 3);
  for (std::uint32_t t = 0; t < 64; ++t) {
    CAPTURE(t);
    for (std::uint32_t i = 0; i < 3; ++i) REQUIRE(z[3 * t + i]->is_bits());
    CHECK(z[3 * t]->bits == 10);
    CHECK(z[3 * t + 1]->bits == 0);
    CHECK(z[3 * t + 2]->bits == 1);
  }
}

TEST_CASE_TEMPLATE("red.shared.add accumulates every thread's value", D, DOMAINS) {
  constexpr std::string_view accumulate = R"(
.visible .entry accumulate(.param .u64 y_param, .param .u64 x_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<6>;
  .shared .align 4 .f32 acc[1];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_wait;
  mov.f32 %f1, 0f00000000;
  st.shared.f32 [acc], %f1;
$L_wait:
  bar.sync 0;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f2, [%rd4];
  red.shared.add.f32 [acc], %f2;
  bar.sync 0;
  @%p1 bra $L_done;
  ld.shared.f32 %f3, [acc];
  st.global.f32 [%rd1], %f3;
$L_done:
  ret;
}
)";
  auto k = load(accumulate, "accumulate.ptx");
  exec::launch l = one_cta(64, {out_f32("y", 1), in_f32("x", 64)});
  values v = small_integers(8);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  rat want = 0;
  for (std::uint64_t i = 0; i < 64; ++i) want += v("x", i);
  CHECK(f.at(*r.out["y"][0], l) == want);
}

namespace {

// Every thread takes a ticket from a global counter and stores it: the old values an atomic
// returns depend on the order of the threads.
constexpr std::string_view tickets = R"(
.visible .entry tickets(.param .u64 z_param, .param .u64 counter_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [z_param];
  ld.param.u64 %rd2, [counter_param];
  atom.global.add.u32 %r1, [%rd2], 1;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r1;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("atom.global.add hands out distinct tickets in the concrete domains", D, exec::float32_domain,
                   exec::exact_domain) {
  auto k = load(tickets, "tickets.ptx");
  exec::launch l = one_cta(64, {out_int("z", 64), tensor("counter", exec::rkind::integer, {1}, true, true, 4)});
  fixture<D> f([](std::string_view, std::uint64_t) { return rat(100); });
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  std::vector<rat> got;
  for (auto& c : r.out["z"]) got.push_back(f.at(*c, l));
  std::sort(got.begin(), got.end());
  for (std::size_t i = 0; i < 64; ++i) CHECK(got[i] == 100 + static_cast<long long>(i));
  CHECK(f.at(*r.out["counter"][0], l) == 164);
}

TEST_CASE("an atomic's old value on symbolic data may not be used") {
  auto k = load(tickets, "tickets.ptx");
  exec::launch l = one_cta(64, {out_int("z", 64), tensor("counter", exec::rkind::integer, {1}, true, true, 4)});
  fixture<exec::symbolic_domain> f(small_integers(0));
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::not_structured);
  CAPTURE(e.message);
  CHECK(contains(e.message, "tickets.ptx:" + std::to_string(line_of(tickets, "st.global.u32"))));
  CHECK(contains(e.message, "atomic"));
}

TEST_CASE_TEMPLATE("local memory is per thread, reached by .local and through cvta.local", D, DOMAINS) {
  // Each thread spills x[tid] through a generic address and reloads it through .local; a read of
  // a depot word never written is an error.
  constexpr std::string_view spill = R"(
.visible .entry spill(.param .u64 y_param, .param .u64 x_param)
{
  .local .align 4 .b8 depot[16];
  .reg .b32 %r<2>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u64 %rd3, depot;
  cvta.local.u64 %rd4, %rd3;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd2, %rd5;
  ld.global.f32 %f1, [%rd6];
  st.f32 [%rd4+4], %f1;
  bar.sync 0;
  ld.local.f32 %f2, [%rd3+4];
  add.s64 %rd7, %rd1, %rd5;
  st.global.f32 [%rd7], %f2;
  ret;
}
)";
  auto k = load(spill, "spill.ptx");
  exec::launch l = one_cta(64, {out_f32("y", 64), in_f32("x", 64)});
  values v = small_integers(12);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint64_t i = 0; i < 64; ++i) CHECK(f.at(*r.out["y"][i], l) == v("x", i));

  std::string unwritten(spill);
  unwritten.replace(unwritten.find("ld.local.f32 %f2, [%rd3+4]"), 26, "ld.local.f32 %f2, [%rd3+8]");
  auto k2 = load(unwritten, "spill2.ptx");
  fixture<D> g(v);
  auto e = expect_error(*k2, l, g.d);
  CHECK(e.kind == exec::error_kind::uninitialized);
  CHECK(contains(e.message, "local"));

  std::string outside(spill);
  outside.replace(outside.find("ld.local.f32 %f2, [%rd3+4]"), 26, "ld.local.f32 %f2, [%rd3+16]");
  auto k3 = load(outside, "spill3.ptx");
  fixture<D> h(v);
  auto e3 = expect_error(*k3, l, h.d);
  CHECK(e3.kind == exec::error_kind::out_of_bounds);
}

TEST_CASE_TEMPLATE("the dynamic shared array has the launch's size", D, DOMAINS) {
  // y[tid] = x[63 - tid] through the dynamic shared array.
  constexpr std::string_view reverse = R"(
.extern .shared .align 16 .b8 dyn[];
.visible .entry reverse(.param .u64 y_param, .param .u64 x_param)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  mov.u32 %r2, dyn;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  st.shared.f32 [%r4], %f1;
  bar.sync 0;
  sub.s32 %r5, 252, %r3;
  add.s32 %r6, %r2, %r5;
  ld.shared.f32 %f2, [%r6];
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f2;
  ret;
}
)";
  auto k = load(reverse, "reverse.ptx");
  exec::launch l = one_cta(64, {out_f32("y", 64), in_f32("x", 64)});
  l.dynamic_shared_bytes = 256;
  values v = small_integers(13);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint64_t i = 0; i < 64; ++i) CHECK(f.at(*r.out["y"][i], l) == v("x", 63 - i));

  // Half the bytes: thread 32's store is past the end of dyn.
  l.dynamic_shared_bytes = 128;
  fixture<D> g(v);
  auto e = expect_error(*k, l, g.d);
  CHECK(e.kind == exec::error_kind::out_of_bounds);
  CAPTURE(e.message);
  CHECK(contains(e.message, "reverse.ptx:" + std::to_string(line_of(reverse, "st.shared.f32")) + ": thread (32,0,0)"));
  CHECK(contains(e.message, "dyn[32]"));
}

TEST_CASE_TEMPLATE("packed f16x2 arithmetic works on both halves", D, DOMAINS) {
  // y[2i], y[2i+1] = a * b + a on the halves of one 32-bit word per thread.
  constexpr std::string_view half2 = R"(
.visible .entry half2(.param .u64 y_param, .param .u64 a_param, .param .u64 b_param)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [a_param];
  ld.param.u64 %rd3, [b_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd2, %rd4;
  add.s64 %rd6, %rd3, %rd4;
  ld.global.b32 %r2, [%rd5];
  ld.global.b32 %r3, [%rd6];
  fma.rn.f16x2 %r4, %r2, %r3, %r2;
  add.s64 %rd7, %rd1, %rd4;
  st.global.b32 [%rd7], %r4;
  ret;
}
)";
  auto k = load(half2, "half2.ptx");
  exec::launch l = one_cta(32, {tensor("y", exec::rkind::f16, {64}, false, true),
                                tensor("a", exec::rkind::f16, {64}, true, false),
                                tensor("b", exec::rkind::f16, {64}, true, false)});
  values v = small_integers(14);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint64_t i = 0; i < 64; ++i) {
    CAPTURE(i);
    REQUIRE(r.out["y"][i].has_value());
    CHECK(f.at(*r.out["y"][i], l) == v("a", i) * v("b", i) + v("a", i));
  }
}

// Two groups of one warp wait at bar.warp.sync with different member masks (lanes 0-15 with
// 0x0000ffff, lanes 16-30 with 0xffff0000) while lane 31, a member of the second, exits instead of
// arriving. Its exit completes the second group whichever group waits first: under the thread
// order 0..14, 16..31, 15 the first waiting lane (0) belongs to the other group, and the exit once
// tried only that one, leaving lanes 16-30 in a false deadlock. Every thread but lane 31 then
// stores its lane id (z[t] = t % 32, by hand).
TEST_CASE_TEMPLATE("an exiting lane completes a second group of its warp waiting at another member mask", D, DOMAINS) {
  constexpr std::string_view two_groups = R"(
.visible .entry two_groups(.param .u64 z_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [z_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %laneid;
  setp.eq.u32 %p1, %r2, 31;
  @%p1 bra $EXIT;
  setp.lt.u32 %p2, %r2, 16;
  @%p2 bra $LOW;
  bar.warp.sync 0xffff0000;
  bra $DONE;
$LOW:
  bar.warp.sync 0x0000ffff;
$DONE:
  bar.sync 0;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
$EXIT:
  ret;
}
)";
  auto k = load(two_groups, "two_groups.ptx");
  exec::launch l = one_cta(64, {out_int("z", 64)});
  fixture<D> f(small_integers(0));
  auto check_out = [&](const outcome<D>& r) {
    REQUIRE_MESSAGE(!r.error, r.error->message);
    for (std::uint32_t t = 0; t < 64; ++t) {
      CAPTURE(t);
      if (t % 32 == 31) {
        CHECK(!r.out.at("z")[t].has_value());
      } else {
        REQUIRE(r.out.at("z")[t].has_value());
        CHECK(f.at(*r.out.at("z")[t], l) == rat(static_cast<long long>(t % 32)));
      }
    }
  };
  check_out(run(*k, l, f.d));
  exec::engine_options o;
  for (std::uint32_t w = 0; w < 2; ++w) {
    for (std::uint32_t t = 0; t < 15; ++t) o.thread_order.push_back(32 * w + t);
    for (std::uint32_t t = 16; t < 32; ++t) o.thread_order.push_back(32 * w + t);
    o.thread_order.push_back(32 * w + 15);
  }
  check_out(run(*k, l, f.d, static_cast<exec::null_observer*>(nullptr), o));
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    exec::engine_options s;
    s.schedule_seed = seed;
    check_out(run(*k, l, f.d, static_cast<exec::null_observer*>(nullptr), s));
  }
}

TEST_CASE("float32: redux.sync f32 max skips a NaN lane, max.NaN propagates it; .abs stops the run") {
  // sm_100a (passes `ptxas -arch=sm_100a`, .version 8.8). Lane i holds i, lane 3 a NaN.
  const std::string body = R"(
.visible .entry rx(.param .u64 y_param)
{
  .reg .f32 %f<8>;
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [y_param];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  setp.eq.u32 %p1, %r1, 3;
  @%p1 mov.b32 %f1, 0f7FC00000;
  redux.sync.max.f32 %f2, %f1, 0xffffffff;
  redux.sync.max.NaN.f32 %f3, %f1, 0xffffffff;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f2;
  st.global.f32 [%rd3+4], %f3;
  ret;
}
)";
  exec::launch l = one_cta(32, {out_f32("y", 64)});
  fixture<exec::float32_domain> f(small_integers(0));
  auto k = load(body, "rx.ptx");
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::size_t t = 0; t < 32; ++t) {
    CAPTURE(t);
    REQUIRE(r.out.at("y")[2 * t].has_value());
    REQUIRE(r.out.at("y")[2 * t + 1].has_value());
    CHECK(*r.out.at("y")[2 * t] == 31.0);
    CHECK(std::isnan(*r.out.at("y")[2 * t + 1]));
  }
  std::string with_abs = body;
  with_abs.replace(with_abs.find("redux.sync.max.NaN.f32"), 22, "redux.sync.min.abs.f32");
  auto a = load(with_abs, "rx.ptx");
  auto e = expect_error(*a, l, f.d);
  CHECK(e.kind == exec::error_kind::unsupported);
  CHECK_MESSAGE(contains(e.message, "redux.sync .abs is not modelled yet"), e.message);
}
