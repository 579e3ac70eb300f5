// Lifting of nvcc's multi-block double-precision log, exp and pow (ptx/lift_regions.hpp): on the
// corpus kernels that use them (examples/kernels/realworld/sci_f64.cu, sci_f64_pow.cu), on the
// templates themselves, and the changes to a sequence that must keep it from being lifted (it
// then runs as it is).
#include <gpueq/ptx.hpp>

#include <doctest/doctest.h>

#include <map>
#include <string>

using namespace gpueq;

namespace {

// function name -> the lifted functions, in order ("log exp").
std::map<std::string, std::string> regions_lifted(const ptx::module& m, const ptx::lift_report& r) {
  std::map<std::string, std::string> out;
  for (auto& i : r.idioms) {
    auto& s = out[std::string(m.str(m.functions[i.function].name))];
    if (!s.empty()) s += ' ';
    s += std::string(support::name(i.fn));
  }
  return out;
}

std::size_t count(const ptx::function& f, ptx::opcode op) {
  std::size_t n = 0;
  for (auto& i : f.instructions) n += i.op == op;
  return n;
}

// A template's text with one substring replaced (the first occurrence).
std::string changed(std::string_view text, const std::string& from, const std::string& to) {
  std::string s(text);
  auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  s.replace(at, from.size(), to);
  return s;
}

std::size_t lifts_of(const std::string& text) {
  ptx::module m = ptx::parse(text);
  return ptx::lift(m).idioms.size();
}

}  // namespace

TEST_CASE("double log and exp from libdevice are lifted in the corpus kernel") {
  const std::string dir = std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/realworld/";
  // sci_f64_pow: log(v), exp(v) and pow(v, 2.5) are lifted; pow's helper function has an exp of
  // its own, lifted too (the helper is no longer called).
  ptx::module mp = ptx::parse_file(dir + "sci_f64_pow.ptx");
  auto with_pow = regions_lifted(mp, ptx::lift(mp));
  CHECK(with_pow["sci_pow"] == "log exp pow");
  CHECK(with_pow["__internal_accurate_pow"] == "exp");
  {
    const ptx::function& f = *mp.find_function("sci_pow");
    CHECK(count(f, ptx::opcode::call) == 0);
    CHECK(count(f, ptx::opcode::bra) == 1);  // the bounds check
    for (auto& i : f.instructions) CHECK_FALSE((i.op == ptx::opcode::mov && i.operands[0].kind == ptx::operand_kind::vector));
    const ptx::instruction* pw = nullptr;
    for (auto& i : f.instructions)
      if (i.op == ptx::opcode::lifted && i.lifted_fn == support::real_op::pow) pw = &i;
    REQUIRE(pw != nullptr);
    // pow(v, 2.5): v is %fd1 (2 + x[i]), 2.5 = 0x4004000000000000; the result feeds the fma.
    REQUIRE(pw->operands.size() == 3);
    CHECK(mp.str(pw->operands[1].name) == "%fd1");
    CHECK(pw->operands[2].kind == ptx::operand_kind::imm_f64);
    CHECK(static_cast<std::uint64_t>(pw->operands[2].value) == 0x4004000000000000ull);
  }
  ptx::module m = ptx::parse_file(dir + "sci_f64.ptx");
  ptx::lift_report r = ptx::lift(m);
  auto got = regions_lifted(m, r);
  // From the CUDA source: sci_ref computes log(v) once (nvcc shares it) and one exp; sci_split
  // and sci_wrong one log and two exps.
  CHECK(got["sci_ref"] == "log exp");
  CHECK(got["sci_split"] == "log exp exp");
  CHECK(got["sci_wrong"] == "log exp exp");
  for (auto& i : r.idioms) {
    CHECK(i.lines.size() > 40);  // the whole sequence, not a piece of it
    const auto& ins = m.functions[i.function].instructions[i.instruction];
    CHECK(ins.op == ptx::opcode::lifted);
    CHECK(ins.lifted_fn == i.fn);
    CHECK(ptx::last_type(m, ins) == ".f64");
  }
  // What is left of the three lifted kernels: the bounds check is the only branch, and no word
  // of a double is taken apart any more (x's high word, shared by log and exp, went with them).
  for (const char* k : {"sci_ref", "sci_split", "sci_wrong"}) {
    CAPTURE(k);
    const ptx::function& f = *m.find_function(k);
    CHECK(count(f, ptx::opcode::bra) == 1);
    for (auto& i : f.instructions) CHECK_FALSE((i.op == ptx::opcode::mov && i.operands[0].kind == ptx::operand_kind::vector));
  }
}

