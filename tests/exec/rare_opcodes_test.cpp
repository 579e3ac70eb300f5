// Execution tests for the supported opcodes that no other execution test ran: the walk of the
// opcode table (opcode_table_test.cpp) found them. 24-bit multiplies, sad, bfind, cnot, lop3,
// funnel shifts, sin/cos/tanh, ldu, the `barrier.sync` spelling of the CTA barrier, the
// instructions that do nothing to one CTA's results (membar, fence, nanosleep, pmevent), the cache
// hints (createpolicy, prefetchu, applypriority, .L2::cache_hint), exit and brkpt; and, at the
// end, the opcodes modelled after the rest: dp4a, dp2a, bmsk, szext, fns, slct, testp, copysign,
// isspacep.
// Expected values are computed by hand from the PTX ISA's definitions, or (the last group) by an
// independent Python model of them.
#include "harness.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

using namespace exec_test;

namespace {

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

// Every result is a constant of the kernel, so the domain must not matter. The kernel ends with
// exit rather than ret, and passes the instructions that do not change one CTA's results.
constexpr std::string_view rare_integer_ops = R"(
.visible .entry rare_ints(.param .u64 z_param)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [z_param];
  membar.cta;
  fence.acq_rel.gpu;
  mov.u32 %r1, 1000;
  mov.u32 %r2, -7;
  mul24.lo.s32 %r3, %r1, %r2;
  st.global.s32 [%rd1], %r3;
  mad24.lo.s32 %r4, %r1, %r2, 5;
  st.global.s32 [%rd1+4], %r4;
  sad.u32 %r5, 3, 10, 100;
  st.global.u32 [%rd1+8], %r5;
  sad.s32 %r6, %r2, 1, 2;
  st.global.s32 [%rd1+12], %r6;
  mov.u32 %r7, 0x00010000;
  bfind.u32 %r8, %r7;
  st.global.u32 [%rd1+16], %r8;
  bfind.shiftamt.u32 %r9, %r7;
  st.global.u32 [%rd1+20], %r9;
  bfind.s32 %r10, %r2;
  st.global.u32 [%rd1+24], %r10;
  mov.u32 %r11, 0;
  bfind.u32 %r12, %r11;
  st.global.u32 [%rd1+28], %r12;
  cnot.b32 %r13, %r11;
  st.global.u32 [%rd1+32], %r13;
  cnot.b32 %r14, %r1;
  st.global.u32 [%rd1+36], %r14;
  mov.u32 %r15, 0xff00ff00;
  mov.u32 %r16, 0x0ff00ff0;
  mov.u32 %r17, 0x0000ffff;
  lop3.b32 %r18, %r15, %r16, %r17, 0xea;
  st.global.u32 [%rd1+40], %r18;
  mov.u32 %r19, 0x80000001;
  mov.u32 %r20, 1;
  shf.l.wrap.b32 %r21, %r19, %r20, 4;
  st.global.u32 [%rd1+44], %r21;
  shf.r.clamp.b32 %r22, %r19, %r20, 4;
  st.global.u32 [%rd1+48], %r22;
  shf.l.clamp.b32 %r23, %r19, %r20, 40;
  st.global.u32 [%rd1+52], %r23;
  mov.u32 %r24, 100;
  nanosleep.u32 %r24;
  pmevent 1;
  exit;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("mul24, mad24, sad, bfind, cnot, lop3 and shf on concrete bits; exit ends the kernel", D, DOMAINS) {
  auto k = load(rare_integer_ops, "rare_ints.ptx");
  exec::launch l = one_cta(1, {out_int("z", 14)});
  fixture<D> f(small_integers(0));
  auto z = cells(*k, l, f.d, 0);
  REQUIRE(z.size() == 14);
  auto u32 = [&](std::size_t i) {
    REQUIRE(z[i].has_value());
    REQUIRE(z[i]->is_bits());
    return static_cast<std::uint32_t>(z[i]->bits);
  };
  auto i32 = [&](std::size_t i) { return static_cast<std::int32_t>(u32(i)); };
  CHECK(i32(0) == -7000);               // mul24.lo.s32 1000, -7 (both fit in 24 bits)
  CHECK(i32(1) == -6995);               // mad24.lo.s32 1000, -7, 5
  CHECK(u32(2) == 107);                 // sad.u32 |3 - 10| + 100
  CHECK(i32(3) == 10);                  // sad.s32 |-7 - 1| + 2
  CHECK(u32(4) == 16);                  // bfind.u32 0x10000: the most significant set bit
  CHECK(u32(5) == 15);                  // .shiftamt: the left shift that brings it to bit 31
  CHECK(u32(6) == 2);                   // bfind.s32 -7 = ...11111001: the highest bit unlike the sign
  CHECK(u32(7) == 0xffffffffu);         // bfind of 0: no bit
  CHECK(u32(8) == 1);                   // cnot 0
  CHECK(u32(9) == 0);                   // cnot 1000
  CHECK(u32(10) == 0x0f00ffffu);        // lop3 0xea = (a & b) | c
  CHECK(u32(11) == 0x18u);              // shf.l: high word of (1:0x80000001) << 4
  CHECK(u32(12) == 0x18000000u);        // shf.r: low word of (1:0x80000001) >> 4
  CHECK(u32(13) == 0x80000001u);        // shf.l.clamp by 40 clamps to 32: the low word moves up whole
}

TEST_CASE_TEMPLATE("ldu reads global memory like ld; barrier.sync orders shared memory like bar.sync", D, DOMAINS) {
  // Thread t writes ldu(x[t]) to s[t], waits at barrier.sync 0, and copies s[63 - t] to y[t].
  constexpr std::string_view mirror = R"(
.visible .entry mirror(.param .u64 y_param, .param .u64 x_param)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<8>;
  .shared .align 4 .f32 s[64];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ldu.global.f32 %f1, [%rd4];
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.s32 %r4, %r3, %r2;
  st.shared.f32 [%r4], %f1;
  barrier.sync 0;
  sub.s32 %r5, 252, %r2;
  add.s32 %r6, %r3, %r5;
  ld.shared.f32 %f2, [%r6];
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f2;
  ret;
}
)";
  auto k = load(mirror, "mirror.ptx");
  exec::launch l = one_cta(64, {out_f32("y", 64), in_f32("x", 64)});
  values v = small_integers(3);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  auto& y = r.out.at("y");
  REQUIRE(y.size() == 64);
  for (std::uint64_t t = 0; t < 64; ++t) {
    CAPTURE(t);
    REQUIRE(y[t].has_value());
    CHECK(f.at(*y[t], l) == v("x", 63 - t));
  }
}

