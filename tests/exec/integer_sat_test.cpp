// Integer saturation and 24-bit multiplies, as the PTX ISA defines them: add.sat.s32 and
// sub.sat.s32 clamp to the s32 range instead of wrapping; mul24/mad24 multiply the operands' low
// 24 bits (sign-extended from bit 23 for .s32) into 48 bits, .lo keeping bits 0..31 and .hi bits
// 16..47; mad24.hi.sat.s32 clamps the sum. Expected values by hand and with Python's integers
// (p = 0xffffff * 0xffffff; hex((p >> 16) & 0xffffffff) == '0xfffffe00').
#include "harness.hpp"

#include <doctest/doctest.h>

#include <cstdint>

using namespace exec_test;

namespace {

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

constexpr std::string_view saturating = R"(
.visible .entry saturating(.param .u64 z_param)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [z_param];
  add.sat.s32 %r1, 2147483647, 1;
  st.global.u32 [%rd1], %r1;
  add.sat.s32 %r2, -2147483648, -1;
  st.global.u32 [%rd1+4], %r2;
  add.sat.s32 %r3, 5, 7;
  st.global.u32 [%rd1+8], %r3;
  sub.sat.s32 %r4, -2147483648, 1;
  st.global.u32 [%rd1+12], %r4;
  sub.sat.s32 %r5, 2147483647, -1;
  st.global.u32 [%rd1+16], %r5;
  mul24.lo.u32 %r6, 0x01000003, 2;
  st.global.u32 [%rd1+20], %r6;
  mul24.hi.u32 %r7, 0xffffff, 0xffffff;
  st.global.u32 [%rd1+24], %r7;
  mul24.lo.s32 %r8, 0x00800000, 2;
  st.global.u32 [%rd1+28], %r8;
  mul24.hi.s32 %r9, 0x00800000, 0x00800000;
  st.global.u32 [%rd1+32], %r9;
  mad24.hi.sat.s32 %r10, 0x7fffff, 0x7fffff, 2147483647;
  st.global.u32 [%rd1+36], %r10;
  add.s32 %r11, 2147483647, 1;
  st.global.u32 [%rd1+40], %r11;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("add.sat and sub.sat clamp; mul24 and mad24 multiply 24-bit operands", D, DOMAINS) {
  auto k = load(saturating, "saturating.ptx");
  exec::launch l = one_cta(1, {out_int("z", 11)});
  fixture<D> f(small_integers(0));
  auto z = cells(*k, l, f.d, 0);
  REQUIRE(z.size() == 11);
  auto u32 = [&](std::size_t i) {
    REQUIRE(z[i].has_value());
    REQUIRE(z[i]->is_bits());
    return static_cast<std::uint32_t>(z[i]->bits);
  };
  CHECK(u32(0) == 0x7fffffffu);   // INT_MAX + 1 clamps
  CHECK(u32(1) == 0x80000000u);   // INT_MIN + (-1) clamps
  CHECK(u32(2) == 12u);
  CHECK(u32(3) == 0x80000000u);   // INT_MIN - 1 clamps
  CHECK(u32(4) == 0x7fffffffu);   // INT_MAX - (-1) clamps
  CHECK(u32(5) == 6u);            // bit 24 of 0x01000003 is not an operand bit: 3 * 2
  CHECK(u32(6) == 0xfffffe00u);   // bits 16..47 of 0xffffff * 0xffffff
  CHECK(u32(7) == 0xff000000u);   // 0x800000 is -2^23 as a signed 24-bit value: -2^24
  CHECK(u32(8) == 0x40000000u);   // (-2^23)^2 = 2^46: bits 16..47
  CHECK(u32(9) == 0x7fffffffu);   // (8388607^2 >> 16) + INT_MAX clamps
  CHECK(u32(10) == 0x80000000u);  // without .sat the add wraps
}
