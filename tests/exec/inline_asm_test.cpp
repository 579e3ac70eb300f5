// What nvcc's inline assembly and the CUDA headers (cuda_bf16.hpp, cuda_fp16.hpp, cooperative
// groups) put into PTX, executed in every value domain (issue 21 items 10, 13, 14): registers
// declared inside `{ }` blocks, with and without `%`, shadowing outer ones; bf16 to f32 through
// `mov.b32 %f, {0, %rs}` (what __bfloat162float compiles to for sm_80), f16x2 unpacking into
// block-scoped halves and repacking; the predefined constant WARP_SZ; and the special registers
// that a run cannot read (%envreg*, cooperative groups' grid-wide sync), stopped with a message
// that says so. Expected values are computed by hand in the comments; every kernel here was
// checked with `ptxas -arch=sm_80`.
#include "harness.hpp"

#include <string>
#include <type_traits>
#include <vector>

using namespace exec_test;

namespace {

#define DOMAINS exec::float32_domain, exec::exact_domain, exec::symbolic_domain

// y[i] = 2 * x[i], x bf16: the bf16 bits become the high half of an f32 (nvcc's block, verbatim).
const char* bf16_up = R"(
.visible .entry bf16_up(.param .u64 px, .param .u64 py)
{
	.reg .b16 %rs<2>;
	.reg .f32 %f<3>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<7>;
	ld.param.u64 %rd1, [px];
	ld.param.u64 %rd2, [py];
	cvta.to.global.u64 %rd3, %rd1;
	cvta.to.global.u64 %rd4, %rd2;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd5, %r1, 2;
	add.s64 %rd5, %rd3, %rd5;
	ld.global.u16 %rs1, [%rd5];
	{ mov.b32 %f1, {0,%rs1};}
	add.f32 %f2, %f1, %f1;
	mul.wide.u32 %rd6, %r1, 4;
	add.s64 %rd6, %rd4, %rd6;
	st.global.f32 [%rd6], %f2;
	ret;
}
)";

// Thread i reads x[2i] (low half) and x[2i+1] (high half), f16, as one 32-bit word, unpacks it in
// two blocks that each declare `low` and `high` (as __half22float2 does), and writes them swapped
// as f32: y[2i] = x[2i+1], y[2i+1] = x[2i]. It also repacks the halves swapped into z (f16):
// z[2i] = x[2i+1], z[2i+1] = x[2i].
const char* half2_split = R"(
.visible .entry half2_split(.param .u64 px, .param .u64 py, .param .u64 pz)
{
	.reg .b16 %rs<3>;
	.reg .b32 %r<4>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<9>;
	ld.param.u64 %rd1, [px];
	ld.param.u64 %rd2, [py];
	ld.param.u64 %rd3, [pz];
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd4, %r2, 4;
	add.s64 %rd5, %rd1, %rd4;
	ld.global.u32 %r1, [%rd5];
	{.reg .f16 low,high;
	mov.b32 {low,high},%r1;
	cvt.f32.f16 %f1, low;}
	{.reg .f16 low,high;
	mov.b32 {low,high},%r1;
	cvt.f32.f16 %f2, high;}
	mul.wide.u32 %rd6, %r2, 8;
	add.s64 %rd7, %rd2, %rd6;
	st.global.f32 [%rd7], %f2;
	st.global.f32 [%rd7+4], %f1;
	mov.b32 {%rs1, %rs2}, %r1;
	mov.b32 %r3, {%rs2, %rs1};
	add.s64 %rd8, %rd3, %rd4;
	st.global.b32 [%rd8], %r3;
	ret;
}
)";

// An f16 (not a bf16) in the high half, read as an f32: the bits f16 << 16 as an f32.
const char* f16_high = R"(
.visible .entry f16_high(.param .u64 px, .param .u64 py)
{
	.reg .b16 %rs<2>;
	.reg .f32 %f<2>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [px];
	ld.param.u64 %rd2, [py];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 2;
	add.s64 %rd3, %rd1, %rd3;
	ld.global.u16 %rs1, [%rd3];
	mov.b32 %f1, {0, %rs1};
	mul.wide.u32 %rd4, %r1, 4;
	add.s64 %rd4, %rd2, %rd4;
	st.global.f32 [%rd4], %f1;
	ret;
}
)";

