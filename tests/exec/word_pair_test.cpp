// Two f32 values moved as one 64-bit integer, the way LLVM's NVPTX back end (Triton's output)
// writes it: cvt.u64.u32 of each word, shl.b64 by 32, or.b64, and mov.b64 {lo, hi} to take them
// apart (integer.hpp's word_pair_op). On symbolic data each 32-bit word stays the value it was;
// an operation that would mix a symbolic word's bits with others stops the run as not structured.
// Expected values: the inputs themselves and hand-computed multiples of them.
#include "harness.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace exec_test;

namespace {

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

constexpr std::string_view word_pairs = R"(
.visible .entry word_pairs(.param .u64 x_param, .param .u64 y_param)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [x_param];
  ld.param.u64 %rd2, [y_param];
  ld.global.v2.b32 {%r1, %r2}, [%rd1];
  cvt.u64.u32 %rd3, %r1;
  cvt.u64.u32 %rd4, %r2;
  shl.b64 %rd5, %rd4, 32;
  or.b64 %rd6, %rd3, %rd5;
  mov.b64 {%r3, %r4}, %rd6;
  mul.f32 %r5, %r3, 0f40000000;
  mul.f32 %r6, %r4, 0f40400000;
  st.global.f32 [%rd2], %r5;
  st.global.f32 [%rd2+4], %r6;
  shr.u64 %rd7, %rd6, 32;
  mov.b64 {%r7, %r8}, %rd7;
  st.global.f32 [%rd2+8], %r7;
  st.global.f32 [%rd2+12], %r8;
  and.b64 %rd8, %rd6, 4294967295;
  cvt.u32.u64 %r9, %rd8;
  st.global.f32 [%rd2+16], %r9;
  mov.b64 %rd9, {%r2, %r1};
  add.s64 %rd10, %rd9, 0;
  mov.b64 {%r10, %r11}, %rd10;
  st.global.f32 [%rd2+20], %r10;
  st.global.f32 [%rd2+24], %r11;
  ret;
}
)";

constexpr std::string_view mixed_words = R"(
.visible .entry mixed_words(.param .u64 x_param, .param .u64 y_param)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x_param];
  ld.param.u64 %rd2, [y_param];
  ld.global.f32 %r1, [%rd1];
  cvt.u64.u32 %rd3, %r1;
  shl.b64 %rd4, %rd3, 16;
  mov.b64 {%r2, %r3}, %rd4;
  st.global.f32 [%rd2], %r2;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("two f32 values through one 64-bit register: zero-extend, shift by 32, or, unpack", D, DOMAINS) {
  auto k = load(word_pairs, "word_pairs.ptx");
  exec::launch l = one_cta(1, {in_f32("x", 2), out_f32("y", 7)});
  values v = small_integers(5);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  auto& y = r.out.at("y");
  REQUIRE(y.size() == 7);
  for (auto& e : y) REQUIRE(e.has_value());
  CHECK(f.at(*y[0], l) == rat(2) * v("x", 0));  // the low word, times 2
  CHECK(f.at(*y[1], l) == rat(3) * v("x", 1));  // the high word, times 3
  CHECK(f.at(*y[2], l) == v("x", 1));           // >> 32: the high word comes down
  CHECK(f.at(*y[3], l) == rat(0));              // and the zeros above it
  CHECK(f.at(*y[4], l) == v("x", 0));           // & 0xffffffff, then the low 32 bits
  CHECK(f.at(*y[5], l) == v("x", 1));           // {x1, x0} + 0 keeps both words
  CHECK(f.at(*y[6], l) == v("x", 0));
}

TEST_CASE("a shift that mixes a symbolic word's bits with others is not structured") {
  auto k = load(mixed_words, "mixed_words.ptx");
  exec::launch l = one_cta(1, {in_f32("x", 1), out_f32("y", 1)});
  fixture<exec::symbolic_domain> f(small_integers(5));
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::not_structured);
  CHECK(contains(e.message, "shl.b64"));
}

namespace {

// Thread 0: the pair (x0, x1); a truncating st.u32 of the pair stores its low word.
constexpr std::string_view pair_carry_and_store = R"(
.visible .entry pair_carry_and_store(.param .u64 x_param, .param .u64 y_param, .param .u64 z_param)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [x_param];
  ld.param.u64 %rd2, [y_param];
  ld.param.u64 %rd3, [z_param];
  ld.global.v2.b32 {%r1, %r2}, [%rd1];
  mov.b64 %rd4, {%r1, %r2};
  st.global.u32 [%rd2], %rd4;
  ret;
}
)";

// What would mix a symbolic word's bits: a -0 word beside it (0x80000000 is no real's bits but
// 0's sign), and 16-bit pieces of it.
constexpr std::string_view pair_negative_zero = R"(
.visible .entry pair_negative_zero(.param .u64 x_param, .param .u64 y_param)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x_param];
  ld.param.u64 %rd2, [y_param];
  ld.global.f32 %r1, [%rd1];
  cvt.u64.u32 %rd3, %r1;
  or.b64 %rd4, %rd3, -9223372036854775808;
  mov.b64 {%r2, %r3}, %rd4;
  st.global.u32 [%rd2], %r3;
  ret;
}
)";

constexpr std::string_view pair_in_halves = R"(
.visible .entry pair_in_halves(.param .u64 x_param, .param .u64 y_param)
{
  .reg .b16 %rs<6>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [x_param];
  ld.param.u64 %rd2, [y_param];
  ld.global.v2.b32 {%r1, %r2}, [%rd1];
  mov.b64 %rd3, {%r1, %r2};
  mov.b64 {%rs1, %rs2, %rs3, %rs4}, %rd3;
  st.global.u16 [%rd2], %rs2;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("a truncating store of a word pair keeps its low word", D, DOMAINS) {
  auto k = load(pair_carry_and_store, "pair_carry_and_store.ptx");
  exec::launch l = one_cta(1, {in_f32("x", 2), out_f32("y", 1), out_f32("z", 1)});
  values v = small_integers(9);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  REQUIRE(r.out.at("y")[0].has_value());
  CHECK(f.at(*r.out.at("y")[0], l) == v("x", 0));
}

TEST_CASE("a -0 word or 16-bit pieces beside a symbolic word are not structured") {
  fixture<exec::symbolic_domain> f(small_integers(5));
  auto k = load(pair_negative_zero, "pair_negative_zero.ptx");
  auto e = expect_error(*k, one_cta(1, {in_f32("x", 1), out_int("y", 1)}), f.d);
  CHECK(e.kind == exec::error_kind::not_structured);
  CHECK(contains(e.message, "or.b64"));
  auto h = load(pair_in_halves, "pair_in_halves.ptx");
  auto e2 = expect_error(*h, one_cta(1, {in_f32("x", 2), out_int("y", 1, 2)}), f.d);
  CHECK(e2.kind == exec::error_kind::not_structured);
  CHECK(contains(e2.message, "mov.b64"));
}
