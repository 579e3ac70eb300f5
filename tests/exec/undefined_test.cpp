// Undefined values (exec/values.hpp, engine.hpp `undefined_read`): a register never written holds
// an undefined value, as in PTX; data instructions (moves, arithmetic, comparisons, shfl) pass it
// on, and only a use where the value matters is the uninitialized error: a store, an address, a
// guard or branch condition. Triton's cross-warp reductions depend on this: lanes that loaded
// nothing shuffle garbage among themselves, and only lane 0's result, which never sees it, is
// stored.
#include "harness.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace exec_test;

namespace {

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

std::string undefined_at(std::string_view file, std::string_view body, std::string_view needle, std::string_view thread) {
  return std::string(file) + ":" + std::to_string(line_of(body, needle)) + ": thread " + std::string(thread);
}

// y[0] = sum of x[0..63] over 64 threads, as Triton compiles tl.sum over two warps: a butterfly
// reduction within each warp, lane 0 of each warp stores its partial to shared memory, a barrier,
// then only threads 0-1 load the partials (`@%p2 ld.shared`) while every lane of both warps
// shuffles %r20 (xor 1) and adds; thread 0 stores. Lanes 2-63 shuffle an unwritten %r20.
constexpr std::string_view cross_warp_sum = R"(
.visible .entry cross_warp_sum(.param .u64 y_param, .param .u64 x_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<30>;
  .reg .f32 %f<30>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b8 partial[8];
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  mov.b32 %r2, %f1;
  shfl.sync.bfly.b32 %r3, %r2, 16, 31, -1;
  mov.b32 %f2, %r3;
  add.f32 %f3, %f1, %f2;
  mov.b32 %r4, %f3;
  shfl.sync.bfly.b32 %r5, %r4, 8, 31, -1;
  mov.b32 %f4, %r5;
  add.f32 %f5, %f3, %f4;
  mov.b32 %r6, %f5;
  shfl.sync.bfly.b32 %r7, %r6, 4, 31, -1;
  mov.b32 %f6, %r7;
  add.f32 %f7, %f5, %f6;
  mov.b32 %r8, %f7;
  shfl.sync.bfly.b32 %r9, %r8, 2, 31, -1;
  mov.b32 %f8, %r9;
  add.f32 %f9, %f7, %f8;
  mov.b32 %r10, %f9;
  shfl.sync.bfly.b32 %r11, %r10, 1, 31, -1;
  mov.b32 %f10, %r11;
  add.f32 %f11, %f9, %f10;
  and.b32 %r12, %r1, 31;
  shr.u32 %r13, %r1, 5;
  setp.eq.s32 %p1, %r12, 0;
  mov.u32 %r14, partial;
  shl.b32 %r15, %r13, 2;
  add.s32 %r16, %r14, %r15;
  mov.b32 %r17, %f11;
  @%p1 st.shared.b32 [%r16], %r17;
  bar.sync 0;
  setp.lt.s32 %p2, %r1, 2;
  shl.b32 %r18, %r1, 2;
  add.s32 %r19, %r14, %r18;
  @%p2 ld.shared.b32 %r20, [%r19];
  shfl.sync.bfly.b32 %r21, %r20, 1, 31, -1;
  mov.b32 %f20, %r20;
  mov.b32 %f21, %r21;
  add.f32 %f22, %f20, %f21;
  setp.eq.s32 %p3, %r1, 0;
  @%p3 st.global.f32 [%rd1], %f22;
  ret;
}
)";

TEST_CASE_TEMPLATE("a Triton-style cross-warp reduction shuffles unloaded registers in lanes whose results are unused", D,
                   DOMAINS) {
  auto k = load(cross_warp_sum, "cross_warp_sum.ptx");
  exec::launch l = one_cta(64, {out_f32("y", 1), in_f32("x", 64)});
  values v = small_integers(21);
  fixture<D> f(v);
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  rat want(0);
  for (std::uint64_t i = 0; i < 64; ++i) want += v("x", i);  // small integers: exact in f32 too
  REQUIRE(r.out["y"][0].has_value());
  CHECK(f.at(*r.out["y"][0], l) == want);
}

