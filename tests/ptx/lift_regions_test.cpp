// Lifting of nvcc's multi-block double-precision log and exp (ptx/lift_regions.hpp): on the corpus
// kernel that uses them (examples/kernels/realworld/sci_f64.cu), on the templates themselves, and
// the changes to a sequence that must keep it from being lifted (it then runs as it is).
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
  // sci_f64_pow: log(v) and exp(v) are lifted, and pow's helper function has an exp of its own
  // (the rest of pow is not lifted).
  ptx::module mp = ptx::parse_file(dir + "sci_f64_pow.ptx");
  auto with_pow = regions_lifted(mp, ptx::lift(mp));
  CHECK(with_pow["sci_pow"] == "log exp");
  CHECK(with_pow["__internal_accurate_pow"] == "exp");
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
