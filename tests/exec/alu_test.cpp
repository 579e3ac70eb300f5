// Instruction semantics, one instruction family at a time: float32 bit-faithfulness where PTX
// defines the result (fma against mul+add, rounding modes, f16 conversion with ties to even and
// overflow, float-to-integer conversion with NaN and saturation, .ftz, .sat, min/max with NaN),
// and the integer ALU on concrete bits (wide and high multiplies, arithmetic and logical shifts,
// bfe/bfi, prmt, setp with a combining predicate, selp, signed division and remainder, popc,
// clz, brev), which must not depend on the value domain.
#include "harness.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace exec_test;

namespace {

// A kernel around `body`: %f1..%f3 are x[0..2]; y (f32), z (32-bit integers) and h (f16) are
// outputs the body stores to.
std::string float_kernel(std::string_view body) {
  return std::string(R"(
.visible .entry op(.param .u64 y_param, .param .u64 z_param, .param .u64 h_param, .param .u64 x_param)
{
  .reg .pred %p<8>;
  .reg .b16 %h<8>;
  .reg .b32 %r<16>;
  .reg .f32 %f<16>;
  .reg .f64 %fd<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [z_param];
  ld.param.u64 %rd3, [h_param];
  ld.param.u64 %rd4, [x_param];
  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [%rd4+4];
  ld.global.f32 %f3, [%rd4+8];
)") + std::string(body) + "\n  ret;\n}\n";
}

struct float_results {
  std::vector<std::optional<double>> y, h;
  std::vector<std::optional<std::int32_t>> z;
};

// Runs `body` in the float32 domain with x = {a, b, c}.
float_results run_float(std::string_view body, double a, double b = 0, double c = 0) {
  auto k = load(float_kernel(body), "op.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 4), out_int("z", 4), tensor("h", exec::rkind::f16, {4}, false, true),
                               in_f32("x", 3)});
  double x[3] = {a, b, c};
  exec::float32_domain d([&](const exec::input_ref& in) { return exec::floats::round_to(x[in.element], in.kind); });
  exec::null_observer none;
  exec::engine<exec::float32_domain> e(k->program, l, d, none);
  auto err = e.run();
  float_results r;
  REQUIRE_MESSAGE(!err, err->message);
  for (std::uint64_t i = 0; i < 4; ++i) {
    auto cy = e.output(0, i), cz = e.output(1, i), ch = e.output(2, i);
    r.y.push_back(cy ? std::optional(e.as_real(*cy, exec::rkind::f32)) : std::nullopt);
    r.h.push_back(ch ? std::optional(e.as_real(*ch, exec::rkind::f16)) : std::nullopt);
    if (cz) REQUIRE(cz->is_bits());  // integer results of float conversions are concrete bits
    r.z.push_back(cz ? std::optional(static_cast<std::int32_t>(static_cast<std::uint32_t>(cz->bits))) : std::nullopt);
  }
  return r;
}

// The same double, bit for bit (distinguishes -0 from 0, and any NaN from a number).
bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

}  // namespace

TEST_CASE("float32: fma.rn rounds once, mul.rn + add.rn twice") {
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: the product rounds (a tie, to even) to 1 + 2^-11, so
  // mul+add cancels to 0 while the fused operation keeps the 2^-24.
  double a = 1 + std::ldexp(1.0, -12), c = -(1 + std::ldexp(1.0, -11));
  auto r = run_float(R"(
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd1], %f4;
  mul.rn.f32 %f5, %f1, %f2;
  add.rn.f32 %f6, %f5, %f3;
  st.global.f32 [%rd1+4], %f6;
  mad.rn.f32 %f7, %f1, %f2, %f3;
  st.global.f32 [%rd1+8], %f7;
)",
                     a, a, c);
  CHECK(*r.y[0] == std::ldexp(1.0, -24));
  CHECK(*r.y[0] == static_cast<double>(std::fma(static_cast<float>(a), static_cast<float>(a), static_cast<float>(c))));
  CHECK(*r.y[1] == 0.0);
  CHECK(*r.y[2] == std::ldexp(1.0, -24));  // mad.rn.f32 is fma
  CHECK_FALSE(r.y[3].has_value());
}