TEST_CASE_TEMPLATE("an undefined value that reaches an output through shfl and arithmetic is the error at its store", D,
                   DOMAINS) {
  // Only thread 0 loads a partial: thread 0's xor-1 partner, thread 1, shuffles it an unwritten
  // %r20, which the add carries into the stored %f22.
  std::string body(cross_warp_sum);
  body.replace(body.find("setp.lt.s32 %p2, %r1, 2;"), 24, "setp.lt.s32 %p2, %r1, 1;");
  auto k = load(body, "one_loader.ptx");
  fixture<D> f(small_integers(21));
  auto e = expect_error(*k, one_cta(64, {out_f32("y", 1), in_f32("x", 64)}), f.d);
  CHECK(e.kind == exec::error_kind::uninitialized);
  CAPTURE(e.message);
  CHECK(contains(e.message, undefined_at("one_loader.ptx", body, "@%p3 st.global.f32", "(0,0,0)")));
  CHECK(contains(e.message, "register %f22 holds an undefined value"));
  // Where it came from: the shfl that read thread 1's unwritten %r20.
  CHECK(contains(e.message, "register %r20 is read before it is written at one_loader.ptx:" +
                                std::to_string(line_of(body, "shfl.sync.bfly.b32 %r21"))));
}

// One thread; %f9 and %rd9 are never written. Each case replaces the marked line.
constexpr std::string_view uses = R"(
.visible .entry uses(.param .u64 y_param)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .reg .f32 %f<10>;
  .reg .b64 %rd<10>;
  .shared .align 4 .f32 s[1];
  ld.param.u64 %rd1, [y_param];
  mov.f32 %f1, 0f3F800000;
  add.f32 %f2, %f9, %f1;
  mul.f32 %f3, %f2, %f2;
  setp.gt.f32 %p1, %f3, 0f00000000;
  add.s64 %rd2, %rd1, %rd9;
  // USE
  st.global.f32 [%rd1], %f1;
  ret;
}
)";

std::string with_use(std::string_view use) {
  std::string s(uses);
  s.replace(s.find("// USE"), 6, use);
  return s;
}

TEST_CASE_TEMPLATE("storing, branching on or addressing with an undefined value is the error at the using instruction",
                   D, DOMAINS) {
  auto check = [](std::string_view use, std::string_view needle, std::string_view reg, bool derived) {
    std::string body = with_use(use);
    auto k = load(body, "uses.ptx");
    fixture<D> f(small_integers(0));
    auto e = expect_error(*k, one_cta(1, {out_f32("y", 1)}), f.d);
    CAPTURE(body);
    CAPTURE(e.message);
    CHECK(e.kind == exec::error_kind::uninitialized);
    CHECK(contains(e.message, undefined_at("uses.ptx", body, needle, "(0,0,0)")));
    CHECK(contains(e.message, "register " + std::string(reg)));
    if (derived) CHECK(contains(e.message, "holds an undefined value"));
  };
  // Stores: the never-written register itself, and a value computed from it (global and shared).
  check("st.global.f32 [%rd1], %f9;", "st.global.f32 [%rd1], %f9", "%f9 is read before it is written", false);
  check("st.global.f32 [%rd1], %f3;", "st.global.f32 [%rd1], %f3", "%f3", true);
  check("st.shared.f32 [s], %f2;", "st.shared.f32 [s], %f2", "%f2", true);
  // A branch on a comparison of an undefined value, and a guarded instruction.
  check("@%p1 bra $L_end;\n$L_end:", "@%p1 bra", "%p1", true);
  check("@!%p1 st.global.f32 [%rd1], %f1;", "@!%p1 st.global.f32", "%p1", true);
  // An address computed from an unwritten register, loaded from and stored to.
  check("ld.global.f32 %f4, [%rd2];", "ld.global.f32 %f4", "%rd2", true);
  check("st.global.f32 [%rd2], %f1;", "st.global.f32 [%rd2]", "%rd2", true);
  // The origin is named: %f9, first read by the add.
  std::string body = with_use("st.global.f32 [%rd1], %f3;");
  auto k = load(body, "uses.ptx");
  fixture<D> f(small_integers(0));
  auto e = expect_error(*k, one_cta(1, {out_f32("y", 1)}), f.d);
  CHECK(contains(e.message, "register %f9 is read before it is written at uses.ptx:" +
                                std::to_string(line_of(body, "add.f32 %f2, %f9"))));
}

TEST_CASE_TEMPLATE("undefined values that are never used do not stop the run", D, DOMAINS) {
  // %f9..%p1 above are computed and dropped: the kernel stores the defined 1.0.
  auto k = load(with_use(""), "uses.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 1)});
  fixture<D> f(small_integers(0));
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  REQUIRE(r.out["y"][0].has_value());
  CHECK(f.at(*r.out["y"][0], l) == 1);
}

}  // namespace