TEST_CASE("the templates lift themselves, with x scaled in place") {
  // The log template scales x's register in place for subnormals (x is dead afterwards): the
  // lifted instruction reads x where the first branch stood, before the scaling.
  ptx::module m = ptx::parse(ptx::detail::libdevice_log_f64);
  ptx::lift_report r = ptx::lift(m);
  REQUIRE(r.idioms.size() == 1);
  const ptx::function& f = m.functions[0];
  // ld x, ld y, lifted log, cvta, st, ret.
  CHECK(f.instructions.size() == 6);
  const auto& l = f.instructions[r.idioms[0].instruction];
  CHECK(m.str(l.operands[1].name) == "%fd56");
  CHECK(m.str(l.operands[0].name) == "%fd58");
  CHECK(lifts_of(std::string(ptx::detail::libdevice_exp_f64)) == 1);
}

TEST_CASE("a sequence that is not exactly libdevice's is not lifted") {
  const std::string log(ptx::detail::libdevice_log_f64), exp(ptx::detail::libdevice_exp_f64);
  // One polynomial coefficient, one comparison, one rounding modifier, one branch sense.
  CHECK(lifts_of(changed(log, "0d3FB5555555555554", "0d3FB5555555555555")) == 0);
  CHECK(lifts_of(changed(log, "setp.lt.s32 %p4", "setp.le.s32 %p4")) == 0);
  CHECK(lifts_of(changed(exp, "add.rn.f64 %fd10", "add.rz.f64 %fd10")) == 0);
  CHECK(lifts_of(changed(exp, "@%p1 bra", "@!%p1 bra")) == 0);
  // The special-case path's result for x < 0 (0 for exp(-inf)) replaced by 1.
  CHECK(lifts_of(changed(exp, "selp.f64 %fd40, 0d0000000000000000", "selp.f64 %fd40, 0d3FF0000000000000")) == 0);
  // A value of the sequence read after it (the mantissa register): not lifted, it would be lost.
  CHECK(lifts_of(changed(log, "st.global.f64 [%rd2], %fd58;", "st.global.f64 [%rd2], %fd58;\n\tst.global.f64 [%rd2+8], %fd57;")) == 0);
  // A store inside the sequence.
  CHECK(lifts_of(changed(log, "mov.u32 %r26, -1077;", "mov.u32 %r26, -1077;\n\tst.global.f64 [%rd1], %fd56;")) == 0);
  // A branch from outside into the middle of the sequence.
  CHECK(lifts_of(changed(log, "ld.param.u64 %rd1, [t_log_param_1];",
                         "ld.param.u64 %rd1, [t_log_param_1];\n\tsetp.eq.s32 %p3, %r24, 7;\n\t@%p3 bra $L__BB0_6;")) == 0);
  // Unchanged, both lift (the changes above are what stops them).
  CHECK(lifts_of(log) == 1);
  CHECK(lifts_of(exp) == 1);
}