TEST_CASE("float32: add, div and sqrt under .rn/.rz/.rm/.rp") {
  constexpr std::string_view adds = R"(
  add.rn.f32 %f4, %f1, %f2;
  st.global.f32 [%rd1], %f4;
  add.rz.f32 %f5, %f1, %f2;
  st.global.f32 [%rd1+4], %f5;
  add.rm.f32 %f6, %f1, %f2;
  st.global.f32 [%rd1+8], %f6;
  add.rp.f32 %f7, %f1, %f2;
  st.global.f32 [%rd1+12], %f7;
)";
  double ulp = std::ldexp(1.0, -23), tiny = std::ldexp(1.0, -30);
  auto up = run_float(adds, 1, tiny);
  CHECK(*up.y[0] == 1);
  CHECK(*up.y[1] == 1);
  CHECK(*up.y[2] == 1);
  CHECK(*up.y[3] == 1 + ulp);
  auto down = run_float(adds, -1, -tiny);
  CHECK(*down.y[0] == -1);
  CHECK(*down.y[1] == -1);
  CHECK(*down.y[2] == -(1 + ulp));
  CHECK(*down.y[3] == -1);

  // 1/3 and sqrt(2) are not floats: .rz and .rp bracket them one ulp apart, .rn is the C++ float
  // result.
  auto q = run_float(R"(
  div.rn.f32 %f4, %f1, %f2;
  st.global.f32 [%rd1], %f4;
  div.rz.f32 %f5, %f1, %f2;
  st.global.f32 [%rd1+4], %f5;
  div.rp.f32 %f6, %f1, %f2;
  st.global.f32 [%rd1+8], %f6;
  sqrt.rn.f32 %f7, %f3;
  st.global.f32 [%rd1+12], %f7;
)",
                     1, 3, 2);
  CHECK(*q.y[0] == static_cast<double>(1.0f / 3.0f));
  CHECK(*q.y[1] < 1.0 / 3);
  CHECK(*q.y[2] > 1.0 / 3);
  CHECK(static_cast<double>(std::nextafter(static_cast<float>(*q.y[1]), 1.0f)) == *q.y[2]);
  CHECK(*q.y[3] == static_cast<double>(std::sqrt(2.0f)));
}

TEST_CASE("float32: cvt.rn.f16.f32 rounds ties to even and overflows to infinity; .rz saturates") {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: even is 1. 1 + 3*2^-11 lies halfway between
  // 1 + 2^-10 and 1 + 2^-9: even is 1 + 2^-9. 65520 lies halfway between the largest half
  // (65504) and 2^16: to nearest it is infinity, toward zero 65504.
  auto r = run_float(R"(
  cvt.rn.f16.f32 %h1, %f1;
  st.global.b16 [%rd3], %h1;
  cvt.rn.f16.f32 %h2, %f2;
  st.global.b16 [%rd3+2], %h2;
  cvt.rn.f16.f32 %h3, %f3;
  st.global.b16 [%rd3+4], %h3;
  cvt.rz.f16.f32 %h4, %f3;
  cvt.f32.f16 %f4, %h4;
  st.global.f32 [%rd1], %f4;
)",
                     1 + std::ldexp(1.0, -11), 1 + 3 * std::ldexp(1.0, -11), 65520);
  CHECK(*r.h[0] == 1);
  CHECK(*r.h[1] == 1 + std::ldexp(1.0, -9));
  CHECK(*r.h[2] == INFINITY);
  CHECK(*r.y[0] == 65504);
}

TEST_CASE("float32: f16 arithmetic rounds to half precision") {
  // Halves at 2048 are 2 apart: 2048 + 1 ties to 2048 (even), 2048 + 3 ties to 2052 (even).
  auto r = run_float(R"(
  cvt.rn.f16.f32 %h1, %f1;
  cvt.rn.f16.f32 %h2, %f2;
  cvt.rn.f16.f32 %h3, %f3;
  add.rn.f16 %h4, %h1, %h2;
  st.global.b16 [%rd3], %h4;
  add.rn.f16 %h5, %h1, %h3;
  st.global.b16 [%rd3+2], %h5;
  add.f32 %f4, %f1, %f2;
  st.global.f32 [%rd1], %f4;
)",
                     2048, 1, 3);
  CHECK(*r.h[0] == 2048);
  CHECK(*r.h[1] == 2052);
  CHECK(*r.y[0] == 2049);  // the same sum in f32 is exact
}

