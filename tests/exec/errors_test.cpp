// What stops a run (exec/errors.hpp): every error has its kind, and a message that names the PTX
// file:line of the instruction and the thread as (x,y,z) with warp and lane, so a user can find
// it. Out-of-bounds accesses (including one that lands in the neighbouring shared array, which
// the GPU tolerates: VOLTA §6.2), misaligned accesses, reads of output-only and uninitialized
// memory, deadlocks, control flow on symbolic data, step limits, traps and unmodelled
// instructions. Errors that do not depend on the data are the same in every domain.
#include "harness.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace exec_test;

namespace {

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

// "file.ptx:LINE: thread (x,y,z)": where the message must point.
std::string at(std::string_view file, std::string_view body, std::string_view needle, std::string_view thread) {
  return std::string(file) + ":" + std::to_string(line_of(body, needle)) + ": thread " + std::string(thread);
}

// y[tid] = x[tid + 1]: the last thread reads one past the end of x.
constexpr std::string_view read_next = R"(
.visible .entry read_next(.param .u64 y_param, .param .u64 x_param)
{
  .reg .b32 %r<2>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  cvta.to.global.u64 %rd3, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5+4];
  cvta.to.global.u64 %rd6, %rd1;
  add.s64 %rd7, %rd6, %rd4;
  st.global.f32 [%rd7], %f1;
  ret;
}
)";

}  // namespace

TEST_CASE_TEMPLATE("out-of-bounds global read names the tensor element, line and thread", D, DOMAINS) {
  auto k = load(read_next, "read_next.ptx");
  fixture<D> f(small_integers(0));
  auto e = expect_error(*k, one_cta(64, {out_f32("y", 64), in_f32("x", 64)}), f.d);
  CHECK(e.kind == exec::error_kind::out_of_bounds);
  CHECK(e.thread == 63);
  CHECK(e.has_instruction);
  CAPTURE(e.message);
  CHECK(contains(e.message, at("read_next.ptx", read_next, "ld.global.f32", "(63,0,0) (warp 1, lane 31)")));
  CHECK(contains(e.message, "x[64]"));

  // One more element and the same kernel is fine.
  fixture<D> g(small_integers(0));
  auto r = run(*k, one_cta(64, {out_f32("y", 64), in_f32("x", 65)}), g.d);
  CHECK_FALSE(r.error.has_value());
}

TEST_CASE("an error in a 2-D block names the thread by (x,y,z)") {
  // i = 8 tid.y + tid.x over an 8x4 block reads x[i + 1]: thread (7,3,0), lane 31, fails.
  constexpr std::string_view read_next_2d = R"(
.visible .entry read_next_2d(.param .u64 y_param, .param .u64 x_param)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mad.lo.u32 %r3, %r2, 8, %r1;
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4+4];
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f1;
  ret;
}
)";
  auto k = load(read_next_2d, "read_next_2d.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 32), in_f32("x", 32)});
  l.block = {8, 4, 1};
  fixture<exec::exact_domain> f(small_integers(0));
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::out_of_bounds);
  CHECK(e.thread == 31);
  CAPTURE(e.message);
  CHECK(contains(e.message, at("read_next_2d.ptx", read_next_2d, "ld.global.f32", "(7,3,0) (warp 0, lane 31)")));
}

TEST_CASE_TEMPLATE("a shared read past one array that lands in the next is still out of bounds", D, DOMAINS) {
  // a_s and b_s are adjacent; thread 31 reads a_s[32], which is b_s[0] on the GPU. A second
  // kernel spells the same address as [a_s+128].
  constexpr std::string_view neighbour = R"(
.visible .entry neighbour(.param .u64 y_param)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<4>;
  .shared .align 4 .f32 a_s[32];
  .shared .align 4 .f32 b_s[32];
  ld.param.u64 %rd1, [y_param];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, a_s;
  add.s32 %r4, %r3, %r2;
  mov.f32 %f1, 0f3F800000;
  st.shared.f32 [%r4], %f1;
  mov.u32 %r5, b_s;
  add.s32 %r6, %r5, %r2;
  st.shared.f32 [%r6], %f1;
  bar.sync 0;
  ld.shared.f32 %f2, [%r4+4];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f2;
  ret;
}
)";
  auto k = load(neighbour, "neighbour.ptx");
  fixture<D> f(small_integers(0));
  exec::launch l = one_cta(32, {out_f32("y", 32)});
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::out_of_bounds);
  CAPTURE(e.message);
  CHECK(contains(e.message, at("neighbour.ptx", neighbour, "ld.shared.f32", "(31,0,0)")));
  CHECK(contains(e.message, "a_s[32]"));
  CHECK(contains(e.message, "b_s"));

  std::string by_symbol(neighbour);
  by_symbol.replace(by_symbol.find("[%r4+4]"), 7, "[a_s+128]");
  auto k2 = load(by_symbol, "neighbour2.ptx");
  fixture<D> g(small_integers(0));
  auto e2 = expect_error(*k2, l, g.d);
  CHECK(e2.kind == exec::error_kind::out_of_bounds);
  CHECK(e2.thread == 31);  // the thread that completes the barrier runs on first
  CHECK(contains(e2.message, "a_s[32]"));
}