TEST_CASE("float32: sin.approx, cos.approx and tanh.approx are within PTX's error of the functions") {
  constexpr std::string_view trig = R"(
.visible .entry trig(.param .u64 y_param, .param .u64 x_param)
{
  .reg .f32 %f<5>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  ld.global.f32 %f1, [%rd2];
  sin.approx.f32 %f2, %f1;
  st.global.f32 [%rd1], %f2;
  cos.approx.ftz.f32 %f3, %f1;
  st.global.f32 [%rd1+4], %f3;
  tanh.approx.f32 %f4, %f1;
  st.global.f32 [%rd1+8], %f4;
  ret;
}
)";
  auto k = load(trig, "trig.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 3), in_f32("x", 1)});
  fixture<exec::float32_domain> f([](std::string_view, std::uint64_t) { return rat(1, 2); });
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  auto& y = r.out.at("y");
  REQUIRE(y.size() == 3);
  REQUIRE(y[0].has_value());
  REQUIRE(y[1].has_value());
  REQUIRE(y[2].has_value());
  // PTX: sin/cos.approx have an absolute error of at most 2^-20.9 on [-pi, pi]; tanh.approx a
  // relative error of about 2^-11.
  CHECK(std::abs(*y[0] - std::sin(0.5)) < std::ldexp(1.0, -20));
  CHECK(std::abs(*y[1] - std::cos(0.5)) < std::ldexp(1.0, -20));
  CHECK(std::abs(*y[2] - std::tanh(0.5)) < std::ldexp(std::tanh(0.5), -10));
}

TEST_CASE_TEMPLATE("cache hints change no value: createpolicy in its three forms, .L2::cache_hint loads and stores, prefetchu, applypriority", D, DOMAINS) {
  // Thread t: y[t] = 2·x[t], loaded and stored with policies as cache hints (one moved to another
  // register first). Passes `ptxas -arch=sm_80`.
  constexpr std::string_view hints = R"(
.visible .entry hints(.param .u64 y_param, .param .u64 x_param)
{
  .reg .f32 %f<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd2, %rd4;
  createpolicy.fractional.L2::evict_last.b64 %rd6, 1.0;
  createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd7, 0.5;
  createpolicy.fractional.L2::evict_normal.b64 %rd8;
  createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %rd9, [%rd5], 4, 128;
  createpolicy.cvt.L2.b64 %rd10, %rd6;
  mov.b64 %rd11, %rd9;
  prefetchu.L1 [%rd5];
  applypriority.global.L2::evict_normal [%rd2], 128;
  ld.global.L2::cache_hint.f32 %f1, [%rd5], %rd11;
  add.f32 %f2, %f1, %f1;
  add.s64 %rd12, %rd1, %rd4;
  st.global.L2::cache_hint.f32 [%rd12], %f2, %rd10;
  ret;
}
)";
  auto k = load(hints, "hints.ptx");
  exec::launch l = one_cta(32, {out_f32("y", 32), in_f32("x", 32)});
  values v = small_integers(5);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint64_t t = 0; t < 32; ++t) {
    CAPTURE(t);
    REQUIRE(r.out.at("y")[t].has_value());
    CHECK(f.at(*r.out.at("y")[t], l) == 2 * v("x", t));
  }
}

TEST_CASE_TEMPLATE("a cache policy's bits are opaque: storing one (here the OR of two) stops the run as not modelled", D, DOMAINS) {
  // Passes `ptxas -arch=sm_80`. The policy the store reads comes from the first createpolicy
  // (or.b64 of two policies is still a policy).
  constexpr std::string_view store_policy = R"(
.visible .entry store_policy(.param .u64 p_param)
{
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p_param];
  createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;
  createpolicy.fractional.L2::evict_first.b64 %rd3, 1.0;
  or.b64 %rd4, %rd2, %rd3;
  st.global.u64 [%rd1], %rd4;
  ret;
}
)";
  auto k = load(store_policy, "store_policy.ptx");
  exec::launch l = one_cta(1, {out_int("p", 1, 8)});
  fixture<D> f(small_integers(0));
  exec::run_error e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::unsupported);
  CHECK_MESSAGE(contains(e.message, "holds an L2 cache policy"), e.message);
  CHECK_MESSAGE(contains(e.message, "createpolicy.fractional.L2::evict_last.b64"), e.message);
  CHECK_MESSAGE(contains(e.message, "store_policy.ptx:" + std::to_string(line_of(store_policy, "evict_last"))), e.message);
}

TEST_CASE_TEMPLATE("brkpt stops the run like trap", D, DOMAINS) {
  constexpr std::string_view breaker = R"(
.visible .entry breaker()
{
  brkpt;
  ret;
}
)";
  auto k = load(breaker, "breaker.ptx");
  fixture<D> f(small_integers(0));
  auto e = expect_error(*k, one_cta(1, {}), f.d);
  CHECK(e.kind == exec::error_kind::trap);
  CAPTURE(e.message);
  CHECK(contains(e.message, "breaker.ptx:" + std::to_string(line_of(breaker, "brkpt;"))));
}

namespace {
// Three-input min/max (sm_100, PTX ISA 8.8, `.f32` only): thread t reads x[3t .. 3t + 2] and
// writes the largest to y[2t] and the smallest to y[2t + 1]. Passes `ptxas -arch=sm_100a`.
constexpr std::string_view minmax3 = R"(
.visible .entry minmax3(.param .u64 y_param, .param .u64 x_param)
{
  .reg .f32 %f<6>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  mul.lo.s32 %r2, %r1, 12;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [%rd4+4];
  ld.global.f32 %f3, [%rd4+8];
  max.f32 %f4, %f1, %f2, %f3;
  min.f32 %f5, %f1, %f2, %f3;
  mul.wide.u32 %rd5, %r1, 8;
  add.s64 %rd6, %rd1, %rd5;
  st.global.f32 [%rd6], %f4;
  st.global.f32 [%rd6+4], %f5;
  ret;
}
)";
}  // namespace

TEST_CASE_TEMPLATE("three-input min and max take the extremum of all three operands", D, DOMAINS) {
  // The extremum sits in each position in some thread: (5, 1, 3), (2, 7, 4), (6, 0, -4), (1, 2, 8).
  const long long xs[12] = {5, 1, 3, 2, 7, 4, 6, 0, -4, 1, 2, 8};
  const long long want[8] = {5, 1, 7, 2, 6, -4, 8, 1};
  auto k = load(minmax3, "minmax3.ptx");
  exec::launch l = one_cta(4, {out_f32("y", 8), in_f32("x", 12)});
  fixture<D> f([&](std::string_view, std::uint64_t e) { return rat(xs[e]); });
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::size_t i = 0; i < 8; ++i) {
    CAPTURE(i);
    REQUIRE(r.out.at("y")[i].has_value());
    CHECK(f.at(*r.out.at("y")[i], l) == rat(want[i]));
  }
}

TEST_CASE("float32: min/max .NaN propagate a NaN operand, plain min/max skip it, with two inputs or three") {
  // Passes `ptxas -arch=sm_100a` (.version 8.8). %f1 is a NaN, %f2 is 1.
  constexpr std::string_view nans = R"(
.visible .entry nans(.param .u64 y_param)
{
  .reg .f32 %f<10>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [y_param];
  mov.b32 %f1, 0f7FC00000;
  mov.f32 %f2, 0f3F800000;
  max.f32 %f3, %f1, %f2;
  st.global.f32 [%rd1], %f3;
  max.NaN.f32 %f4, %f1, %f2;
  st.global.f32 [%rd1+4], %f4;
  min.NaN.f32 %f5, %f2, %f1;
  st.global.f32 [%rd1+8], %f5;
  max.f32 %f6, %f1, %f2, %f1;
  st.global.f32 [%rd1+12], %f6;
  min.NaN.f32 %f7, %f2, %f2, %f1;
  st.global.f32 [%rd1+16], %f7;
  min.f32 %f8, %f1, %f1, %f1;
  st.global.f32 [%rd1+20], %f8;
  ret;
}
)";
  auto k = load(nans, "nans.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 6)});
  fixture<exec::float32_domain> f(small_integers(0));
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  auto& y = r.out.at("y");
  for (const auto& v : y) REQUIRE(v.has_value());
  CHECK(*y[0] == 1.0);
  CHECK(std::isnan(*y[1]));
  CHECK(std::isnan(*y[2]));
  CHECK(*y[3] == 1.0);
  CHECK(std::isnan(*y[4]));
  CHECK(std::isnan(*y[5]));  // every operand a NaN
}

