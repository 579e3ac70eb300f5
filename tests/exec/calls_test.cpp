// Device-function calls (ptx/inline.hpp): exec::decode inlines every direct call of a .func with a
// body, renaming the callee's registers per activation and turning .param space into per-thread
// memory. Recursion runs as deep as gpueq inlines (64 nested calls, or fewer where deeper
// inlining would exceed the instruction budget) and a thread that goes deeper stops with an error
// naming the function and the line; indirect calls and calls of functions without a body stop a
// run that reaches them. By-value struct parameters: a ld.param at a byte offset reads the field
// the launch binds there. Every PTX kernel here is accepted by `ptxas -arch=sm_80`.
#include "harness.hpp"

#include <gpueq/ptx/unsupported.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace exec_test;

namespace {

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

// y[t] = sumto(t + c) for the threads t < 32 (a guarded call), sumto(n) = n + sumto(n - 1),
// sumto(0) = 0: a recursion c + t + 1 calls deep.
constexpr std::string_view recursive = R"(
.func (.param .b32 sumto_ret) sumto(.param .b32 sumto_n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  ld.param.u32 %r1, [sumto_n];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra DONE;
  add.s32 %r2, %r1, -1;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r2;
  .param .b32 retval0;
  call.uni (retval0), sumto, (param0);
  ld.param.b32 %r3, [retval0+0];
  }
  add.s32 %r4, %r3, %r1;
  st.param.b32 [sumto_ret+0], %r4;
  ret;
DONE:
  mov.u32 %r5, 0;
  st.param.b32 [sumto_ret+0], %r5;
  ret;
}

.visible .entry rec(.param .u64 y_param, .param .u32 c_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u32 %r1, [c_param];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %tid.x;
  add.s32 %r3, %r2, %r1;
  setp.lt.u32 %p1, %r2, 32;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r3;
  .param .b32 retval0;
  @%p1 call.uni (retval0), sumto, (param0);
  ld.param.b32 %r4, [retval0+0];
  }
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;
}
)";

// y[0] = fib(n): a function that calls itself twice, so that inlining doubles at every level.
constexpr std::string_view fibonacci = R"(
.func (.param .b32 fib_ret) fib(.param .b32 fib_n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  ld.param.u32 %r1, [fib_n];
  setp.lt.u32 %p1, %r1, 2;
  @%p1 bra SMALL;
  add.s32 %r2, %r1, -1;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r2;
  .param .b32 retval0;
  call.uni (retval0), fib, (param0);
  ld.param.b32 %r3, [retval0+0];
  }
  add.s32 %r4, %r1, -2;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r4;
  .param .b32 retval0;
  call.uni (retval0), fib, (param0);
  ld.param.b32 %r5, [retval0+0];
  }
  add.s32 %r6, %r3, %r5;
  st.param.b32 [fib_ret+0], %r6;
  ret;
SMALL:
  st.param.b32 [fib_ret+0], %r1;
  ret;
}

.visible .entry fibk(.param .u64 y_param, .param .u32 n_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u32 %r1, [n_param];
  cvta.to.global.u64 %rd2, %rd1;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r1;
  .param .b32 retval0;
  call.uni (retval0), fib, (param0);
  ld.param.b32 %r2, [retval0+0];
  }
  st.global.u32 [%rd2], %r2;
  ret;
}
)";

// mode 0: y[t] = the sum over the warp of 4 x[l] (lanes l < 16) and 2 x[l] (the others): `twice`
// (.reg parameters) called from two branches, then `warp_sum` (shfl butterflies) from one call
// site that every lane reaches. mode 1 calls vprintf (no body); mode 2 calls through a register.
constexpr std::string_view misc = R"(
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);

.func (.reg .f32 twice_ret) twice(.reg .f32 twice_a)
{
  add.f32 twice_ret, twice_a, twice_a;
  ret;
}

.func (.param .b32 warp_sum_ret) warp_sum(.param .b32 warp_sum_v)
{
  .reg .f32 %f<12>;
  ld.param.f32 %f1, [warp_sum_v];
  shfl.sync.bfly.b32 %f2, %f1, 16, 31, -1;
  add.f32 %f3, %f1, %f2;
  shfl.sync.bfly.b32 %f4, %f3, 8, 31, -1;
  add.f32 %f5, %f3, %f4;
  shfl.sync.bfly.b32 %f6, %f5, 4, 31, -1;
  add.f32 %f7, %f5, %f6;
  shfl.sync.bfly.b32 %f8, %f7, 2, 31, -1;
  add.f32 %f9, %f7, %f8;
  shfl.sync.bfly.b32 %f10, %f9, 1, 31, -1;
  add.f32 %f11, %f9, %f10;
  st.param.f32 [warp_sum_ret+0], %f11;
  ret;
}