TEST_CASE_TEMPLATE("misaligned scalar and vector accesses", D, DOMAINS) {
  constexpr std::string_view misaligned = R"(
.visible .entry misaligned(.param .u64 y_param, .param .u64 x_param)
{
  .reg .f32 %f<6>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  ld.global.f32 %f1, [%rd2+2];
  st.global.f32 [%rd1], %f1;
  ret;
}
)";
  auto k = load(misaligned, "misaligned.ptx");
  fixture<D> f(small_integers(0));
  exec::launch l = one_cta(1, {out_f32("y", 4), in_f32("x", 16)});
  auto e = expect_error(*k, l, f.d);
  CHECK(e.kind == exec::error_kind::misaligned);
  CAPTURE(e.message);
  CHECK(contains(e.message, at("misaligned.ptx", misaligned, "ld.global.f32", "(0,0,0)")));
  CHECK(contains(e.message, "4-byte access"));

  // A float4 load at a float2 boundary: 16 bytes aligned to 8 only.
  std::string v4(misaligned);
  v4.replace(v4.find("ld.global.f32 %f1, [%rd2+2]"), 27, "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2+8]");
  auto k2 = load(v4, "misaligned_v4.ptx");
  fixture<D> g(small_integers(0));
  auto e2 = expect_error(*k2, l, g.d);
  CHECK(e2.kind == exec::error_kind::misaligned);
  CHECK(contains(e2.message, "16-byte access"));
}

TEST_CASE_TEMPLATE("reading an output tensor before it is written, and uninitialized shared memory", D, DOMAINS) {
  // y[tid] += 1 on an output-only y: the read comes first.
  constexpr std::string_view accumulate = R"(
.visible .entry accumulate(.param .u64 y_param)
{
  .reg .b32 %r<2>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [y_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.f32 %f1, [%rd3];
  add.f32 %f2, %f1, 0f3F800000;
  st.global.f32 [%rd3], %f2;
  ret;
}
)";
  auto k = load(accumulate, "accumulate.ptx");
  fixture<D> f(small_integers(0));
  auto e = expect_error(*k, one_cta(4, {out_f32("y", 4)}), f.d);
  CHECK(e.kind == exec::error_kind::uninitialized);
  CAPTURE(e.message);
  CHECK(contains(e.message, at("accumulate.ptx", accumulate, "ld.global.f32", "(0,0,0)")));
  CHECK(contains(e.message, "output tensor y"));

  // The same tensor as inout: its initial contents are inputs and the kernel runs.
  fixture<D> g([](std::string_view, std::uint64_t i) { return rat(static_cast<long long>(i)); });
  exec::launch inout = one_cta(4, {tensor("y", exec::rkind::f32, {4}, true, true)});
  auto r = run(*k, inout, g.d);
  REQUIRE(!r.error);
  CHECK(g.at(*r.out["y"][3], inout) == 4);

  // A shared array read by thread 1 that thread 0 never wrote: s[1] was never stored.
  constexpr std::string_view shared_read = R"(
.visible .entry shared_read(.param .u64 y_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<4>;
  .shared .align 4 .f32 s[4];
  ld.param.u64 %rd1, [y_param];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_read;
  mov.f32 %f1, 0f3F800000;
  st.shared.f32 [s], %f1;
$L_read:
  bar.sync 0;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.s32 %r3, %r3, %r2;
  ld.shared.f32 %f1, [%r3];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f1;
  ret;
}
)";
  auto k2 = load(shared_read, "shared_read.ptx");
  fixture<D> h(small_integers(0));
  auto e2 = expect_error(*k2, one_cta(2, {out_f32("y", 2)}), h.d);
  CHECK(e2.kind == exec::error_kind::uninitialized);
  CAPTURE(e2.message);
  CHECK(contains(e2.message, at("shared_read.ptx", shared_read, "ld.shared.f32", "(1,0,0)")));
  CHECK(contains(e2.message, "uninitialized shared memory s"));
}