TEST_CASE("float32: cvt to integers: rounding of negatives, NaN to 0, saturation") {
  constexpr std::string_view body = R"(
  cvt.rzi.s32.f32 %r1, %f1;
  st.global.s32 [%rd2], %r1;
  cvt.rmi.s32.f32 %r2, %f1;
  st.global.s32 [%rd2+4], %r2;
  cvt.rni.s32.f32 %r3, %f2;
  st.global.s32 [%rd2+8], %r3;
  cvt.rzi.s32.f32 %r4, %f3;
  st.global.s32 [%rd2+12], %r4;
)";
  auto r = run_float(body, -2.7, -2.5, std::numeric_limits<double>::quiet_NaN());
  CHECK(*r.z[0] == -2);  // toward zero
  CHECK(*r.z[1] == -3);  // toward -inf
  CHECK(*r.z[2] == -2);  // nearest, ties to even
  CHECK(*r.z[3] == 0);   // NaN converts to 0

  // Out of range: saturate to the type's extremes (finite and infinite alike).
  auto big = run_float(body, 3e9, -3e9, INFINITY);
  CHECK(*big.z[0] == std::numeric_limits<std::int32_t>::max());
  CHECK(*big.z[1] == std::numeric_limits<std::int32_t>::max());  // rmi of 3e9
  CHECK(*big.z[2] == std::numeric_limits<std::int32_t>::min());
  CHECK(*big.z[3] == std::numeric_limits<std::int32_t>::max());

  auto u = run_float(R"(
  cvt.rzi.u32.f32 %r1, %f1;
  st.global.u32 [%rd2], %r1;
  cvt.rni.s32.f32 %r2, %f2;
  st.global.s32 [%rd2+4], %r2;
  cvt.rpi.s32.f32 %r3, %f3;
  st.global.s32 [%rd2+8], %r3;
  cvt.rzi.s32.f32 %r4, %f2;
  st.global.s32 [%rd2+12], %r4;
)",
                     -5, 3.5, -2.5);
  CHECK(*u.z[0] == 0);   // a negative float to an unsigned integer clamps at 0
  CHECK(*u.z[1] == 4);   // 3.5 ties to even: 4
  CHECK(*u.z[2] == -2);  // toward +inf
  CHECK(*u.z[3] == 3);
}

TEST_CASE("float32: .ftz flushes subnormal inputs and results to a zero of the same sign") {
  double sub = std::ldexp(1.0, -130);  // an f32 subnormal
  auto r = run_float(R"(
  add.f32 %f4, %f1, 0f00000000;
  st.global.f32 [%rd1], %f4;
  add.ftz.f32 %f5, %f1, 0f00000000;
  st.global.f32 [%rd1+4], %f5;
  mul.f32 %f6, %f2, %f3;
  st.global.f32 [%rd1+8], %f6;
  mul.ftz.f32 %f7, %f2, %f3;
  st.global.f32 [%rd1+12], %f7;
)",
                     sub, std::ldexp(1.0, -100), std::ldexp(1.0, -30));
  CHECK(*r.y[0] == sub);
  CHECK(same_bits(*r.y[1], 0.0));
  CHECK(*r.y[2] == sub);  // 2^-100 * 2^-30, a subnormal result
  CHECK(same_bits(*r.y[3], 0.0));

  auto neg = run_float(R"(
  mul.ftz.f32 %f4, %f1, 0f3F800000;
  st.global.f32 [%rd1], %f4;
  mul.f32 %f5, %f1, 0f3F800000;
  st.global.f32 [%rd1+4], %f5;
)",
                       -sub);
  CHECK(same_bits(*neg.y[0], -0.0));
  CHECK(*neg.y[1] == -sub);
}

TEST_CASE("float32: min/max with one NaN operand return the other; .sat clamps to [0, 1]") {
  double nan = std::numeric_limits<double>::quiet_NaN();
  auto r = run_float(R"(
  min.f32 %f4, %f1, %f2;
  st.global.f32 [%rd1], %f4;
  max.f32 %f5, %f2, %f1;
  st.global.f32 [%rd1+4], %f5;
  max.f32 %f6, %f1, %f1;
  st.global.f32 [%rd1+8], %f6;
  min.f32 %f7, %f2, %f3;
  st.global.f32 [%rd1+12], %f7;
)",
                     nan, 3, -4);
  CHECK(*r.y[0] == 3);
  CHECK(*r.y[1] == 3);
  CHECK(std::isnan(*r.y[2]));
  CHECK(*r.y[3] == -4);

  auto s = run_float(R"(
  add.sat.f32 %f4, %f1, %f2;
  st.global.f32 [%rd1], %f4;
  sub.sat.f32 %f5, %f1, %f2;
  st.global.f32 [%rd1+4], %f5;
  mul.sat.f32 %f6, %f3, %f3;
  st.global.f32 [%rd1+8], %f6;
)",
                     2, 3, 0.5);
  CHECK(*s.y[0] == 1);
  CHECK(*s.y[1] == 0.0);
  CHECK(*s.y[2] == 0.25);
}