.visible .entry misc(.param .u64 y_param, .param .u64 x_param, .param .u32 mode_param)
{
  .reg .pred %p<4>;
  .reg .b32 %r<6>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  ld.param.u32 %r1, [mode_param];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.f32 %f1, [%rd6];
  setp.eq.s32 %p1, %r1, 1;
  @%p1 bra PRINT;
  setp.eq.s32 %p2, %r1, 2;
  @%p2 bra INDIRECT;
  setp.lt.u32 %p3, %r2, 16;
  @%p3 bra LOW;
  call.uni (%f2), twice, (%f1);
  bra.uni SUM;
LOW:
  call.uni (%f2), twice, (%f1);
  add.f32 %f2, %f2, %f2;
SUM:
  {
  .param .b32 param0;
  st.param.f32 [param0+0], %f2;
  .param .b32 retval0;
  call.uni (retval0), warp_sum, (param0);
  ld.param.f32 %f3, [retval0+0];
  }
  add.s64 %rd7, %rd3, %rd5;
  st.global.f32 [%rd7], %f3;
  ret;
PRINT:
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd1;
  .param .b64 param1;
  st.param.b64 [param1+0], %rd2;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  }
  ret;
INDIRECT:
  {
  .param .b32 param0;
  st.param.f32 [param0+0], %f1;
  .param .b32 retval0;
  prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (retval0), %rd2, (param0), prototype_0;
  }
  ret;
}
)";

exec::scalar_binding concrete(std::string name, double v) { return exec::scalar_binding{std::move(name), false, v}; }

}  // namespace

TEST_CASE_TEMPLATE("a recursive device function runs as deep as its calls go within the depth limit", D, DOMAINS) {
  auto k = load(recursive, "recursive.ptx");
  CHECK(k->program.call_depth == gpueq::ptx::max_call_depth);
  fixture<D> f(small_integers(1));
  exec::launch l = one_cta(8, {out_int("y", 8)}, {concrete("c", 40)});
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint64_t t = 0; t < 8; ++t) {  // sumto(t + 40) = (t + 40)(t + 41) / 2, at most 48 + 1 calls deep
    REQUIRE(r.out["y"][t].has_value());
    CHECK(f.at(*r.out["y"][t], l) == rat(static_cast<long long>((t + 40) * (t + 41) / 2)));
  }
}

