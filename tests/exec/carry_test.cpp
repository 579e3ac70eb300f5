// The carry flag CC.CF: add.cc, sub.cc and mad.cc write it, addc, subc and madc read it (and
// write it again with .cc): extended-precision integer arithmetic, as in the range reduction of
// CUDA's sinf/cosf and libdevice's trigonometric functions (mad.lo.cc.u32 + madc.hi.u32). Each
// thread has its own flag; it is undefined until written. Expected values are computed by hand
// or with Python's big integers (written next to each check).
#include "harness.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

using namespace exec_test;

namespace {

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

constexpr std::string_view carry_ops = R"(
.visible .entry carries(.param .u64 z_param)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [z_param];
  // 0x1_ffffffff + 0x2_00000001 = 0x4_00000000, in 32-bit words
  add.cc.u32 %r1, 0xffffffff, 1;
  addc.u32 %r2, 1, 2;
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  // a carry through four words: 0x00000000_ffffffff_ffffffff_ffffffff + 1
  mov.u32 %r3, 0xffffffff;
  add.cc.u32 %r4, %r3, 1;
  addc.cc.u32 %r5, %r3, 0;
  addc.cc.u32 %r6, %r3, 0;
  addc.u32 %r7, 0, 0;
  st.global.u32 [%rd1+8], %r4;
  st.global.u32 [%rd1+12], %r5;
  st.global.u32 [%rd1+16], %r6;
  st.global.u32 [%rd1+20], %r7;
  // a borrow through three words: 0x1_00000000_00000000 - 1
  sub.cc.u32 %r8, 0, 1;
  subc.cc.u32 %r9, 0, 0;
  subc.u32 %r10, 1, 0;
  st.global.u32 [%rd1+24], %r8;
  st.global.u32 [%rd1+28], %r9;
  st.global.u32 [%rd1+32], %r10;
  // no borrow: 5 - 3, then 7 - 2 - 0
  sub.cc.u32 %r11, 5, 3;
  subc.u32 %r12, 7, 2;
  st.global.u32 [%rd1+36], %r11;
  st.global.u32 [%rd1+40], %r12;
  // signed types carry on the bit patterns: -1 + 1 carries out; 5 + (-3) + 1
  add.cc.s32 %r13, -1, 1;
  addc.s32 %r14, 5, -3;
  st.global.u32 [%rd1+44], %r13;
  st.global.u32 [%rd1+48], %r14;
  // 64-bit: 0xffffffffffffffff + 2 = 0x1_00000000_00000001
  add.cc.u64 %rd2, 0xffffffffffffffff, 2;
  addc.u64 %rd3, 0, 0;
  st.global.u64 [%rd1+56], %rd2;
  st.global.u64 [%rd1+64], %rd3;
  // The PTX ISA's extended-precision multiply [r25,r24,r23,r22] = [r21,r20] * [r19,r18]:
  // 0xdeadbeef12345678 * 0xcafebabe87654321
  mov.u32 %r20, 0x12345678;
  mov.u32 %r21, 0xdeadbeef;
  mov.u32 %r18, 0x87654321;
  mov.u32 %r19, 0xcafebabe;
  mul.lo.u32 %r22, %r20, %r18;
  mul.hi.u32 %r23, %r20, %r18;
  mad.lo.cc.u32 %r23, %r21, %r18, %r23;
  madc.hi.u32 %r24, %r21, %r18, 0;
  mad.lo.cc.u32 %r23, %r20, %r19, %r23;
  madc.hi.cc.u32 %r24, %r20, %r19, %r24;
  addc.u32 %r25, 0, 0;
  mad.lo.cc.u32 %r24, %r21, %r19, %r24;
  madc.hi.u32 %r25, %r21, %r19, %r25;
  st.global.u32 [%rd1+72], %r22;
  st.global.u32 [%rd1+76], %r23;
  st.global.u32 [%rd1+80], %r24;
  st.global.u32 [%rd1+84], %r25;
  ret;
}
)";

// Each thread adds its own carry: thread t computes 0xffffffff + t with add.cc, so only threads
// 1.. carry out; then addc 0, 0 gives that thread's flag. A flag shared by the threads would give
// every thread the last writer's.
constexpr std::string_view per_thread_carry = R"(
.visible .entry per_thread(.param .u64 z_param)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [z_param];
  mov.u32 %r1, %tid.x;
  add.cc.u32 %r2, 0xffffffff, %r1;
  bar.sync 0;
  addc.u32 %r3, 0, 0;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";

