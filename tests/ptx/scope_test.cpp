// PTX's scoping of registers declared inside `{ }` blocks (issue 21 item 10), as nvcc wraps every
// inline asm statement in a block and the CUDA headers declare names without `%` there: a block's
// register is visible to the end of the block and shadows an outer one of the same name, so the
// parser gives it a name of its own in the IR (`p#1`), prints its source spelling, and rejects what
// ptxas rejects (a name declared twice in one block, a use after the block). Also the predefined
// identifier WARP_SZ. The kernels here were checked with `ptxas -arch=sm_80`.
#include <gpueq/ptx.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace gpueq;

namespace {

const char* scope_header = ".version 8.0\n.target sm_80\n.address_size 64\n";

// Blocks 1 and 2 each declare `p`; block 3 shadows the outer %p1 and %r1 (a range) and declares an
// address register `ad` without `%`; %r3 inside block 3 is the outer one (the inner range has two).
const char* scoped = R"(.visible .entry k(.param .u64 a)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [a];
	mov.u32 %r1, %tid.x;
	{ .reg .pred p; setp.ne.b32 p, %r1, 0; @p st.global.u32 [%rd1], %r1; }
	{ .reg .pred p; setp.eq.b32 p, %r1, 1; @!p bra $L_skip; }
	{ .reg .pred %p1; .reg .b32 %r<2>; .reg .b64 ad; mov.u32 %r1, 7; setp.lt.u32 %p1, %r1, %r3; mov.b64 ad, %rd1; @%p1 st.global.u32 [ad+4], %r1; }
	setp.ne.b32 %p1, %r1, WARP_SZ;
$L_skip:
	ret;
}
)";

std::string name(const ptx::module& m, const ptx::operand& o) { return std::string(m.str(o.name)); }

support::diagnostic scope_error_of(const std::string& body) {
  try {
    ptx::parse(std::string(scope_header) + ".visible .entry k(.param .u64 a)\n{\n\t.reg .b32 %r<4>;\n" + body + "\n\tret;\n}\n",
               "t.ptx");
  } catch (const support::diagnostic_error& e) {
    return e.diag();
  }
  return {};
}

}  // namespace

TEST_CASE("registers of a { } block: names of their own, shadowing, the source spelling printed") {
  ptx::module m = ptx::parse(std::string(scope_header) + scoped, "scoped.ptx");
  const ptx::function& f = m.functions[0];
  REQUIRE(f.instructions.size() == 12);
  const auto& ins = f.instructions;

  // Block 1's p and block 2's p are two registers; the guards name them.
  CHECK(ins[2].operands[0].kind == ptx::operand_kind::reg);
  CHECK(name(m, ins[2].operands[0]) == "p#1");
  CHECK(ins[3].guarded);
  CHECK(m.str(ins[3].guard) == "p#1");
  CHECK(name(m, ins[4].operands[0]) == "p#2");
  CHECK(m.str(ins[5].guard) == "p#2");
  CHECK(ins[5].guard_negated);

  // Block 3: %r1 and %p1 are its own (the inner range %r<2> holds %r0 and %r1), %r3 is the outer one.
  CHECK(name(m, ins[6].operands[0]) == "%r1#3");
  CHECK(name(m, ins[7].operands[0]) == "%p1#3");
  CHECK(name(m, ins[7].operands[1]) == "%r1#3");
  CHECK(name(m, ins[7].operands[2]) == "%r3");
  CHECK(name(m, ins[8].operands[0]) == "ad#3");
  CHECK(ins[8].operands[0].kind == ptx::operand_kind::reg);
  CHECK(ins[9].operands[0].kind == ptx::operand_kind::address);
  CHECK(ins[9].operands[0].base == ptx::address_base::reg);
  CHECK(name(m, ins[9].operands[0]) == "ad#3");
  CHECK(ins[9].operands[0].value == 4);
  CHECK(m.str(ins[9].guard) == "%p1#3");

  // After the block, %p1 and %r1 are the outer registers again; WARP_SZ is the predefined constant.
  CHECK(name(m, ins[10].operands[0]) == "%p1");
  CHECK(name(m, ins[10].operands[1]) == "%r1");
  CHECK(ins[10].operands[2].kind == ptx::operand_kind::special);
  CHECK(name(m, ins[10].operands[2]) == "WARP_SZ");

  // The declarations carry the IR names; the printer writes what the source says.
  REQUIRE(f.regs.size() == 8);
  CHECK(m.str(f.regs[3].name) == "p#1");
  CHECK(m.str(f.regs[4].name) == "p#2");
  CHECK(m.str(f.regs[6].name) == "%r#3");
  CHECK(f.regs[6].range);
  CHECK(ptx::register_spelling("%r1#3") == "%r1");
  CHECK(ptx::register_spelling("%r1") == "%r1");
  CHECK(ptx::print(m, ins[9]) == "@%p1 st.global.u32 \t[ad+4], %r1;");
  CHECK(ptx::print(m, ins[10]) == "setp.ne.b32 \t%p1, %r1, WARP_SZ;");
  std::string text = ptx::print(m);
  CHECK(text.find(".reg .pred p;") != std::string::npos);
  CHECK(text.find('#') == std::string::npos);
  // ... and it parses back to the same IR.
  CHECK(ptx::difference(m, ptx::parse(text, "printed.ptx")) == "");
}