TEST_CASE_TEMPLATE("recursion deeper than the limit stops with the function and the line of the call", D, DOMAINS) {
  auto k = load(recursive, "recursive.ptx");
  fixture<D> f(small_integers(1));
  // Thread 0 needs sumto(64): 65 nested calls, one more than gpueq inlines.
  auto e = expect_error(*k, one_cta(1, {out_int("y", 1)}, {concrete("c", 64)}), f.d);
  CAPTURE(e.message);
  CHECK(e.kind == exec::error_kind::unsupported);
  CHECK(contains(e.message, "recursive.ptx:" + std::to_string(line_of(recursive, "call.uni (retval0), sumto"))));
  CHECK(contains(e.message, "a call of 'sumto' nested 65 calls deep: recursion deeper than 64 nested calls"));
  // 63 + 1 calls deep is within the limit.
  auto r = run(*k, one_cta(1, {out_int("y", 1)}, {concrete("c", 63)}), f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
}

TEST_CASE_TEMPLATE("a function that calls itself twice is inlined as deep as the instruction budget allows", D, DOMAINS) {
  auto k = load(fibonacci, "fibonacci.ptx");
  // fib's body is about 20 instructions, doubled at every level: 2^d * 20 <= 200000 gives d = 13.
  CHECK(k->program.call_depth >= 10);
  CHECK(k->program.call_depth < 16);
  CHECK(k->program.code.size() <= gpueq::ptx::max_inlined_instructions);
  // fib writes each of its 7 registers (%p1, %r1..%r6) before reading it, so the thousands of
  // activations of one nesting level share one set: at most 7 per level, plus the kernel's 4.
  CHECK(k->program.registers <= 7 * 16 + 4);
  fixture<D> f(small_integers(1));
  auto r = run(*k, one_cta(1, {out_int("y", 1)}, {concrete("n", 10)}), f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  exec::launch l = one_cta(1, {out_int("y", 1)}, {concrete("n", 10)});
  CHECK(f.at(*r.out["y"][0], l) == rat(55));
  auto e = expect_error(*k, one_cta(1, {out_int("y", 1)}, {concrete("n", 30)}), f.d);
  CAPTURE(e.message);
  CHECK(contains(e.message, "a call of 'fib' nested " + std::to_string(k->program.call_depth + 1) + " calls deep"));
  CHECK(contains(e.message, "would exceed 200000 instructions"));
}

TEST_CASE_TEMPLATE("calls with .reg parameters and a shfl inside a callee, reached from divergent branches", D, DOMAINS) {
  auto k = load(misc, "misc.ptx");
  values v = small_integers(7);
  fixture<D> f(v);
  exec::launch l = one_cta(32, {out_f32("y", 32), in_f32("x", 32)}, {concrete("mode", 0)});
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  rat want(0);
  for (std::uint64_t i = 0; i < 32; ++i) want += rat(i < 16 ? 4 : 2) * v("x", i);
  for (std::uint64_t t = 0; t < 32; ++t) {
    REQUIRE(r.out["y"][t].has_value());
    CHECK(f.at(*r.out["y"][t], l) == want);
  }
}

TEST_CASE_TEMPLATE("a call of a function without a body and an indirect call stop the run with what they are", D, DOMAINS) {
  auto k = load(misc, "misc.ptx");
  fixture<D> f(small_integers(7));
  auto e = expect_error(*k, one_cta(1, {out_f32("y", 1), in_f32("x", 1)}, {concrete("mode", 1)}), f.d);
  CAPTURE(e.message);
  CHECK(e.kind == exec::error_kind::unsupported);
  CHECK(contains(e.message, "misc.ptx:" + std::to_string(line_of(misc, "call.uni (retval0), vprintf"))));
  CHECK(contains(e.message, "a call of 'vprintf', which has no body in this module (an .extern function: printf)"));
  auto i = expect_error(*k, one_cta(1, {out_f32("y", 1), in_f32("x", 1)}, {concrete("mode", 2)}), f.d);
  CAPTURE(i.message);
  CHECK(contains(i.message, "misc.ptx:" + std::to_string(line_of(misc, "call (retval0), %rd2"))));
  CHECK(contains(i.message, "an indirect call (through a function pointer in register %rd2) is not supported"));
}

TEST_CASE("a call passes the wrong number of arguments: a decode error with the line") {
  std::string body(recursive);
  body.replace(body.find("call.uni (retval0), sumto, (param0);"), 36, "call.uni (retval0), sumto, (param0, param0);");
  auto m = gpueq::ptx::parse(std::string(header) + body, "wrong_args.ptx");
  try {
    (void)exec::decode(m, m.functions[1]);
    FAIL("decode accepted a call with two arguments to a one-parameter function");
  } catch (const gpueq::support::diagnostic_error& e) {
    CHECK(e.file() == "wrong_args.ptx");
    CHECK(e.line() == line_of(body, "call.uni (retval0), sumto, (param0, param0)"));
    CHECK(contains(e.reason(), "the call of 'sumto' passes 2 argument(s) and 1 return value(s); the function declares 1 and 1"));
  }
}

TEST_CASE("the inlined kernel keeps the callee's lines, and the module its functions") {
  auto k = load(recursive, "recursive.ptx");
  // The program's function is the inlined copy; the parsed module is untouched.
  CHECK(k->program.owned != nullptr);
  CHECK(k->program.function != &k->module.functions[1]);
  CHECK(gpueq::ptx::has_calls(k->module.functions[1]));
  // Every instruction of the copy comes from a line of the source: the kernel's or sumto's.
  std::uint32_t ld = line_of(recursive, "ld.param.u32 %r1, [sumto_n]");
  std::size_t from_callee = 0;
  for (const auto& i : k->program.function->instructions) from_callee += i.line == ld;
  CHECK(from_callee == gpueq::ptx::max_call_depth);  // one copy per nesting level
}

namespace {

// y[0] = pick(1) = 7 + 1, then y[1] = pick(0), which reads %r2 that only the k != 0 path writes:
// an uninitialized read in the second activation, whatever the first one left in its %r2.
constexpr std::string_view stale = R"(
.func (.param .b32 pick_ret) pick(.param .b32 pick_k)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [pick_k];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra SKIP;
  mov.u32 %r2, 7;
SKIP:
  add.s32 %r3, %r2, %r1;
  st.param.b32 [pick_ret+0], %r3;
  ret;
}

.visible .entry stale(.param .u64 y_param)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [y_param];
  cvta.to.global.u64 %rd2, %rd1;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], 1;
  .param .b32 retval0;
  call.uni (retval0), pick, (param0);
  ld.param.b32 %r1, [retval0+0];
  }
  st.global.u32 [%rd2], %r1;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], 0;
  .param .b32 retval0;
  call.uni (retval0), pick, (param0);
  ld.param.b32 %r2, [retval0+0];
  }
  st.global.u32 [%rd2+4], %r2;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("a callee's register read before it is written is uninitialized in every activation, named as in the source", D,
                   DOMAINS) {
  auto k = load(stale, "stale.ptx");
  fixture<D> f(small_integers(1));
  auto e = expect_error(*k, one_cta(1, {out_int("y", 2)}, {}), f.d);
  CAPTURE(e.message);
  CHECK(e.kind == exec::error_kind::uninitialized);
  // The read of %r2 in the second call of pick, at pick's line, by its source name.
  CHECK(contains(e.message, "register %r2 is read before it is written at stale.ptx:" +
                                std::to_string(line_of(stale, "add.s32 %r3, %r2, %r1"))));
  CHECK_FALSE(contains(e.message, "#"));
}