// An element whose first byte was never written, the others partly: y[0] gets only byte 1 (an
// st.u8), and thread 0 reads the word s[0] whose byte 2 alone it stored. Both are reads of
// partly written memory, reported as such (the first byte's missing value is not looked up).
TEST_CASE_TEMPLATE("an element whose first byte was never written is partly written memory", D, DOMAINS) {
  constexpr std::string_view byte_one = R"(
.visible .entry byte_one(.param .u64 y_param)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [y_param];
  mov.b32 %r1, 7;
  st.global.u8 [%rd1+1], %r1;
  ret;
}
)";
  auto k = load(byte_one, "byte_one.ptx");
  fixture<D> f(small_integers(0));
  auto e = expect_error(*k, one_cta(1, {out_f32("y", 1)}), f.d);
  CHECK(e.kind == exec::error_kind::uninitialized);
  CAPTURE(e.message);
  CHECK(contains(e.message, "partly written memory in y"));

  constexpr std::string_view byte_two = R"(
.visible .entry byte_two(.param .u64 y_param)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  .shared .align 4 .b32 s[1];
  ld.param.u64 %rd1, [y_param];
  mov.b32 %r1, 7;
  st.shared.u8 [s+2], %r1;
  ld.shared.u32 %r2, [s];
  st.global.u32 [%rd1], %r2;
  ret;
}
)";
  auto k2 = load(byte_two, "byte_two.ptx");
  auto e2 = expect_error(*k2, one_cta(1, {out_int("y", 1, 4)}), f.d);
  CHECK(e2.kind == exec::error_kind::uninitialized);
  CAPTURE(e2.message);
  CHECK(contains(e2.message, "byte_two.ptx:" + std::to_string(line_of(byte_two, "ld.shared.u32"))));
}

TEST_CASE_TEMPLATE("a register read before it is written: the store of a value computed from it is the error", D, DOMAINS) {
  constexpr std::string_view unwritten = R"(
.visible .entry unwritten(.param .u64 y_param)
{
  .reg .f32 %f<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [y_param];
  add.f32 %f2, %f1, 0f3F800000;
  st.global.f32 [%rd1], %f2;
  ret;
}
)";
  auto k = load(unwritten, "unwritten.ptx");
  fixture<D> f(small_integers(0));
  auto e = expect_error(*k, one_cta(1, {out_f32("y", 1)}), f.d);
  CHECK(e.kind == exec::error_kind::uninitialized);
  CAPTURE(e.message);
  // The add's result is undefined (values.hpp); the store, where it matters, is the error, and
  // the message names where the undefined value came from: %f1, first read by the add.
  CHECK(contains(e.message, at("unwritten.ptx", unwritten, "st.global.f32", "(0,0,0)")));
  CHECK(contains(e.message, "register %f2 holds an undefined value"));
  CHECK(contains(e.message, "register %f1 is read before it is written at unwritten.ptx:" +
                                std::to_string(line_of(unwritten, "add.f32"))));
}

TEST_CASE_TEMPLATE("deadlocks: a counted barrier only one warp reaches, and two crossed named barriers", D, DOMAINS) {
  // if (tid < 32) bar.sync 0, 64: warp 1 exits, warp 0 waits for 64 threads forever.
  constexpr std::string_view half_barrier = R"(
.visible .entry half_barrier()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra $L_done;
  bar.sync 0, 64;
$L_done:
  ret;
}
)";
  auto k = load(half_barrier, "half_barrier.ptx");
  fixture<D> f(small_integers(0));
  auto e = expect_error(*k, one_cta(64, {}), f.d);
  CHECK(e.kind == exec::error_kind::deadlock);
  CAPTURE(e.message);
  CHECK(contains(e.message, "half_barrier.ptx:" + std::to_string(line_of(half_barrier, "bar.sync 0, 64"))));
  CHECK(contains(e.message, "32 thread(s)"));
  CHECK(contains(e.message, "64 expected"));

  // Warp 0: bar.sync 1, 64 then bar.sync 2, 64; warp 1 the other way round.
  constexpr std::string_view crossed = R"(