// y[i] = 101, plus WARP_SZ where i != 0, plus 1000 where i == 2: block 1's %r1 shadows the
// thread index %r1 (which the address still uses), blocks 2 and 3 each have their own `p`.
const char* shadowing = R"(
.visible .entry shadowing(.param .u64 py)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [py];
	mov.u32 %r1, %tid.x;
	{ .reg .b32 %r1; mov.u32 %r1, 100; add.u32 %r2, %r1, 1; }
	{ .reg .pred p; setp.ne.b32 p, %r1, 0; @p add.u32 %r2, %r2, WARP_SZ; }
	{ .reg .pred p; setp.eq.b32 p, %r1, 2; @p add.u32 %r2, %r2, 1000; }
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	ret;
}
)";

exec::tensor_binding bf16_in(std::string name, std::uint64_t n) { return tensor(std::move(name), exec::rkind::bf16, {n}, true, false); }
exec::tensor_binding f16_in(std::string name, std::uint64_t n) { return tensor(std::move(name), exec::rkind::f16, {n}, true, false); }
exec::tensor_binding f16_out(std::string name, std::uint64_t n) { return tensor(std::move(name), exec::rkind::f16, {n}, false, true); }

// Fixed inputs, exact in f16 and bf16.
values table(std::vector<rat> x) {
  return [x = std::move(x)](std::string_view, std::uint64_t e) { return x.at(e); };
}

}  // namespace

TEST_CASE_TEMPLATE("bf16 to f32 through mov.b32 %f, {0, %rs}: the bf16 value itself", D, DOMAINS) {
  auto k = load(bf16_up, "bf16_up.ptx");
  exec::launch l = one_cta(4, {bf16_in("x", 4), out_f32("y", 4)});
  std::vector<rat> x = {rat(3), rat(-5, 2), rat(1, 128), rat(-96)};
  fixture<D> f(table(x));
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    REQUIRE(r.out["y"][i].has_value());
    CHECK(f.at(*r.out["y"][i], l) == 2 * x[i]);
  }
}

TEST_CASE_TEMPLATE("f16x2 unpacked into block-scoped halves, converted, and repacked", D, DOMAINS) {
  auto k = load(half2_split, "half2_split.ptx");
  exec::launch l = one_cta(2, {f16_in("x", 4), out_f32("y", 4), f16_out("z", 4)});
  std::vector<rat> x = {rat(1), rat(-2), rat(3, 4), rat(1024)};
  fixture<D> f(table(x));
  auto r = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r.error, r.error->message);
  std::vector<rat> swapped = {x[1], x[0], x[3], x[2]};
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    REQUIRE(r.out["y"][i].has_value());
    CHECK(f.at(*r.out["y"][i], l) == swapped[i]);
    REQUIRE(r.out["z"][i].has_value());
    CHECK(f.at(*r.out["z"][i], l) == swapped[i]);
  }
}