namespace {

// y[t] = odd(t + c): odd(n) = n != 0 && even(n - 1), even(n) = n == 0 || odd(n - 1), so y[t] is
// 1 for odd t + c. odd is declared before even (which calls it) and defined after it, as nvcc
// writes mutually recursive functions: the call runs the definition, not the declaration.
constexpr std::string_view parity = R"(
.func (.param .b32 odd_ret) odd(.param .b32 odd_n);

.func (.param .b32 even_ret) even(.param .b32 even_n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [even_n];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra YES;
  add.s32 %r2, %r1, -1;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r2;
  .param .b32 retval0;
  call.uni (retval0), odd, (param0);
  ld.param.b32 %r3, [retval0+0];
  }
  st.param.b32 [even_ret+0], %r3;
  ret;
YES:
  st.param.b32 [even_ret+0], 1;
  ret;
}

.func (.param .b32 odd_ret) odd(.param .b32 odd_n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [odd_n];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra NO;
  add.s32 %r2, %r1, -1;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r2;
  .param .b32 retval0;
  call.uni (retval0), even, (param0);
  ld.param.b32 %r3, [retval0+0];
  }
  st.param.b32 [odd_ret+0], %r3;
  ret;
NO:
  st.param.b32 [odd_ret+0], 0;
  ret;
}

.visible .entry parity(.param .u64 y_param, .param .u32 c_param)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u32 %r1, [c_param];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %tid.x;
  add.s32 %r3, %r2, %r1;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r3;
  .param .b32 retval0;
  call.uni (retval0), odd, (param0);
  ld.param.b32 %r4, [retval0+0];
  }
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("mutual recursion through a function declared before it is defined", D, DOMAINS) {
  auto k = load(parity, "parity.ptx");
  CHECK(gpueq::ptx::unsupported_instructions(k->module, *gpueq::ptx::defined_function(k->module, "parity")).empty());
  fixture<D> f(small_integers(1));
  exec::launch l = one_cta(32, {out_int("y", 32)}, {concrete("c", 0)});
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::uint64_t t = 0; t < 32; ++t) {  // odd(t): t + 1 nested calls, at most 32
    REQUIRE(r.out["y"][t].has_value());
    CHECK(f.at(*r.out["y"][t], l) == rat(static_cast<long long>(t % 2)));
  }
  // odd(64): odd at depths 1, 3, ..., 65; the call at depth 65 is odd's, from even's body.
  auto e = expect_error(*k, one_cta(1, {out_int("y", 1)}, {concrete("c", 64)}), f.d);
  CAPTURE(e.message);
  CHECK(contains(e.message, "a call of 'odd' nested 65 calls deep: recursion deeper than 64 nested calls"));
  CHECK(contains(e.message, "parity.ptx:" + std::to_string(line_of(parity, "call.uni (retval0), odd"))));
}