constexpr std::string_view carry_never_written = R"(
.visible .entry no_carry(.param .u64 z_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [z_param];
  addc.u32 %r1, 1, 2;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("add.cc, addc, sub.cc, subc, mad.cc and madc carry between words", D, DOMAINS) {
  auto k = load(carry_ops, "carries.ptx");
  exec::launch l = one_cta(1, {out_int("z", 22)});
  fixture<D> f(small_integers(0));
  auto z = cells(*k, l, f.d, 0);
  REQUIRE(z.size() == 22);
  auto u32 = [&](std::size_t i) {
    REQUIRE(z[i].has_value());
    REQUIRE(z[i]->is_bits());
    return static_cast<std::uint32_t>(z[i]->bits);
  };
  CHECK(u32(0) == 0u);           // 0xffffffff + 1: 0, carry 1
  CHECK(u32(1) == 4u);           // 1 + 2 + 1
  CHECK(u32(2) == 0u);           // the four-word + 1: 0, 0, 0, 1
  CHECK(u32(3) == 0u);
  CHECK(u32(4) == 0u);
  CHECK(u32(5) == 1u);
  CHECK(u32(6) == 0xffffffffu);  // 0x1_00000000_00000000 - 1: 0xffffffff, 0xffffffff, 0
  CHECK(u32(7) == 0xffffffffu);
  CHECK(u32(8) == 0u);
  CHECK(u32(9) == 2u);           // 5 - 3, no borrow
  CHECK(u32(10) == 5u);          // 7 - 2 - 0
  CHECK(u32(11) == 0u);          // -1 + 1 on the bits: 0, carry 1
  CHECK(u32(12) == 3u);          // 5 + (-3) + 1
  // The u64 words (elements 14..17 as 32-bit halves, little-endian): 1, then the carry 1.
  CHECK(u32(14) == 1u);
  CHECK(u32(15) == 0u);
  CHECK(u32(16) == 1u);
  CHECK(u32(17) == 0u);
  // Python: P = 0xdeadbeef12345678 * 0xcafebabe87654321; [hex((P >> 32*i) & 0xffffffff) for i in range(4)]
  CHECK(u32(18) == 0x70b88d78u);
  CHECK(u32(19) == 0x990553e4u);
  CHECK(u32(20) == 0x0d047972u);
  CHECK(u32(21) == 0xb092ab7cu);
}

TEST_CASE("every thread has its own carry flag") {
  auto k = load(per_thread_carry, "per_thread.ptx");
  exec::launch l = one_cta(64, {out_int("z", 64)});
  fixture<exec::float32_domain> f(small_integers(0));
  auto z = cells(*k, l, f.d, 0);
  REQUIRE(z.size() == 64);
  for (std::size_t t = 0; t < 64; ++t) {
    REQUIRE(z[t].has_value());
    REQUIRE(z[t]->is_bits());
    CHECK(z[t]->bits == (t == 0 ? 0u : 1u));  // 0xffffffff + t carries out for t >= 1
  }
}

TEST_CASE("addc before any instruction wrote the carry flag: the stored result is undefined") {
  auto k = load(carry_never_written, "no_carry.ptx");
  exec::launch l = one_cta(1, {out_int("z", 1)});
  fixture<exec::float32_domain> f(small_integers(0));
  auto r = run(*k, l, f.d);
  REQUIRE(r.error.has_value());
  CHECK(r.error->kind == exec::error_kind::uninitialized);
  CHECK(contains(r.error->message, "CC.CF"));
  // At the store, which names its line.
  CHECK(contains(r.error->message, "no_carry.ptx:" + std::to_string(line_of(carry_never_written, "st.global.u32 [%rd1], %r1;"))));
}

namespace {

constexpr std::string_view carry_of_data = R"(
.visible .entry carry_of_data(.param .u64 x_param, .param .u64 z_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [x_param];
  ld.param.u64 %rd2, [z_param];
  ld.global.u32 %r1, [%rd1];
  add.cc.u32 %r2, %r1, 1;
  addc.u32 %r3, 0, 0;
  st.global.u32 [%rd2], %r3;
  ret;
}
)";

}  // namespace

TEST_CASE("a carry out of symbolic integer data stops the run as not structured") {
  auto k = load(carry_of_data, "carry_of_data.ptx");
  exec::launch l = one_cta(1, {tensor("x", exec::rkind::integer, {1}, true, false, 4), out_int("z", 1)});
  fixture<exec::symbolic_domain> s(small_integers(0));
  auto r = run(*k, l, s.d);
  REQUIRE(r.error.has_value());
  CHECK(r.error->kind == exec::error_kind::not_structured);
  CHECK(contains(r.error->message, "'add'"));
}