TEST_CASE("float32: ex2.approx is within PTX's error of 2^x") {
  auto r = run_float(R"(
  ex2.approx.f32 %f4, %f1;
  st.global.f32 [%rd1], %f4;
  ex2.approx.ftz.f32 %f5, %f2;
  st.global.f32 [%rd1+4], %f5;
)",
                     0.5, -3);
  CHECK(*r.y[0] == doctest::Approx(std::sqrt(2.0)).epsilon(1e-6));
  CHECK(*r.y[1] == 0.125);
}

TEST_CASE("float32: f64 arithmetic keeps what f32 arithmetic rounds away") {
  // (1 + 2^-30) - 1 is 2^-30 in f64 and 0 in f32.
  auto r = run_float(R"(
  cvt.f64.f32 %fd1, %f1;
  cvt.f64.f32 %fd2, %f2;
  add.f64 %fd3, %fd1, %fd2;
  sub.f64 %fd4, %fd3, %fd1;
  cvt.rn.f32.f64 %f4, %fd4;
  st.global.f32 [%rd1], %f4;
  add.f32 %f5, %f1, %f2;
  sub.f32 %f6, %f5, %f1;
  st.global.f32 [%rd1+4], %f6;
)",
                     1, std::ldexp(1.0, -30));
  CHECK(*r.y[0] == std::ldexp(1.0, -30));
  CHECK(*r.y[1] == 0);
}

TEST_CASE("float32: a double immediate (0d) on an f32 instruction is its value rounded to f32, and 0f on f64") {
  // PTX: floating-point literals are doubles; an f32 instruction takes them rounded to single.
  auto r = run_float(R"(
  add.f32 %f4, %f1, 0d3FF0000000000000;
  st.global.f32 [%rd1], %f4;
  mul.f32 %f5, %f1, 0d4000000000000000;
  st.global.f32 [%rd1+4], %f5;
  cvt.f64.f32 %fd1, %f1;
  add.f64 %fd2, %fd1, 0f3F800000;
  cvt.rn.f32.f64 %f6, %fd2;
  st.global.f32 [%rd1+8], %f6;
)",
                     3);
  CHECK(*r.y[0] == 4);  // 3 + 1.0
  CHECK(*r.y[1] == 6);  // 3 * 2.0
  CHECK(*r.y[2] == 4);  // 3 + 1.0f in f64
}

// ---- the integer ALU ---------------------------------------------------------------------------

