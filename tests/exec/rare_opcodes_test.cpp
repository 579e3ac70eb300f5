// Execution tests for the supported opcodes that no other execution test ran: the walk of the
// opcode table (opcode_table_test.cpp) found them. 24-bit multiplies, sad, bfind, cnot, lop3,
// funnel shifts, sin/cos/tanh, ldu, the `barrier.sync` spelling of the CTA barrier, the
// instructions that do nothing to one CTA's results (membar, fence, nanosleep, pmevent), the cache
// hints (createpolicy, prefetchu, applypriority, .L2::cache_hint), exit and brkpt. Expected values
// are computed by hand from the PTX ISA's definitions.
#include "harness.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>

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