.visible .entry crossed()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra $L_second;
  bar.sync 1, 64;
  bar.sync 2, 64;
  bra.uni $L_done;
$L_second:
  bar.sync 2, 64;
  bar.sync 1, 64;
$L_done:
  ret;
}
)";
  auto k2 = load(crossed, "crossed.ptx");
  fixture<D> g(small_integers(0));
  auto e2 = expect_error(*k2, one_cta(64, {}), g.d);
  CHECK(e2.kind == exec::error_kind::deadlock);
  CAPTURE(e2.message);
  // Both waiting places are named: warp 0 at its bar.sync 1, warp 1 at its bar.sync 2.
  CHECK(contains(e2.message, "crossed.ptx:" + std::to_string(line_of(crossed, "bar.sync 1, 64"))));
  CHECK(contains(e2.message, "crossed.ptx:" + std::to_string(line_of(crossed, "$L_second:") + 1)));
  CHECK(contains(e2.message, "barrier 1"));
  CHECK(contains(e2.message, "barrier 2"));
}

TEST_CASE_TEMPLATE("a deadlock between a warp collective and a CTA barrier names both", D, DOMAINS) {
  // Lanes 0..15 shuffle over the full warp while lanes 16..31 wait at bar.sync 0.
  constexpr std::string_view split = R"(
.visible .entry split()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 16;
  @%p1 bra $L_bar;
  shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;
  ret;
$L_bar:
  bar.sync 0;
  ret;
}
)";
  auto k = load(split, "split.ptx");
  fixture<D> f(small_integers(0));
  auto e = expect_error(*k, one_cta(32, {}), f.d);
  CHECK(e.kind == exec::error_kind::deadlock);
  CAPTURE(e.message);
  CHECK(contains(e.message, "split.ptx:" + std::to_string(line_of(split, "shfl.sync"))));
  CHECK(contains(e.message, "split.ptx:" + std::to_string(line_of(split, "bar.sync 0"))));
  CHECK(contains(e.message, "warp collective"));
}

TEST_CASE_TEMPLATE("an out-of-bounds global write", D, DOMAINS) {
  // y[tid + 1] = 1 over 4 threads and 4 elements.
  constexpr std::string_view write_next = R"(
.visible .entry write_next(.param .u64 y_param)
{
  .reg .b32 %r<2>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [y_param];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.f32 %f1, 0f3F800000;
  st.global.f32 [%rd3+4], %f1;
  ret;
}
)";
  auto k = load(write_next, "write_next.ptx");
  fixture<D> f(small_integers(0));
  auto e = expect_error(*k, one_cta(4, {out_f32("y", 4)}), f.d);
  CHECK(e.kind == exec::error_kind::out_of_bounds);
  CAPTURE(e.message);
  CHECK(contains(e.message, at("write_next.ptx", write_next, "st.global.f32", "(3,0,0)")));
  CHECK(contains(e.message, "y[4]"));
}