TEST_CASE("three-input min/max of another type, and min/max .abs, stop the run") {
  const std::string only_f32 = "three-input min/max exists for .f32 only";
  const std::pair<std::string, std::string> cases[] = {
      {"max.s32 %r1, %r2, %r3, %r4;", only_f32},
      {"min.f16x2 %r1, %r2, %r3, %r4;", only_f32},
      {"max.abs.f32 %f1, %f2, %f3, %f4;", "min/max .abs is not modelled yet"},  // sm_100: |a|, |b|, |c|
  };
  for (const auto& [ins, why] : cases) {
    CAPTURE(ins);
    std::string text = R"(
.visible .entry m3()
{
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  mov.u32 %r2, 1;
  mov.u32 %r3, 2;
  mov.u32 %r4, 3;
  mov.f32 %f2, 0f3F800000;
  mov.f32 %f3, 0fC0000000;
  mov.f32 %f4, 0f40400000;
  )" + ins + R"(
  ret;
}
)";
    auto k = load(text, "m3.ptx");
    fixture<exec::exact_domain> f(small_integers(0));
    auto e = expect_error(*k, one_cta(1, {}), f.d);
    CHECK(e.kind == exec::error_kind::unsupported);
    CHECK_MESSAGE(contains(e.message, why), e.message);
    CHECK_MESSAGE(contains(e.message, "m3.ptx:" + std::to_string(line_of(text, ins))), e.message);
  }
}

// ---- dp4a, dp2a, bmsk, szext, fns, slct ---------------------------------------------------------
// Expected values come from an independent model of the PTX ISA's definitions, a Python script
// (written apart from gpueq, not from its output): dp4a/dp2a as sums of products of the
// sign- or zero-extended bytes and halves, bmsk as the bits [a, a + b) up to bit 31, szext and fns
// from their descriptions; slct's by hand. The kernels pass `ptxas -arch=sm_80` (.version 8.0).
namespace {

constexpr std::string_view ops_ints = R"(
.visible .entry ops_ints(.param .u64 z_param)
{
  .reg .b32 %r<64>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [z_param];
  mov.u32 %r1, 0x80ff7f01;
  mov.u32 %r2, 0xfe02ff7f;
  mov.u32 %r3, 1000;
  mov.u32 %r4, -5;
  mov.u32 %r5, -1;
  mov.u32 %r6, 0x80808080;
  mov.u32 %r7, 0x7fffffff;
  dp4a.u32.u32 %r10, %r1, %r2, %r3;
  st.global.u32 [%rd1+0], %r10;
  dp4a.u32.s32 %r11, %r1, %r2, %r4;
  st.global.u32 [%rd1+4], %r11;
  dp4a.s32.u32 %r12, %r1, %r2, %r4;
  st.global.u32 [%rd1+8], %r12;
  dp4a.s32.s32 %r13, %r1, %r2, %r4;
  st.global.u32 [%rd1+12], %r13;
  dp4a.u32.u32 %r14, %r5, %r5, %r5;
  st.global.u32 [%rd1+16], %r14;
  dp4a.s32.s32 %r15, %r6, %r6, %r7;
  st.global.u32 [%rd1+20], %r15;
  dp2a.lo.u32.u32 %r16, %r1, %r2, %r3;
  st.global.u32 [%rd1+24], %r16;
  dp2a.hi.u32.u32 %r17, %r1, %r2, %r3;
  st.global.u32 [%rd1+28], %r17;
  dp2a.lo.s32.s32 %r18, %r1, %r2, %r4;
  st.global.u32 [%rd1+32], %r18;
  dp2a.hi.s32.s32 %r19, %r1, %r2, %r4;
  st.global.u32 [%rd1+36], %r19;
  dp2a.lo.s32.u32 %r20, %r1, %r2, %r4;
  st.global.u32 [%rd1+40], %r20;
  dp2a.hi.u32.s32 %r21, %r1, %r2, %r4;
  st.global.u32 [%rd1+44], %r21;
  bmsk.wrap.b32 %r22, 1, 2;
  st.global.u32 [%rd1+48], %r22;
  bmsk.clamp.b32 %r23, 4, 28;
  st.global.u32 [%rd1+52], %r23;
  bmsk.clamp.b32 %r24, 4, 40;
  st.global.u32 [%rd1+56], %r24;
  bmsk.wrap.b32 %r25, 4, 40;
  st.global.u32 [%rd1+60], %r25;
  bmsk.clamp.b32 %r26, 33, 2;
  st.global.u32 [%rd1+64], %r26;
  bmsk.wrap.b32 %r27, 33, 2;
  st.global.u32 [%rd1+68], %r27;
  bmsk.wrap.b32 %r28, 0, 0;
  st.global.u32 [%rd1+72], %r28;
  bmsk.clamp.b32 %r29, 0, 32;
  st.global.u32 [%rd1+76], %r29;
  bmsk.wrap.b32 %r30, 0, 32;
  st.global.u32 [%rd1+80], %r30;
  bmsk.wrap.b32 %r31, 31, 5;
  st.global.u32 [%rd1+84], %r31;
  bmsk.clamp.b32 %r32, 31, 5;
  st.global.u32 [%rd1+88], %r32;
  bmsk.clamp.b32 %r33, 8, 0;
  st.global.u32 [%rd1+92], %r33;
  szext.clamp.s32 %r34, 0xc, 4;
  st.global.u32 [%rd1+96], %r34;
  szext.clamp.u32 %r35, 0xfffffffc, 4;
  st.global.u32 [%rd1+100], %r35;
  szext.clamp.s32 %r36, 0x80000000, 40;
  st.global.u32 [%rd1+104], %r36;
  szext.wrap.s32 %r37, 0x8000000f, 36;
  st.global.u32 [%rd1+108], %r37;
  szext.wrap.u32 %r38, 0xffffffff, 0;
  st.global.u32 [%rd1+112], %r38;
  szext.wrap.u32 %r39, 0x12345678, 32;
  st.global.u32 [%rd1+116], %r39;
  szext.clamp.s32 %r40, 0x12345678, 0;
  st.global.u32 [%rd1+120], %r40;
  szext.clamp.s32 %r41, 0x70, 7;
  st.global.u32 [%rd1+124], %r41;
  szext.clamp.u32 %r42, 0x70, 7;
  st.global.u32 [%rd1+128], %r42;
  szext.clamp.u32 %r43, 0x12345678, 32;
  st.global.u32 [%rd1+132], %r43;
  fns.b32 %r44, 0xaaaaaaaa, 3, 1;
  st.global.u32 [%rd1+136], %r44;
  fns.b32 %r45, 0xaaaaaaaa, 3, -1;
  st.global.u32 [%rd1+140], %r45;
  fns.b32 %r46, 0xaaaaaaaa, 2, 1;
  st.global.u32 [%rd1+144], %r46;
  fns.b32 %r47, 0xaaaaaaaa, 2, -1;
  st.global.u32 [%rd1+148], %r47;
  fns.b32 %r48, 0xaaaaaaaa, 0, 0;
  st.global.u32 [%rd1+152], %r48;
  fns.b32 %r49, 0xaaaaaaaa, 1, 0;
  st.global.u32 [%rd1+156], %r49;
  fns.b32 %r50, 0xaaaaaaaa, 0, 16;
  st.global.u32 [%rd1+160], %r50;
  fns.b32 %r51, 0xaaaaaaaa, 0, 17;
  st.global.u32 [%rd1+164], %r51;
  fns.b32 %r52, 0x80000001, 31, -2;
  st.global.u32 [%rd1+168], %r52;
  fns.b32 %r53, 0x80000001, 30, -2;
  st.global.u32 [%rd1+172], %r53;
  fns.b32 %r54, 0x0, 5, 1;
  st.global.u32 [%rd1+176], %r54;
  mov.u32 %r8, 0x80000000;
  mov.u32 %r9, 0;
  slct.u32.s32 %r55, 11, 22, %r9;
  st.global.u32 [%rd1+180], %r55;
  slct.u32.s32 %r56, 11, 22, %r5;
  st.global.u32 [%rd1+184], %r56;
  slct.u32.s32 %r57, 11, 22, %r7;
  st.global.u32 [%rd1+188], %r57;
  slct.u32.s32 %r58, 11, 22, %r8;
  st.global.u32 [%rd1+192], %r58;
  mov.f32 %f1, 0f80000000;
  mov.f32 %f2, 0f80000001;
  mov.f32 %f3, 0f3F800000;
  mov.f32 %f4, 0fBF800000;
  slct.u32.f32 %r59, 11, 22, %f1;
  st.global.u32 [%rd1+196], %r59;
  slct.u32.f32 %r60, 11, 22, %f2;
  st.global.u32 [%rd1+200], %r60;
  slct.ftz.u32.f32 %r61, 11, 22, %f2;
  st.global.u32 [%rd1+204], %r61;
  slct.u32.f32 %r62, 11, 22, %f3;
  st.global.u32 [%rd1+208], %r62;
  slct.u32.f32 %r63, 11, 22, %f4;
  st.global.u32 [%rd1+212], %r63;
  ret;
}
)";