namespace {

// The pow template's kernel (t_pow) after lifting: its lifted pow instruction, if any.
const ptx::instruction* lifted_pow(const std::string& text, ptx::module& m) {
  m = ptx::parse(text);
  ptx::lift(m);
  for (auto& i : m.find_function("t_pow")->instructions)
    if (i.op == ptx::opcode::lifted && i.lifted_fn == support::real_op::pow) return &i;
  return nullptr;
}

// Every occurrence of a substring replaced.
std::string replaced_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

TEST_CASE("pow(double) with a constant exponent: nvcc's helper and special cases are lifted, compared with the template") {
  const std::string pow(ptx::detail::libdevice_pow_f64);
  ptx::module m;
  // The template lifts itself: pow in the kernel (the call gone), exp in the helper.
  const ptx::instruction* p = lifted_pow(pow, m);
  REQUIRE(p != nullptr);
  CHECK(static_cast<std::uint64_t>(p->operands[2].value) == 0x4004000000000000ull);
  CHECK(m.str(p->operands[1].name) == "%fd9");  // x, the kernel's first parameter
  CHECK(count(*m.find_function("t_pow"), ptx::opcode::call) == 0);
  CHECK(count(*m.find_function("t_pow"), ptx::opcode::bra) == 0);
  // ld x, ld y, lifted pow, cvta, st, ret.
  CHECK(m.find_function("t_pow")->instructions.size() == 6);

  // Another exponent: nvcc's output for pow(x, 3.5) is the template with 3.5 = 0x400C000000000000
  // for 2.5 (the odd-integer test's constant is the same: the lowest set bit of both is bit 50,
  // so K = (1075 − 50) << 20 = 1074790400).
  const std::string p35 = replaced_all(pow, "0d4004000000000000", "0d400C000000000000");
  p = lifted_pow(p35, m);
  REQUIRE(p != nullptr);
  CHECK(static_cast<std::uint64_t>(p->operands[2].value) == 0x400C000000000000ull);
  // 1.5 = 0x3FF8000000000000: lowest set bit 51, K = 1024 << 20 = 1073741824 (what nvcc emits for
  // pow(x, 1.5)); with the template's K for 2.5 left in place the sequence is not nvcc's, and is
  // not lifted.
  const std::string p15 = replaced_all(pow, "0d4004000000000000", "0d3FF8000000000000");
  CHECK(lifted_pow(p15, m) == nullptr);
  p = lifted_pow(changed(p15, "%r2, 1074790400", "%r2, 1073741824"), m);
  REQUIRE(p != nullptr);
  CHECK(static_cast<std::uint64_t>(p->operands[2].value) == 0x3FF8000000000000ull);
  CHECK(ptx::detail::odd_test_constant(0x3FF8000000000000ull) == 1073741824);
  CHECK(ptx::detail::odd_test_constant(0x3FD3333333333333ull) == 1127219200);  // 0.3: nvcc's constant

  // Exponent 0 (nvcc folds pow(x, 0) to 1; the template's shape says nothing about it): not lifted.
  CHECK(lifted_pow(replaced_all(pow, "0d4004000000000000", "0d0000000000000000"), m) == nullptr);
}

TEST_CASE("a pow sequence that is not exactly nvcc's is not lifted") {
  const std::string pow(ptx::detail::libdevice_pow_f64);
  ptx::module m;
  // One constant of the helper's log polynomial.
  CHECK(lifted_pow(changed(pow, "0d3ED0F5D241AD3B5A", "0d3ED0F5D241AD3B5B"), m) == nullptr);
  CHECK(count(*m.find_function("t_pow"), ptx::opcode::call) == 1);  // the call stays
  // One constant around the call: |x| = ∞ tested against the largest finite double instead.
  CHECK(lifted_pow(changed(pow, "setp.neu.f64\t%p11, %fd1, 0d7FF0000000000000", "setp.neu.f64\t%p11, %fd1, 0d7FEFFFFFFFFFFFFF"), m) == nullptr);
  // The result for x = 1 (1.0 in the tail) replaced by 2.
  CHECK(lifted_pow(changed(pow, "selp.f64\t%fd17, 0d3FF0000000000000", "selp.f64\t%fd17, 0d4000000000000000"), m) == nullptr);
  // The exponent around the call (x + c) not the helper's.
  CHECK(lifted_pow(changed(pow, "add.f64\t%fd15, %fd9, 0d4004000000000000", "add.f64\t%fd15, %fd9, 0d400C000000000000"), m) == nullptr);
  // The helper's exponent not the one around the call.
  CHECK(lifted_pow(changed(pow, "mov.f64\t%fd92, 0d4004000000000000", "mov.f64\t%fd92, 0d400C000000000000"), m) == nullptr);
  // The helper with an instruction that is not pure arithmetic (a barrier): its body is more than
  // the function of x the graph names.
  CHECK(lifted_pow(changed(pow, "add.s32\t%r49, %r48, -1023;", "add.s32\t%r49, %r48, -1023;\n\tbar.sync 0;"), m) == nullptr);
  // The call's argument x instead of |x|.
  CHECK(lifted_pow(changed(pow, "st.param.f64\t[param0+0], %fd1;", "st.param.f64\t[param0+0], %fd9;"), m) == nullptr);
  // Unchanged, it lifts.
  CHECK(lifted_pow(pow, m) != nullptr);
}

TEST_CASE("pow with nvcc's generic helper of |x| and the exponent (a module with several exponents)") {
  const std::string xy(ptx::detail::libdevice_pow_xy_f64);
  ptx::module m;
  // The template lifts itself: the exponent is the immediate the call passes.
  const ptx::instruction* p = lifted_pow(xy, m);
  REQUIRE(p != nullptr);
  CHECK(static_cast<std::uint64_t>(p->operands[2].value) == 0x4004000000000000ull);
  CHECK(count(*m.find_function("t_pow"), ptx::opcode::call) == 0);
  // nvcc's output for pow(x, 3.5): 3.5 passed, the same K (the lowest set bit of 3.5 is bit 50).
  p = lifted_pow(replaced_all(xy, "0d4004000000000000", "0d400C000000000000"), m);
  REQUIRE(p != nullptr);
  CHECK(static_cast<std::uint64_t>(p->operands[2].value) == 0x400C000000000000ull);
  // The exponent passed in a register (here x itself, pow(x, x)): not an immediate, not lifted
  // (the special cases around the call are folded for the constant 2.5).
  CHECK(lifted_pow(changed(xy, "st.param.f64\t[param1+0], 0d4004000000000000;", "st.param.f64\t[param1+0], %fd9;"), m) == nullptr);
  CHECK(count(*m.find_function("t_pow"), ptx::opcode::call) == 1);
  // The passed exponent not the one the special cases test (3.5 passed, 2.5 around the call).
  CHECK(lifted_pow(changed(xy, "st.param.f64\t[param1+0], 0d4004000000000000;", "st.param.f64\t[param1+0], 0d400C000000000000;"), m) == nullptr);
  // One constant of the helper's log polynomial.
  CHECK(lifted_pow(changed(xy, "0d3ED0F5D241AD3B5A", "0d3ED0F5D241AD3B5B"), m) == nullptr);
  // The helper's parameters swapped where it reads them.
  CHECK(lifted_pow(changed(xy, "[__internal_accurate_pow_param_1];", "[__internal_accurate_pow_param_0];"), m) == nullptr);
}