TEST_CASE("a branch on a comparison of symbolic data is not a structured CTA; concrete domains run it") {
  // y = x > 0 ? x : 0 with a branch (relu), and a gather y = x[idx]: both depend on data.
  constexpr std::string_view relu_branch = R"(
.visible .entry relu_branch(.param .u64 y_param, .param .u64 x_param)
{
  .reg .pred %p<2>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  ld.global.f32 %f1, [%rd2];
  mov.f32 %f2, 0f00000000;
  setp.gt.f32 %p1, %f1, 0f00000000;
  @!%p1 bra $L_store;
  mov.f32 %f2, %f1;
$L_store:
  st.global.f32 [%rd1], %f2;
  ret;
}
)";
  auto k = load(relu_branch, "relu_branch.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 1), in_f32("x", 1)});
  fixture<exec::symbolic_domain> sym(small_integers(0));
  auto e = expect_error(*k, l, sym.d);
  CHECK(e.kind == exec::error_kind::not_structured);
  CAPTURE(e.message);
  CHECK(contains(e.message, at("relu_branch.ptx", relu_branch, "@!%p1 bra", "(0,0,0)")));
  CHECK(contains(e.message, "x[0]"));  // the compared term is shown

  for (int x : {-3, 5}) {
    fixture<exec::float32_domain> fl([x](std::string_view, std::uint64_t) { return rat(x); });
    auto r = run(*k, l, fl.d);
    REQUIRE(!r.error);
    CHECK(*r.out["y"][0] == std::max(x, 0));
    fixture<exec::exact_domain> ex([x](std::string_view, std::uint64_t) { return rat(x); });
    auto re = run(*k, l, ex.d);
    REQUIRE(!re.error);
    CHECK(*re.out["y"][0] == std::max(x, 0));
  }

  constexpr std::string_view gather = R"(
.visible .entry gather(.param .u64 y_param, .param .u64 x_param, .param .u64 idx_param)
{
  .reg .b32 %r<2>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  ld.param.u64 %rd3, [idx_param];
  ld.global.s32 %r1, [%rd3];
  mul.wide.s32 %rd4, %r1, 4;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.f32 %f1, [%rd5];
  st.global.f32 [%rd1], %f1;
  ret;
}
)";
  auto kg = load(gather, "gather.ptx");
  exec::launch lg = one_cta(1, {out_f32("y", 1), in_f32("x", 8), tensor("idx", exec::rkind::integer, {1}, true, false, 4)});
  values v = [](std::string_view name, std::uint64_t i) { return name == "idx" ? rat(5) : rat(static_cast<long long>(10 + i)); };
  fixture<exec::symbolic_domain> sg(v);
  auto eg = expect_error(*kg, lg, sg.d);
  CHECK(eg.kind == exec::error_kind::not_structured);
  // The index is symbolic integer data: the load whose address it feeds cannot be located.
  CHECK(contains(eg.message, at("gather.ptx", gather, "ld.global.f32", "(0,0,0)")));
  fixture<exec::exact_domain> xg(v);
  auto rg = run(*kg, lg, xg.d);
  REQUIRE_MESSAGE(!rg.error, rg.error->message);
  CHECK(*rg.out["y"][0] == 15);
}

TEST_CASE_TEMPLATE("the step limit stops an unbounded loop", D, DOMAINS) {
  constexpr std::string_view spin = R"(
.visible .entry spin()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 0;
$L_loop:
  add.s32 %r1, %r1, 1;
  bra.uni $L_loop;
}
)";
  auto k = load(spin, "spin.ptx");
  fixture<D> f(small_integers(0));
  exec::engine_options o;
  o.max_steps = 1000;
  std::uint64_t progress_calls = 0;
  o.progress = [&](std::uint64_t) { ++progress_calls; };
  o.progress_every = 100;
  auto e = expect_error(*k, one_cta(2, {}), f.d, o);
  CHECK(e.kind == exec::error_kind::limit);
  CHECK(e.thread == 0);  // round robin: thread 0 never blocks
  CHECK(contains(e.message, "more than 1000"));
  CHECK(contains(e.message, "spin.ptx:"));
  CHECK(progress_calls == 10);
}

TEST_CASE_TEMPLATE("trap, an unmodelled instruction and a bad barrier operand stop the run", D, DOMAINS) {
  constexpr std::string_view trap = R"(
.visible .entry trapper()
{
  trap;
  ret;
}
)";
  auto k = load(trap, "trap.ptx");
  fixture<D> f(small_integers(0));
  auto e = expect_error(*k, one_cta(1, {}), f.d);
  CHECK(e.kind == exec::error_kind::trap);
  CHECK(contains(e.message, at("trap.ptx", trap, "trap;", "(0,0,0)")));

  // stacksave is parsed but not modelled: it must stop the run, never be skipped.
  constexpr std::string_view stacksave = R"(
.visible .entry stacker(.param .u64 x_param)
{
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [x_param];
  stacksave.u64 %rd2;
  ret;
}
)";
  auto k2 = load(stacksave, "stacksave.ptx");
  fixture<D> g(small_integers(0));
  auto e2 = expect_error(*k2, one_cta(1, {in_f32("x", 1)}), g.d);
  CHECK(e2.kind == exec::error_kind::unsupported);
  CHECK(contains(e2.message, at("stacksave.ptx", stacksave, "stacksave.u64", "(0,0,0)")));

  // A named barrier's thread count must be a multiple of the warp size.
  constexpr std::string_view bad_count = R"(