// Expected words of ops_ints, in store order: A = 0x80ff7f01 (bytes 0x01, 0x7f, 0xff, 0x80; halves
// 0x7f01, 0x80ff), B = 0xfe02ff7f (bytes 0x7f, 0xff, 0x02, 0xfe).
struct expected_word {
  std::uint32_t value;
  const char* what;
};
constexpr expected_word ops_int_words[] = {
    {0x103e6u, "dp4a.u32.u32 A, B, 1000"},
    {0xf9u, "dp4a.u32.s32 A, B, -5"},
    {0xfffffff9u, "dp4a.s32.u32 A, B, -5"},
    {0xf9u, "dp4a.s32.s32 A, B, -5"},
    {0x3f803u, "dp4a.u32.u32 of all-ones: wraps mod 2^32"},
    {0x8000ffffu, "dp4a.s32.s32 4*(-128)^2 + INT_MAX: wraps"},
    {0xbf8368u, "dp2a.lo.u32.u32 A, B, 1000"},
    {0x80feecu, "dp2a.hi.u32.u32 A, B, 1000"},
    {0x3f807bu, "dp2a.lo.s32.s32 A, B, -5"},
    {0x1fbffu, "dp2a.hi.s32.s32 A, B, -5"},
    {0xffc07f7bu, "dp2a.lo.s32.u32 A, B, -5"},
    {0xfffffbffu, "dp2a.hi.u32.s32 A, B, -5"},
    {0x6u, "bmsk.wrap position 1, width 2"},
    {0xfffffff0u, "bmsk.clamp position 4, width 28"},
    {0xfffffff0u, "bmsk.clamp position 4, width 40"},
    {0xff0u, "bmsk.wrap position 4, width 40"},
    {0x0u, "bmsk.clamp position 33, width 2"},
    {0x6u, "bmsk.wrap position 33, width 2"},
    {0x0u, "bmsk.wrap position 0, width 0"},
    {0xffffffffu, "bmsk.clamp position 0, width 32"},
    {0x0u, "bmsk.wrap position 0, width 32"},
    {0x80000000u, "bmsk.wrap position 31, width 5"},
    {0x80000000u, "bmsk.clamp position 31, width 5"},
    {0x0u, "bmsk.clamp position 8, width 0"},
    {0xfffffffcu, "szext.clamp.s32 0xc, 4"},
    {0xcu, "szext.clamp.u32 0xfffffffc, 4"},
    {0x80000000u, "szext.clamp.s32 0x80000000, 40"},
    {0xffffffffu, "szext.wrap.s32 0x8000000f, 36"},
    {0x0u, "szext.wrap.u32 0xffffffff, 0"},
    {0x0u, "szext.wrap.u32 0x12345678, 32"},
    {0x0u, "szext.clamp.s32 0x12345678, 0"},
    {0xfffffff0u, "szext.clamp.s32 0x70, 7"},
    {0x70u, "szext.clamp.u32 0x70, 7"},
    {0x12345678u, "szext.clamp.u32 0x12345678, 32"},
    {0x3u, "fns 0xaaaaaaaa, base 3, offset 1"},
    {0x3u, "fns 0xaaaaaaaa, base 3, offset -1"},
    {0x3u, "fns 0xaaaaaaaa, base 2, offset 1"},
    {0x1u, "fns 0xaaaaaaaa, base 2, offset -1"},
    {0xffffffffu, "fns 0xaaaaaaaa, base 0, offset 0"},
    {0x1u, "fns 0xaaaaaaaa, base 1, offset 0"},
    {0x1fu, "fns 0xaaaaaaaa, base 0, offset 16"},
    {0xffffffffu, "fns 0xaaaaaaaa, base 0, offset 17"},
    {0x0u, "fns 0x80000001, base 31, offset -2"},
    {0xffffffffu, "fns 0x80000001, base 30, offset -2"},
    {0xffffffffu, "fns 0x0, base 5, offset 1"},
    {0xbu, "slct on s32 0"},
    {0x16u, "slct on s32 -1"},
    {0xbu, "slct on s32 INT_MAX"},
    {0x16u, "slct on s32 INT_MIN"},
    {0xbu, "slct on f32 -0.0"},
    {0x16u, "slct on f32 -2^-149 (subnormal)"},
    {0xbu, "slct on f32 -2^-149 with .ftz"},
    {0xbu, "slct on f32 1.0"},
    {0x16u, "slct on f32 -1.0"},
};