TEST_CASE_TEMPLATE("an f16 in the high half of an f32: its bits in concrete runs, an error symbolically", D, DOMAINS) {
  auto k = load(f16_high, "f16_high.ptx");
  exec::launch l = one_cta(2, {f16_in("x", 2), out_f32("y", 2)});
  // f16 1.0 is 0x3C00: 0x3C000000 as an f32 is 2^(120 - 127) = 1/128. f16 -2.0 is 0xC000:
  // 0xC0000000 is the f32 -2.0.
  fixture<D> f(table({rat(1), rat(-2)}));
  auto r = run(*k, l, f.d);
  if constexpr (std::is_same_v<D, exec::symbolic_domain>) {
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == exec::error_kind::not_structured);
    // The f32 store keeps the two halves; reading the output element as an f32 is what fails.
    CHECK(r.error->message.starts_with("output tensor y: two symbolic f16 halves packed in 32 bits are read as one number"));
    // Arithmetic on such a value stops at its instruction (bf16_up's kernel over an f16 tensor).
    auto up = load(bf16_up, "f16_up.ptx");
    fixture<D> g(table({rat(1), rat(-2)}));
    auto e = expect_error(*up, one_cta(2, {f16_in("x", 2), out_f32("y", 2)}), g.d);
    CHECK(e.kind == exec::error_kind::not_structured);
    CHECK(contains(e.message, "f16_up.ptx:" + std::to_string(line_of(bf16_up, "add.f32 %f2, %f1, %f1"))));
    CHECK(contains(e.message, "two symbolic f16 halves packed in 32 bits are read as one number"));
  } else {
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK(f.at(*r.out["y"][0], l) == rat(1, 128));
    CHECK(f.at(*r.out["y"][1], l) == rat(-2));
  }
}

TEST_CASE_TEMPLATE("block-scoped registers shadow outer ones; WARP_SZ is 32", D, DOMAINS) {
  auto k = load(shadowing, "shadowing.ptx");
  exec::launch l = one_cta(4, {out_int("y", 4)});
  fixture<D> f(small_integers(0));
  auto c = cells(*k, l, f.d, 0);
  REQUIRE(c.size() == 4);
  std::uint64_t want[] = {101, 133, 1133, 133};
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    REQUIRE(c[i].has_value());
    REQUIRE(c[i]->is_bits());
    CHECK(c[i]->bits == want[i]);
  }
}

TEST_CASE("a block's register is not its sibling's: reading it first is an uninitialized read, named as in the source") {
  const char* body = R"(
.visible .entry sibling(.param .u64 py)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [py];
	{ .reg .b32 q; mov.u32 q, 5; }
	{ .reg .b32 q; add.u32 %r2, q, 1; }
	st.global.u32 [%rd1], %r2;
	ret;
}
)";
  auto k = load(body, "sibling.ptx");
  fixture<exec::float32_domain> f(small_integers(0));
  auto e = expect_error(*k, one_cta(1, {out_int("y", 1)}), f.d);
  CHECK(e.kind == exec::error_kind::uninitialized);
  CAPTURE(e.message);
  // The add's result is undefined (exec/values.hpp): the store is the error, and it names q, read
  // unwritten by the add.
  CHECK(contains(e.message, "sibling.ptx:" + std::to_string(line_of(body, "st.global.u32")) + ": thread"));
  CHECK(contains(e.message, "register q is read before it is written at sibling.ptx:" +
                                std::to_string(line_of(body, "add.u32 %r2, q, 1"))));
}

TEST_CASE("grid-wide sync's %envreg reads stop the run with a message that says so") {
  // Cooperative groups' this_grid().sync() reads its workspace address from %envreg1/%envreg2.
  const char* body = R"(
.visible .entry grid_sync(.param .u64 py)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [py];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 8;
	@%p1 bra $L_done;
	mov.u32 %r2, %envreg2;
	st.global.u32 [%rd1], %r2;
$L_done:
	ret;
}
)";
  auto k = load(body, "grid_sync.ptx");
  fixture<exec::exact_domain> f(small_integers(0));
  // Decoding does not stop at the register: a run in which no thread reads it completes.
  auto r = run(*k, one_cta(8, {out_int("y", 1)}), f.d);
  CHECK_MESSAGE(!r.error, r.error->message);
  // Thread 8 reads it: the run stops there.
  auto e = expect_error(*k, one_cta(9, {out_int("y", 1)}), f.d);
  CHECK(e.kind == exec::error_kind::unsupported);
  CHECK(contains(e.message, "grid_sync.ptx:" + std::to_string(line_of(body, "%envreg2"))));
  CHECK(contains(e.message, "%envreg2 is a driver-defined environment register"));
  CHECK(contains(e.message, "grid-wide synchronization is not supported"));
}