.visible .entry bad_count()
{
  bar.sync 1, 48;
  ret;
}
)";
  auto k3 = load(bad_count, "bad_count.ptx");
  fixture<D> h(small_integers(0));
  auto e3 = expect_error(*k3, one_cta(64, {}), h.d);
  CHECK(e3.kind == exec::error_kind::barrier);
  CHECK(contains(e3.message, "48"));

  // A launch that binds the wrong number of parameters.
  fixture<D> m(small_integers(0));
  auto e4 = expect_error(*k2, one_cta(1, {}), m.d);
  CHECK(e4.kind == exec::error_kind::unsupported);
  CHECK(contains(e4.message, "parameters"));
}

TEST_CASE("a value the exact domain cannot form is a domain error, not a structure error") {
  // errors.hpp: error_kind::domain is "a value the domain cannot form (exp in exact rationals)";
  // not_structured is for control flow and addresses that depend on symbolic data.
  constexpr std::string_view exp2 = R"(
.visible .entry exp2(.param .u64 y_param, .param .u64 x_param)
{
  .reg .f32 %f<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [y_param];
  ld.param.u64 %rd2, [x_param];
  ld.global.f32 %f1, [%rd2];
  ex2.approx.f32 %f2, %f1;
  st.global.f32 [%rd1], %f2;
  ret;
}
)";
  auto k = load(exp2, "exp2.ptx");
  exec::launch l = one_cta(1, {out_f32("y", 1), in_f32("x", 1)});
  fixture<exec::exact_domain> f([](std::string_view, std::uint64_t) { return rat(1, 3); });
  auto e = expect_error(*k, l, f.d);
  CAPTURE(e.message);
  CHECK(e.kind == exec::error_kind::domain);
  CHECK(contains(e.message, at("exp2.ptx", exp2, "ex2.approx", "(0,0,0)")));

  // The symbolic domain forms it (exp of x ln 2), and float32 computes it.
  fixture<exec::symbolic_domain> sym(small_integers(0));
  CHECK_FALSE(run(*k, l, sym.d).error.has_value());
  fixture<exec::float32_domain> fl([](std::string_view, std::uint64_t) { return rat(3); });
  auto r = run(*k, l, fl.d);
  REQUIRE(!r.error);
  CHECK(*r.out["y"][0] == 8);
}

TEST_CASE_TEMPLATE("a bar.arrive that no thread ever syncs with is a barrier error", D, DOMAINS) {
  constexpr std::string_view lonely = R"(
.visible .entry lonely()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra $L_done;
  bar.arrive 1, 64;
$L_done:
  ret;
}
)";
  auto k = load(lonely, "lonely.ptx");
  fixture<D> f(small_integers(0));
  auto e = expect_error(*k, one_cta(64, {}), f.d);
  CHECK(e.kind == exec::error_kind::barrier);
  CAPTURE(e.message);
  CHECK(contains(e.message, "lonely.ptx:" + std::to_string(line_of(lonely, "bar.arrive"))));
  CHECK(contains(e.message, "never completed"));
}

TEST_CASE("exact domain: a chain of squarings stops at the size bound with a domain error, not in GMP") {
  // y = x^(2^40): the rational's size doubles with every squaring; past 2^22 bits the exact
  // domain refuses the product (a run error naming the instruction) instead of exhausting memory.
  constexpr std::string_view squarings = R"(
.visible .entry sq(.param .u64 px, .param .u64 py)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [px];
  ld.param.u64 %rd2, [py];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  ld.global.f32 %f1, [%rd3];
  mov.u32 %r1, 0;
LOOP:
  mul.f32 %f1, %f1, %f1;
  add.s32 %r1, %r1, 1;
  setp.lt.s32 %p1, %r1, 40;
  @%p1 bra LOOP;
  st.global.f32 [%rd4], %f1;
  ret;
}
)";
  auto k = load(squarings, "squarings.ptx");
  exec::launch l = one_cta(1, {in_f32("x", 1), out_f32("y", 1)});
  fixture<exec::exact_domain> f([](std::string_view, std::uint64_t) { return rat(3, 2); });
  auto e = expect_error(*k, l, f.d);
  CAPTURE(e.message);
  CHECK(e.kind == exec::error_kind::domain);
  CHECK(contains(e.message, "over the exact domain's bound of 4194304 bits"));
  CHECK(contains(e.message, at("squarings.ptx", squarings, "mul.f32", "(0,0,0)")));
}