constexpr std::string_view ops_relu = R"(
.visible .entry ops_relu(.param .u64 y_param, .param .u64 x_param)
{
  .reg .b32 %r<2>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  slct.f32.f32 %f2, %f1, 0f00000000, %f1;
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f2;
  ret;
}
)";
constexpr std::string_view ops_nan_select = R"(
.visible .entry ops_nan_select(.param .u64 z_param)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [z_param];
  mov.b32 %f1, 0f7FC00000;
  slct.u32.f32 %r1, 11, 22, %f1;
  st.global.u32 [%rd1], %r1;
  mov.b32 %f2, 0f7F800000;
  slct.u32.f32 %r2, 11, 22, %f2;
  st.global.u32 [%rd1+4], %r2;
  mov.b32 %f3, 0fFF800000;
  slct.u32.f32 %r3, 11, 22, %f3;
  st.global.u32 [%rd1+8], %r3;
  ret;
}
)";
constexpr std::string_view ops_int_errors = R"(
.visible .entry ops_int_errors(.param .u64 z_param, .param .u64 n_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [z_param];
  ld.param.u64 %rd2, [n_param];
  ld.global.u32 %r1, [%rd2];
  dp4a.s32.s32 %r2, %r1, %r1, 0;
  st.global.u32 [%rd1], %r2;
  ret;
}
)";
constexpr std::string_view ops_fns_base = R"(
.visible .entry ops_fns_base(.param .u64 z_param)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [z_param];
  mov.u32 %r1, 32;
  fns.b32 %r2, 0xffffffff, %r1, 1;
  st.global.u32 [%rd1], %r2;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("dp4a, dp2a (.lo/.hi), bmsk and szext (.clamp/.wrap), fns and slct on concrete values", D, DOMAINS) {
  auto k = load(ops_ints, "ops_ints.ptx");
  constexpr std::size_t n = std::size(ops_int_words);
  exec::launch l = one_cta(1, {out_int("z", n)});
  fixture<D> f(small_integers(0));
  auto z = cells(*k, l, f.d, 0);
  REQUIRE(z.size() == n);
  for (std::size_t i = 0; i < n; ++i) {
    CAPTURE(ops_int_words[i].what);
    REQUIRE(z[i].has_value());
    REQUIRE(z[i]->is_bits());
    CHECK(static_cast<std::uint32_t>(z[i]->bits) == ops_int_words[i].value);
  }
}

TEST_CASE_TEMPLATE("slct.f32.f32 d, x, 0, x is max(x, 0) in every domain", D, DOMAINS) {
  const rat xs[4] = {rat(-3), rat(2), rat(1, 2), rat(-1, 4)};
  auto k = load(ops_relu, "ops_relu.ptx");
  exec::launch l = one_cta(4, {out_f32("y", 4), in_f32("x", 4)});
  fixture<D> f([&](std::string_view, std::uint64_t e) { return xs[e]; });
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    REQUIRE(r.out.at("y")[i].has_value());
    CHECK(f.at(*r.out.at("y")[i], l) == (xs[i] >= 0 ? xs[i] : rat(0)));
  }
}

TEST_CASE("float32: slct on a NaN selector takes b (NaN >= 0 is false), on +inf a, on -inf b") {
  auto k = load(ops_nan_select, "ops_nan_select.ptx");
  exec::launch l = one_cta(1, {out_int("z", 3)});
  fixture<exec::float32_domain> f(small_integers(0));
  auto z = cells(*k, l, f.d, 0);
  REQUIRE(z.size() == 3);
  const std::uint32_t want[3] = {22, 11, 22};
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    REQUIRE(z[i].has_value());
    REQUIRE(z[i]->is_bits());
    CHECK(static_cast<std::uint32_t>(z[i]->bits) == want[i]);
  }
}

TEST_CASE("dp4a on symbolic integer data stops the run; fns with base > 31 (undefined in the ISA) stops it too") {
  auto k = load(ops_int_errors, "ops_int_errors.ptx");
  exec::launch l = one_cta(1, {out_int("z", 1), tensor("n", exec::rkind::integer, {1}, true, false, 4)});
  fixture<exec::symbolic_domain> f(small_integers(0));
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::not_structured);
  CHECK_MESSAGE(contains(e.message, "integer instruction 'dp4a' on symbolic data"), e.message);

  auto b = load(ops_fns_base, "ops_fns_base.ptx");
  fixture<exec::exact_domain> g(small_integers(0));
  auto e2 = expect_error(*b, one_cta(1, {out_int("z", 1)}), g.d);
  CHECK(e2.kind == exec::error_kind::domain);
  CHECK_MESSAGE(contains(e2.message, "fns with base 32"), e2.message);
  CHECK_MESSAGE(contains(e2.message, "ops_fns_base.ptx:" + std::to_string(line_of(ops_fns_base, "fns.b32"))), e2.message);
}

// ---- testp, copysign ----------------------------------------------------------------------------
// Expected values: testp's from Python's float classification (math.isnan, math.isinf,
// |x| < 2^-126 or 2^-1022), copysign's from math.copysign, in the same independent script; the
// rest by hand. The kernels pass `ptxas -arch=sm_80` (.version 8.0).
namespace {

constexpr std::string_view ops_classes = R"(
// The bits of the values of ops_f32_classes and ops_f64_classes below, in order; ops_sign32/64 hold
// the (a, b) pairs whose copysign ops_sign32_results and ops_sign64_results give.
.global .align 4 .b32 ops_f32[11] = {2143289344, 4290772993, 2139095040, 4286578688, 0, 2147483648,
                                     1, 2155872255, 8388608, 1069547520, 4286578687};
.global .align 8 .b64 ops_f64[7] = {9221120237041090560, 18442240474082181120, 9223372036854775808,
                                    1, 4503599627370496, 3976678470968147968, 4607182418800017408};
.global .align 4 .b32 ops_sign32[12] = {2147483648, 1069547520, 1065353216, 4286578688, 3212836864,
                                        2143289345, 4290772992, 1073741824, 0, 2147483648,
                                        2147483649, 1065353216};
.global .align 8 .b64 ops_sign64[6] = {9223372036854775808, 4609434218613702656,
                                       18444492273895866368, 13835058055282163712,
                                       4613937818241073152, 13821547256400052224};
.visible .entry ops_classes(.param .u64 z_param, .param .u64 w_param)
{
  .reg .pred %p<10>;
  .reg .b32 %r<12>;
  .reg .f32 %f<8>;
  .reg .f64 %fd<8>;
  .reg .b64 %rd<24>;
  ld.param.u64 %rd1, [z_param];
  ld.param.u64 %rd2, [w_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  mov.u64 %rd4, ops_f32;
  add.s64 %rd5, %rd4, %rd3;
  ld.global.b32 %f1, [%rd5];
  mul.wide.u32 %rd6, %r1, 24;
  add.s64 %rd7, %rd1, %rd6;
  testp.finite.f32 %p1, %f1;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd7+0], %r3;
  testp.infinite.f32 %p1, %f1;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd7+4], %r3;
  testp.number.f32 %p1, %f1;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd7+8], %r3;
  testp.notanumber.f32 %p1, %f1;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd7+12], %r3;
  testp.normal.f32 %p1, %f1;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd7+16], %r3;
  testp.subnormal.f32 %p1, %f1;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd7+20], %r3;
  setp.ge.u32 %p7, %r1, 7;
  @%p7 bra SIGN;
  mul.wide.u32 %rd8, %r1, 8;
  mov.u64 %rd9, ops_f64;
  add.s64 %rd10, %rd9, %rd8;
  ld.global.b64 %fd1, [%rd10];
  add.s64 %rd11, %rd7, 264;
  testp.finite.f64 %p1, %fd1;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd11+0], %r3;
  testp.infinite.f64 %p1, %fd1;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd11+4], %r3;
  testp.number.f64 %p1, %fd1;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd11+8], %r3;
  testp.notanumber.f64 %p1, %fd1;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd11+12], %r3;
  testp.normal.f64 %p1, %fd1;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd11+16], %r3;
  testp.subnormal.f64 %p1, %fd1;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd11+20], %r3;