namespace {

// Every result is a constant of the kernel, so the domain must not matter: z holds 32-bit
// results, w 64-bit ones.
constexpr std::string_view integer_ops = R"(
.visible .entry ints(.param .u64 z_param, .param .u64 w_param)
{
  .reg .pred %p<8>;
  .reg .b32 %r<64>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [z_param];
  ld.param.u64 %rd2, [w_param];
  mov.u32 %r18, 0x80;
  mov.u32 %r1, -3;
  mov.u32 %r2, 1000000000;
  mul.wide.s32 %rd3, %r1, %r2;
  st.global.s64 [%rd2], %rd3;
  mul.wide.u32 %rd4, %r1, %r2;
  st.global.u64 [%rd2+8], %rd4;
  mov.u32 %r3, 65536;
  mad.lo.s32 %r4, %r3, %r3, 5;
  st.global.s32 [%rd1], %r4;
  mul.hi.u32 %r5, %r3, %r3;
  st.global.u32 [%rd1+4], %r5;
  mov.u32 %r6, -16;
  shr.s32 %r7, %r6, 2;
  st.global.s32 [%rd1+8], %r7;
  shr.u32 %r8, %r6, 2;
  st.global.u32 [%rd1+12], %r8;
  mov.u32 %r9, 0x12345678;
  bfe.u32 %r10, %r9, 8, 8;
  st.global.u32 [%rd1+16], %r10;
  mov.u32 %r11, 0xf000;
  bfe.s32 %r12, %r11, 12, 4;
  st.global.s32 [%rd1+20], %r12;
  mov.u32 %r13, 0xab;
  bfi.b32 %r14, %r13, %r9, 8, 8;
  st.global.u32 [%rd1+24], %r14;
  mov.u32 %r15, 0x33221100;
  mov.u32 %r16, 0x77665544;
  prmt.b32 %r17, %r15, %r16, 0x5140;
  st.global.u32 [%rd1+28], %r17;
  prmt.b32 %r19, %r18, %r16, 0x0008;
  st.global.u32 [%rd1+32], %r19;
  setp.lt.s32 %p1, %r1, 0;
  setp.gt.s32.and %p2, %r1, -5, %p1;
  selp.s32 %r20, 10, 20, %p2;
  st.global.s32 [%rd1+36], %r20;
  setp.lt.u32 %p3, %r1, 5;
  setp.lt.u32.or %p4, %r1, 5, %p3;
  selp.s32 %r21, 10, 20, %p4;
  st.global.s32 [%rd1+40], %r21;
  setp.gt.s32.and %p5, %r1, -5, %p3;
  selp.s32 %r22, 10, 20, %p5;
  st.global.s32 [%rd1+44], %r22;
  mov.u32 %r23, -7;
  rem.s32 %r24, %r23, 3;
  st.global.s32 [%rd1+48], %r24;
  div.s32 %r25, %r23, 3;
  st.global.s32 [%rd1+52], %r25;
  div.u32 %r26, %r23, 3;
  st.global.u32 [%rd1+56], %r26;
  rem.u32 %r27, %r23, 3;
  st.global.u32 [%rd1+60], %r27;
  mov.u32 %r28, 0xf0f0;
  popc.b32 %r29, %r28;
  st.global.u32 [%rd1+64], %r29;
  clz.b32 %r30, %r3;
  st.global.u32 [%rd1+68], %r30;
  mov.u32 %r31, 1;
  brev.b32 %r32, %r31;
  st.global.u32 [%rd1+72], %r32;
  min.s32 %r33, %r1, 2;
  st.global.s32 [%rd1+76], %r33;
  min.u32 %r34, %r1, 2;
  st.global.u32 [%rd1+80], %r34;
  setp.ge.u32 %p6, %r1, %r2;
  selp.u32 %r35, 1, 0, %p6;
  st.global.u32 [%rd1+84], %r35;
  xor.b32 %r36, %r9, -1;
  not.b32 %r37, %r9;
  sub.s32 %r38, %r36, %r37;
  st.global.s32 [%rd1+88], %r38;
  shl.b32 %r39, %r31, 31;
  st.global.u32 [%rd1+92], %r39;
  mul.hi.s32 %r40, %r1, %r2;
  st.global.s32 [%rd1+96], %r40;
  cvt.u8.u32 %r41, %r9;
  st.global.u32 [%rd1+100], %r41;
  cvt.s8.s32 %r42, %r18;
  st.global.s32 [%rd1+104], %r42;
  cvt.sat.s8.s32 %r43, %r2;
  st.global.s32 [%rd1+108], %r43;
  set.lt.u32.s32 %r44, %r1, 0;
  st.global.u32 [%rd1+112], %r44;
  set.lt.f32.s32 %r45, %r1, 0;
  st.global.u32 [%rd1+116], %r45;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("integer ALU on concrete bits, the same in every domain", D, exec::float32_domain,
                   exec::exact_domain, exec::symbolic_domain) {
  auto k = load(integer_ops, "ints.ptx");
  exec::launch l = one_cta(1, {out_int("z", 30), out_int("w", 2, 8)});
  fixture<D> f(small_integers(0));
  auto z = cells(*k, l, f.d, 0);
  auto w = cells(*k, l, f.d, 1);
  REQUIRE(z.size() == 30);
  REQUIRE(w.size() == 2);
  auto i32 = [&](std::size_t i) {
    REQUIRE(z[i].has_value());
    REQUIRE(z[i]->is_bits());
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(z[i]->bits));
  };
  auto u32 = [&](std::size_t i) { return static_cast<std::uint32_t>(i32(i)); };
  REQUIRE(w[0].has_value());
  REQUIRE(w[1].has_value());
  REQUIRE(w[0]->is_bits());
  REQUIRE(w[1]->is_bits());
  CHECK(static_cast<std::int64_t>(w[0]->bits) == -3'000'000'000LL);          // mul.wide.s32
  CHECK(w[1]->bits == std::uint64_t{0xfffffffdu} * 1'000'000'000ull);         // mul.wide.u32
  CHECK(i32(0) == 5);                    // mad.lo: 2^32 + 5 keeps the low 32 bits
  CHECK(u32(1) == 1);                    // mul.hi.u32 2^16 * 2^16
  CHECK(i32(2) == -4);                   // shr.s32 -16, 2: arithmetic
  CHECK(u32(3) == 0x3ffffffcu);          // shr.u32 -16, 2: logical
  CHECK(u32(4) == 0x56u);                // bfe.u32 0x12345678, 8, 8
  CHECK(i32(5) == -1);                   // bfe.s32 0xf000, 12, 4: sign-extends 0xf
  CHECK(u32(6) == 0x1234ab78u);          // bfi.b32 0xab into 0x12345678 at 8..15
  CHECK(u32(7) == 0x55114400u);          // prmt selectors 0, 4, 1, 5
  CHECK(u32(8) == 0x808080ffu);          // prmt selector 8: replicate byte 0's sign; 0: byte 0
  CHECK(i32(9) == 10);                   // -3 > -5 and -3 < 0
  CHECK(i32(10) == 20);                  // -3 <u 5 is false, or false
  CHECK(i32(11) == 20);                  // -3 > -5 and false
  CHECK(i32(12) == -1);                  // rem.s32 -7, 3: sign of the dividend
  CHECK(i32(13) == -2);                  // div.s32 -7, 3: toward zero
  CHECK(u32(14) == 0xfffffff9u / 3);     // div.u32
  CHECK(u32(15) == 0xfffffff9u % 3);     // rem.u32
  CHECK(u32(16) == 8);                   // popc 0xf0f0
  CHECK(u32(17) == 15);                  // clz 0x10000
  CHECK(u32(18) == 0x80000000u);         // brev 1
  CHECK(i32(19) == -3);                  // min.s32
  CHECK(u32(20) == 2);                   // min.u32: -3 is huge unsigned
  CHECK(u32(21) == 1);                   // setp.ge.u32 0xfffffffd >= 1e9
  CHECK(i32(22) == 0);                   // xor with -1 is not
  CHECK(u32(23) == 0x80000000u);         // shl 1, 31
  CHECK(i32(24) == -1);                  // mul.hi.s32 -3 * 1e9: the high word of -3e9
  CHECK(u32(25) == 0x78u);               // cvt.u8.u32 0x12345678 keeps the low byte
  CHECK(i32(26) == -128);                // cvt.s8.s32 0x80 sign-extends
  CHECK(i32(27) == 127);                 // cvt.sat.s8.s32 1e9 clamps
  CHECK(u32(28) == 0xffffffffu);         // set.lt.u32.s32 -3 < 0: all ones
  CHECK(u32(29) == 0x3f800000u);         // set.lt.f32.s32 -3 < 0: 1.0f
}

TEST_CASE_TEMPLATE("setp with the unsigned operators lo, ls, hi, hs", D, exec::float32_domain, exec::exact_domain,
                   exec::symbolic_domain) {
  // -3 as an unsigned 32-bit value is 0xfffffffd, above 1e9: lo/ls false, hi/hs true; and equal
  // operands make ls/hs true, lo/hi false.
  constexpr std::string_view unsigned_cmp = R"(
.visible .entry ucmp(.param .u64 z_param)
{
  .reg .pred %p<10>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [z_param];
  mov.u32 %r1, -3;
  mov.u32 %r2, 1000000000;
  setp.lo.u32 %p1, %r1, %r2;
  selp.u32 %r3, 1, 0, %p1;
  st.global.u32 [%rd1], %r3;
  setp.ls.u32 %p2, %r1, %r2;
  selp.u32 %r4, 1, 0, %p2;
  st.global.u32 [%rd1+4], %r4;
  setp.hi.u32 %p3, %r1, %r2;
  selp.u32 %r5, 1, 0, %p3;
  st.global.u32 [%rd1+8], %r5;
  setp.hs.u32 %p4, %r1, %r2;
  selp.u32 %r6, 1, 0, %p4;
  st.global.u32 [%rd1+12], %r6;
  setp.ls.u32 %p5, %r2, %r2;
  selp.u32 %r7, 1, 0, %p5;
  st.global.u32 [%rd1+16], %r7;
  setp.lo.u32 %p6, %r2, %r2;
  selp.u32 %r8, 1, 0, %p6;
  st.global.u32 [%rd1+20], %r8;
  ret;
}
)";
  auto k = load(unsigned_cmp, "ucmp.ptx");
  exec::launch l = one_cta(1, {out_int("z", 6)});
  fixture<D> f(small_integers(0));
  auto z = cells(*k, l, f.d, 0);
  REQUIRE(z.size() == 6);
  std::uint64_t want[6] = {0, 0, 1, 1, 1, 0};
  for (std::size_t i = 0; i < 6; ++i) {
    CAPTURE(i);
    REQUIRE(z[i].has_value());
    REQUIRE(z[i]->is_bits());
    CHECK(z[i]->bits == want[i]);
  }
}

TEST_CASE_TEMPLATE("a negative value stored to a signed 32-bit integer tensor reads back negative", D,
                   exec::float32_domain, exec::exact_domain, exec::symbolic_domain) {
  // The output element of an s32 tensor is the s32 the kernel stored, whatever the domain.
  constexpr std::string_view store_negative = R"(
.visible .entry store_negative(.param .u64 z_param)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [z_param];
  mov.u32 %r1, -3;
  st.global.s32 [%rd1], %r1;
  ret;
}
)";
  auto k = load(store_negative, "store_negative.ptx");
  exec::launch l = one_cta(1, {out_int("z", 1)});
  fixture<D> f(small_integers(0));
  auto r = run(*k, l, f.d);
  REQUIRE(!r.error);
  REQUIRE(r.out["z"][0].has_value());
  CHECK(f.at(*r.out["z"][0], l) == -3);
}