TEST_CASE("block scoping errors, as ptxas reports them") {
  SUBCASE("a name declared twice in one block") {
    auto d = scope_error_of("\t{ .reg .pred q; .reg .pred q; }");
    CHECK(d.file == "t.ptx");
    CHECK(d.where.line == 7);
    CHECK(d.where.column == 29);
    CHECK(d.reason == "register 'q' declared twice in one block");
  }
  SUBCASE("a range member declared beside the range") {
    auto d = scope_error_of("\t.reg .b32 %r2;");
    CHECK(d.reason == "register '%r2' declared twice in one block");
    d = scope_error_of("\t{ .reg .b32 %s3; .reg .b32 %s<4>; }");
    CHECK(d.reason == "register '%s<N>' declared twice in one block");
  }
  SUBCASE("the same name in two blocks, or shadowing, is fine") {
    CHECK(scope_error_of("\t{ .reg .b32 q; mov.u32 q, 1; }\n\t{ .reg .b32 q; mov.u32 q, 2; }\n\t{ .reg .b32 %r1; { .reg .b32 %r1; } }")
              .reason.empty());
  }
  SUBCASE("a %-register used after its block") {
    auto d = scope_error_of("\t{ .reg .b32 %q; mov.u32 %q, 5; }\n\tmov.u32 %r1, %q;");
    CHECK(d.where.line == 8);
    CHECK(d.reason == "undeclared register '%q'");
  }
  SUBCASE("a register used before its declaration in the block") {
    auto d = scope_error_of("\t{ mov.u32 %r1, %q; .reg .b32 %q; }");
    CHECK(d.reason == "undeclared register '%q'");
  }
  SUBCASE("WARP_SZ cannot be declared") {
    auto d = scope_error_of("\t{ .reg .b32 WARP_SZ; }");
    CHECK(d.reason.find("WARP_SZ is a predefined identifier") != std::string::npos);
  }
}

TEST_CASE("`.reg.b16 lo, hi;` without a space declares registers of that type (cuda_fp16.hpp's inline PTX)") {
  // Checked with ptxas -arch=sm_80: the form the CUDA headers' half and bfloat16 functions use
  // for their temporaries, inside the block nvcc wraps around an asm statement.
  const char* k = R"(.visible .entry halves(.param .u64 a)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [a];
	ld.global.u32 %r1, [%rd1];
	{.reg.b16 lo, hi;
	 .reg.b32 f;
	 .reg.v2.f32 pair;
	 mov.b32 {lo, hi}, %r1;
	 cvt.f32.f16 f, lo;
	 mov.b32 %r2, f;}
	st.global.u32 [%rd1], %r2;
	ret;
}
)";
  ptx::module m = ptx::parse(std::string(scope_header) + k, "halves.ptx");
  const ptx::function& f = m.functions[0];
  REQUIRE(f.regs.size() == 6);
  CHECK(m.str(f.regs[2].type) == ".b16");
  CHECK(m.str(f.regs[3].type) == ".b16");
  CHECK(m.str(f.regs[4].type) == ".b32");
  CHECK(m.str(f.regs[5].type) == ".f32");
  CHECK(f.regs[5].vec == 2);
  // Printed with the usual space, it parses back to the same declarations.
  ptx::module again = ptx::parse(ptx::print(m), "again.ptx");
  REQUIRE(again.functions[0].regs.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(again.str(again.functions[0].regs[i].type) == m.str(f.regs[i].type));
    CHECK(again.functions[0].regs[i].vec == f.regs[i].vec);
  }
}