SIGN:
  setp.ge.u32 %p8, %r1, 6;
  @%p8 bra SIGN64;
  mul.wide.u32 %rd12, %r1, 8;
  mov.u64 %rd13, ops_sign32;
  add.s64 %rd14, %rd13, %rd12;
  ld.global.b32 %f2, [%rd14];
  ld.global.b32 %f3, [%rd14+4];
  copysign.f32 %f4, %f2, %f3;
  mov.b32 %r10, %f4;
  add.s64 %rd15, %rd1, %rd3;
  st.global.u32 [%rd15+432], %r10;
SIGN64:
  setp.ge.u32 %p9, %r1, 3;
  @%p9 bra DONE;
  mul.wide.u32 %rd16, %r1, 16;
  mov.u64 %rd17, ops_sign64;
  add.s64 %rd18, %rd17, %rd16;
  ld.global.b64 %fd2, [%rd18];
  ld.global.b64 %fd3, [%rd18+8];
  copysign.f64 %fd4, %fd2, %fd3;
  mov.b64 %rd19, %fd4;
  mul.wide.u32 %rd20, %r1, 8;
  add.s64 %rd21, %rd2, %rd20;
  st.global.u64 [%rd21], %rd19;
DONE:
  ret;
}
)";

// The six testp answers (.finite .infinite .number .notanumber .normal .subnormal) per value of
// ops_f32 and ops_f64 (a zero is normal, as the ISA states).
struct expected_classes {
  std::uint64_t bits;
  const char* what;
  int answers[6];
};
constexpr expected_classes ops_f32_classes[] = {
    {0x7fc00000u, "NaN", {0, 0, 0, 1, 0, 0}},
    {0xffc00001u, "-NaN", {0, 0, 0, 1, 0, 0}},
    {0x7f800000u, "+inf", {0, 1, 1, 0, 0, 0}},
    {0xff800000u, "-inf", {0, 1, 1, 0, 0, 0}},
    {0x0u, "+0", {1, 0, 1, 0, 1, 0}},
    {0x80000000u, "-0", {1, 0, 1, 0, 1, 0}},
    {0x1u, "2^-149", {1, 0, 1, 0, 0, 1}},
    {0x807fffffu, "-largest subnormal", {1, 0, 1, 0, 0, 1}},
    {0x800000u, "2^-126", {1, 0, 1, 0, 1, 0}},
    {0x3fc00000u, "1.5", {1, 0, 1, 0, 1, 0}},
    {0xff7fffffu, "-FLT_MAX", {1, 0, 1, 0, 1, 0}},
};
constexpr expected_classes ops_f64_classes[] = {
    {0x7ff8000000000000u, "NaN", {0, 0, 0, 1, 0, 0}},
    {0xfff0000000000000u, "-inf", {0, 1, 1, 0, 0, 0}},
    {0x8000000000000000u, "-0", {1, 0, 1, 0, 1, 0}},
    {0x1u, "2^-1074", {1, 0, 1, 0, 0, 1}},
    {0x10000000000000u, "2^-1022", {1, 0, 1, 0, 1, 0}},
    {0x3730000000000000u, "2^-140", {1, 0, 1, 0, 1, 0}},
    {0x3ff0000000000000u, "1.0", {1, 0, 1, 0, 1, 0}},
};
// copysign d, a, b: b's magnitude with a's sign (the pairs of ops_sign32 and ops_sign64).
constexpr expected_word ops_sign32_results[] = {
    {0xbfc00000u, "copysign.f32 -0, 1.5"},
    {0x7f800000u, "copysign.f32 1, -inf"},
    {0xffc00001u, "copysign.f32 -1, NaN"},
    {0xc0000000u, "copysign.f32 -NaN, 2"},
    {0x0u, "copysign.f32 +0, -0"},
    {0xbf800000u, "copysign.f32 -2^-149, 1"},
};
constexpr std::uint64_t ops_sign64_results[] = {0xbff8000000000000u, 0xc000000000000000u, 0x3fd0000000000000u};  // -0, 1.5; -NaN, -2; 3, -0.25
constexpr std::string_view ops_reals = R"(
.visible .entry ops_reals(.param .u64 y_param, .param .u64 z_param)
{
  .reg .pred %p<12>;
  .reg .b32 %r<12>;
  .reg .f32 %f<12>;
  .reg .f64 %fd<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [z_param];
  mov.f32 %f1, 0f3F800000;
  div.rn.f32 %f2, %f1, 0f40400000;
  testp.normal.f32 %p1, %f2;
  selp.u32 %r1, 1, 0, %p1;
  st.global.u32 [%rd2], %r1;
  testp.subnormal.f32 %p2, %f2;
  selp.u32 %r2, 1, 0, %p2;
  st.global.u32 [%rd2+4], %r2;
  testp.finite.f32 %p3, %f2;
  selp.u32 %r3, 1, 0, %p3;
  st.global.u32 [%rd2+8], %r3;
  testp.notanumber.f32 %p4, %f2;
  selp.u32 %r4, 1, 0, %p4;
  st.global.u32 [%rd2+12], %r4;
  mov.f32 %f3, 0f00000200;
  div.rn.f32 %f4, %f3, 0f40400000;
  testp.subnormal.f32 %p5, %f4;
  selp.u32 %r5, 1, 0, %p5;
  st.global.u32 [%rd2+16], %r5;
  testp.normal.f32 %p6, %f4;
  selp.u32 %r6, 1, 0, %p6;
  st.global.u32 [%rd2+20], %r6;
  neg.f32 %f5, %f4;
  testp.subnormal.f32 %p7, %f5;
  selp.u32 %r7, 1, 0, %p7;
  st.global.u32 [%rd2+24], %r7;
  mov.f64 %fd1, 0d3FF0000000000000;
  div.rn.f64 %fd2, %fd1, 0d4008000000000000;
  testp.normal.f64 %p8, %fd2;
  selp.u32 %r8, 1, 0, %p8;
  st.global.u32 [%rd2+28], %r8;
  testp.infinite.f64 %p9, %fd2;
  selp.u32 %r9, 1, 0, %p9;
  st.global.u32 [%rd2+32], %r9;
  copysign.f32 %f6, %f2, 0fC0000000;
  st.global.f32 [%rd1], %f6;
  neg.f32 %f7, %f2;
  copysign.f32 %f8, %f7, 0f3F000000;
  st.global.f32 [%rd1+4], %f8;
  copysign.f32 %f9, %f7, %f2;
  add.f32 %f10, %f9, %f2;
  st.global.f32 [%rd1+8], %f10;
  ret;
}
)";
constexpr std::string_view ops_sign = R"(
.visible .entry ops_sign(.param .u64 y_param, .param .u64 x_param)
{
  .reg .pred %p<3>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  ld.global.f32 %f1, [%rd2];
  ld.global.f32 %f2, [%rd2+4];
  testp.finite.f32 %p1, %f1;
  selp.f32 %f3, 0f3F800000, 0f00000000, %p1;
  st.global.f32 [%rd1], %f3;
  testp.notanumber.f32 %p2, %f1;
  selp.f32 %f4, 0f3F800000, 0f00000000, %p2;
  st.global.f32 [%rd1+4], %f4;
  copysign.f32 %f5, %f1, %f2;
  st.global.f32 [%rd1+8], %f5;
  ret;
}
)";
constexpr std::string_view ops_normal = R"(
.visible .entry ops_normal(.param .u64 y_param, .param .u64 x_param)
{
  .reg .pred %p<2>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  ld.global.f32 %f1, [%rd2];
  testp.normal.f32 %p1, %f1;
  selp.f32 %f2, 0f3F800000, 0f00000000, %p1;
  st.global.f32 [%rd1], %f2;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("testp classifies NaNs, infinities, zeros, subnormals and normals; copysign copies the sign bit", D, DOMAINS) {
  // Every value here has concrete bits (read from initialized global arrays), so even the exact
  // domain, which has no NaN or infinity, answers from the bits.
  auto k = load(ops_classes, "ops_classes.ptx");
  exec::launch l = one_cta(11, {out_int("z", 114), out_int("w", 3, 8)});
  fixture<D> f(small_integers(0));
  auto z = cells(*k, l, f.d, 0);
  REQUIRE(z.size() == 114);
  auto word = [&](std::size_t i) {
    REQUIRE(z[i].has_value());
    REQUIRE(z[i]->is_bits());
    return static_cast<std::uint32_t>(z[i]->bits);
  };
  constexpr const char* tests[] = {".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal"};
  for (std::size_t v = 0; v < std::size(ops_f32_classes); ++v)
    for (std::size_t i = 0; i < 6; ++i) {
      CAPTURE(ops_f32_classes[v].what);
      CAPTURE(tests[i]);
      CHECK(word(6 * v + i) == static_cast<std::uint32_t>(ops_f32_classes[v].answers[i]));
    }
  for (std::size_t v = 0; v < std::size(ops_f64_classes); ++v)
    for (std::size_t i = 0; i < 6; ++i) {
      CAPTURE(ops_f64_classes[v].what);
      CAPTURE(tests[i]);
      CHECK(word(66 + 6 * v + i) == static_cast<std::uint32_t>(ops_f64_classes[v].answers[i]));
    }
  for (std::size_t t = 0; t < std::size(ops_sign32_results); ++t) {
    CAPTURE(ops_sign32_results[t].what);
    CHECK(word(108 + t) == ops_sign32_results[t].value);
  }
  auto w = cells(*k, l, f.d, 1);
  REQUIRE(w.size() == 3);
  for (std::size_t t = 0; t < 3; ++t) {
    CAPTURE(t);
    REQUIRE(w[t].has_value());
    REQUIRE(w[t]->is_bits());
    CHECK(w[t]->bits == ops_sign64_results[t]);
  }
}

TEST_CASE_TEMPLATE("testp and copysign of values without an exact encoding: a rational is finite, and subnormal by its magnitude", D, DOMAINS) {
  // 1/3 and 2^-140/3 are exact rationals in the exact domain (no f32 encodes them), rounded in
  // float32; the answers agree: 1/3 is normal, 2^-140/3 (and its negation) subnormal.
  auto k = load(ops_reals, "ops_reals.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 3), out_int("z", 9)});
  fixture<D> f(small_integers(0));
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  const int z_want[9] = {1, 0, 1, 0, 1, 0, 1, 1, 0};
  for (std::size_t i = 0; i < 9; ++i) {
    CAPTURE(i);
    REQUIRE(r.out.at("z")[i].has_value());
    CHECK(f.at(*r.out.at("z")[i], l) == rat(z_want[i]));
  }
  for (const auto& v : r.out.at("y")) REQUIRE(v.has_value());
  CHECK(f.at(*r.out.at("y")[0], l) == rat(2));      // copysign(1/3, -2)
  CHECK(f.at(*r.out.at("y")[1], l) == rat(-1, 2));  // copysign(-1/3, 0.5)
  CHECK(f.at(*r.out.at("y")[2], l) == rat(0));      // copysign(-1/3, 1/3) + 1/3
}

TEST_CASE("testp and copysign of symbolic values: a real is a finite number; a sign taken from one is a branch point") {
  auto k = load(ops_sign, "ops_sign.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 3), in_f32("x", 2)});
  fixture<exec::symbolic_domain> f(random_rationals(1));
  const term::term_id x0 = f.s.input("x", {0}), x1 = f.s.input("x", {1});
  const term::term_id magnitude = term::build(f.s, exec::aop::abs, {x1});
  for (bool negative : {true, false}) {
    CAPTURE(negative);
    exec::case_split c;
    c.prescribed = {negative};
    f.d.attach(&c);
    auto r = run(*k, l, f.d);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK(*r.out["y"][0] == f.s.one());   // testp.finite
    CHECK(*r.out["y"][1] == f.s.zero());  // testp.notanumber
    CHECK(*r.out["y"][2] == (negative ? term::build(f.s, exec::aop::neg, {magnitude}) : magnitude));
    CHECK(c.taken == std::vector<bool>{negative});
    REQUIRE(c.assumed.size() == 1);
    CHECK(c.assumed[0].a == x0);
    CHECK(c.assumed[0].b == f.s.zero());
    CHECK(c.assumed[0].c == exec::cmp_op::lt);
  }
  f.d.attach(nullptr);
  auto e = expect_error(*k, l, f.d);  // without a case split the sign stops the run
  CHECK(e.kind == exec::error_kind::not_structured);
  CHECK_MESSAGE(contains(e.message, "ops_sign.ptx:" + std::to_string(line_of(ops_sign, "copysign"))), e.message);

  // The exact domain decides the sign of every value: copysign(-3, 2) = -2, copysign(1/2, -4) = 4.
  for (auto [a, b, want] : {std::tuple{rat(-3), rat(2), rat(-2)}, std::tuple{rat(1, 2), rat(-4), rat(4)}}) {
    const rat sign = a, magnitude_of = b;
    fixture<exec::exact_domain> g([&](std::string_view, std::uint64_t i) { return i == 0 ? sign : magnitude_of; });
    auto r = run(*k, l, g.d);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK(*r.out["y"][0] == rat(1));
    CHECK(*r.out["y"][2] == want);
  }
}

TEST_CASE("testp .normal of a symbolic value: its magnitude is compared under the case split, else the run stops") {
  auto k = load(ops_normal, "ops_normal.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 1), in_f32("x", 1)});
  fixture<exec::symbolic_domain> f(random_rationals(1));
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::not_structured);
  CHECK_MESSAGE(contains(e.message, "testp"), e.message);
  // Paths: |x| >= 2^-126 (normal); |x| < 2^-126 and x = 0 (a zero is normal); 0 < |x| < 2^-126.
  const std::pair<std::vector<bool>, term::term_id> paths[] = {
      {{false}, f.s.one()}, {{true, true}, f.s.one()}, {{true, false}, f.s.zero()}};
  for (const auto& [choices, want] : paths) {
    CAPTURE(choices.size());
    exec::case_split c;
    c.prescribed = choices;
    f.d.attach(&c);
    auto r = run(*k, l, f.d);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK(*r.out["y"][0] == want);
    CHECK(c.taken == choices);
  }
  f.d.attach(nullptr);
}

// ---- isspacep -----------------------------------------------------------------------------------
namespace {

// isspacep: thread t tests one generic address in the eight spaces (.global .const .local .shared
// .shared::cta .shared::cluster .param .param::entry) and stores the answers to
// z[8 (rank ntid.x + t) + i]: t = 0 (and t >= 7) an input tensor, 1 a .global array, 2 a .const array, 3 the
// thread's .local array, 4 the CTA's shared array, 5 that address + 65536 (past the array, in the
// shared window), 6 the shared array in the next CTA of the cluster (mapa; the CTA itself without a
// cluster). The kernel passes `ptxas -arch=sm_90` at .version 8.3 (.shared::cluster and mapa need
// sm_90, .param::entry PTX ISA 8.3); gpueq reads it with the tests' sm_80 header.
constexpr std::string_view ops_spaces = R"(
.global .align 4 .b32 ops_gtab[4];
.const .align 4 .b32 ops_ctab[4] = {1, 2, 3, 4};
.visible .entry ops_spaces(.param .u64 z_param)
{
  .reg .pred %p<10>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<16>;
  .local .align 4 .b32 loc[4];
  .shared .align 4 .b32 sh[4];
  ld.param.u64 %rd1, [z_param];
  mov.u64 %rd2, ops_gtab;
  cvta.global.u64 %rd3, %rd2;
  mov.u64 %rd4, ops_ctab;
  cvta.const.u64 %rd5, %rd4;
  mov.u64 %rd6, loc;
  cvta.local.u64 %rd7, %rd6;
  mov.u64 %rd8, sh;
  cvta.shared.u64 %rd9, %rd8;
  add.s64 %rd10, %rd9, 65536;
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, %cluster_nctarank;
  add.u32 %r3, %r1, 1;
  rem.u32 %r4, %r3, %r2;
  mapa.u64 %rd11, %rd9, %r4;
  mov.u32 %r5, %tid.x;
  mov.u64 %rd12, %rd1;
  setp.eq.u32 %p1, %r5, 1;
  selp.b64 %rd12, %rd3, %rd12, %p1;
  setp.eq.u32 %p1, %r5, 2;
  selp.b64 %rd12, %rd5, %rd12, %p1;
  setp.eq.u32 %p1, %r5, 3;
  selp.b64 %rd12, %rd7, %rd12, %p1;
  setp.eq.u32 %p1, %r5, 4;
  selp.b64 %rd12, %rd9, %rd12, %p1;
  setp.eq.u32 %p1, %r5, 5;
  selp.b64 %rd12, %rd10, %rd12, %p1;
  setp.eq.u32 %p1, %r5, 6;
  selp.b64 %rd12, %rd11, %rd12, %p1;
  mov.u32 %r7, %ntid.x;
  mad.lo.u32 %r6, %r1, %r7, %r5;
  mul.wide.u32 %rd13, %r6, 32;
  add.s64 %rd14, %rd1, %rd13;
  isspacep.global %p2, %rd12;
  selp.u32 %r10, 1, 0, %p2;
  st.global.u32 [%rd14+0], %r10;
  isspacep.const %p3, %rd12;
  selp.u32 %r11, 1, 0, %p3;
  st.global.u32 [%rd14+4], %r11;
  isspacep.local %p4, %rd12;
  selp.u32 %r12, 1, 0, %p4;
  st.global.u32 [%rd14+8], %r12;
  isspacep.shared %p5, %rd12;
  selp.u32 %r13, 1, 0, %p5;
  st.global.u32 [%rd14+12], %r13;
  isspacep.shared::cta %p6, %rd12;
  selp.u32 %r14, 1, 0, %p6;
  st.global.u32 [%rd14+16], %r14;
  isspacep.shared::cluster %p7, %rd12;
  selp.u32 %r15, 1, 0, %p7;
  st.global.u32 [%rd14+20], %r15;
  isspacep.param %p8, %rd12;
  selp.u32 %r16, 1, 0, %p8;
  st.global.u32 [%rd14+24], %r16;
  isspacep.param::entry %p9, %rd12;
  selp.u32 %r17, 1, 0, %p9;
  st.global.u32 [%rd14+28], %r17;
  ret;
}
)";

// The answers by hand from the windows stated at engine::isspacep: the global window is every
// address outside the shared and local ones (.const arrays included); no address is a kernel
// parameter's.
constexpr int ops_space_answers[7][8] = {
    {1, 0, 0, 0, 0, 0, 0, 0},  // tensor
    {1, 0, 0, 0, 0, 0, 0, 0},  // .global array
    {1, 1, 0, 0, 0, 0, 0, 0},  // .const array
    {0, 0, 1, 0, 0, 0, 0, 0},  // .local array
    {0, 0, 0, 1, 1, 1, 0, 0},  // own shared array
    {0, 0, 0, 1, 1, 1, 0, 0},  // past it, still in the window
    {0, 0, 0, 1, 1, 1, 0, 0},  // mapa to the next CTA: without a cluster the CTA itself
};

}  // namespace

TEST_CASE_TEMPLATE("isspacep: which window a generic address lies in", D, DOMAINS) {
  auto k = load(ops_spaces, "ops_spaces.ptx");
  exec::launch l = one_cta(7, {out_int("z", 56)});
  fixture<D> f(small_integers(0));
  auto z = cells(*k, l, f.d, 0);
  REQUIRE(z.size() == 56);
  for (std::size_t t = 0; t < 7; ++t)
    for (std::size_t i = 0; i < 8; ++i) {
      CAPTURE(t);
      CAPTURE(i);
      REQUIRE(z[8 * t + i].has_value());
      REQUIRE(z[8 * t + i]->is_bits());
      CHECK(z[8 * t + i]->bits == static_cast<std::uint64_t>(ops_space_answers[t][i]));
    }
}

TEST_CASE("isspacep in a cluster: another CTA's shared memory is in .shared::cluster, not in .shared::cta") {
  auto k = load(ops_spaces, "ops_spaces.ptx");
  // A cluster's CTAs are whole warps in gpueq: 32 threads, of which 7..31 test the tensor again.
  exec::launch l = one_cta(32, {out_int("z", 512)});
  l.grid = {2, 1, 1};
  l.cluster = {2, 1, 1};
  l.cta = {0, 0, 0};
  fixture<exec::exact_domain> f(small_integers(0));
  auto z = cells(*k, l, f.d, 0);
  REQUIRE(z.size() == 512);
  for (std::size_t rank = 0; rank < 2; ++rank)
    for (std::size_t t = 0; t < 32; ++t)
      for (std::size_t i = 0; i < 8; ++i) {
        CAPTURE(rank);
        CAPTURE(t);
        CAPTURE(i);
        // Thread 6's address is now the other CTA's array: in the shared window and the
        // cluster's shared memory, not in this CTA's (.shared, .shared::cta).
        const int* row = ops_space_answers[t < 7 ? t : 0];
        const int want = t == 6 ? (i == 5 ? 1 : i == 3 || i == 4 ? 0 : row[i]) : row[i];
        const std::size_t e = 8 * (32 * rank + t) + i;
        REQUIRE(z[e].has_value());
        REQUIRE(z[e]->is_bits());
        CHECK(z[e]->bits == static_cast<std::uint64_t>(want));
      }
}