TEST_CASE("integer data: exact in the concrete domains, terms in the symbolic one; bit operations on it are not") {
  // y[i] = 3 * x[i] + x[i+1] over s32 tensors (integer data, not addresses).
  constexpr std::string_view axpy_int = R"(
.visible .entry axpy_int(.param .u64 y_param, .param .u64 x_param)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.s32 %r2, [%rd4];
  ld.global.s32 %r3, [%rd4+4];
  mad.lo.s32 %r4, %r2, 3, %r3;
  add.s64 %rd5, %rd1, %rd3;
  st.global.s32 [%rd5], %r4;
  ret;
}
)";
  auto k = load(axpy_int, "axpy_int.ptx");
  exec::launch l = one_cta(8, {tensor("y", exec::rkind::integer, {8}, false, true, 4),
                               tensor("x", exec::rkind::integer, {9}, true, false, 4)});
  values v = small_integers(3);
  fixture<exec::exact_domain> ex(v);
  auto re = run(*k, l, ex.d);
  REQUIRE(!re.error);
  fixture<exec::symbolic_domain> sym(v);
  auto rs = run(*k, l, sym.d);
  REQUIRE_MESSAGE(!rs.error, rs.error->message);
  for (std::uint64_t i = 0; i < 8; ++i) {
    rat want = 3 * v("x", i) + v("x", i + 1);
    CHECK(*re.out["y"][i] == want);
    term::term_id expected = sym.s.add(sym.s.mul(sym.s.constant(3), sym.s.input("x", {static_cast<std::uint32_t>(i)})),
                                       sym.s.input("x", {static_cast<std::uint32_t>(i + 1)}));
    CHECK(*rs.out["y"][i] == expected);
  }

  // An and on symbolic integer data has no term: a clear error naming the line.
  constexpr std::string_view mask_int = R"(
.visible .entry mask_int(.param .u64 y_param, .param .u64 x_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  ld.global.s32 %r1, [%rd2];
  and.b32 %r2, %r1, 255;
  st.global.s32 [%rd1], %r2;
  ret;
}
)";
  auto km = load(mask_int, "mask_int.ptx");
  fixture<exec::symbolic_domain> sym2(v);
  auto e = expect_error(*km, l, sym2.d);
  CHECK(e.kind == exec::error_kind::not_structured);
  CHECK(contains(e.message, "mask_int.ptx:" + std::to_string(line_of(mask_int, "and.b32"))));
  fixture<exec::exact_domain> ex2([](std::string_view, std::uint64_t) { return rat(0x1234); });
  auto r2 = run(*km, l, ex2.d);
  REQUIRE(!r2.error);
  CHECK(*r2.out["y"][0] == 0x34);
}
