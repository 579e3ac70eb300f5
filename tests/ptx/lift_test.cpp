// Idiom lifting on the PTX nvcc 13 really emits (tests/ptx/inputs/idioms.cu, compiled with and
// without -use_fast_math), and the safety conditions that keep a match from being rewritten.
#include <gpueq/ptx.hpp>

#include <doctest/doctest.h>

#include <map>
#include <string>

using namespace gpueq;

namespace {

ptx::module load(const char* name) {
  return ptx::parse_file(std::string(GPUEQ_SOURCE_DIR) + "/tests/ptx/inputs/" + name);
}

// kernel name -> "idiom:function" of each lifted idiom, in order.
std::map<std::string, std::string> lifted(const ptx::module& m, const ptx::lift_report& r) {
  std::map<std::string, std::string> out;
  for (auto& i : r.idioms) {
    auto& s = out[std::string(m.str(m.functions[i.function].name))];
    if (!s.empty()) s += ' ';
    s += i.name + ":" + std::string(support::name(i.fn));
  }
  return out;
}

const char* lift_header = ".version 9.0\n.target sm_80\n.address_size 64\n";

std::string lift_kernel(const std::string& body) {
  return std::string(lift_header) +
         ".visible .entry k(.param .u64 k_p)\n{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<10>;\n\t.reg .f32 %f<20>;\n"
         "\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [k_p];\n\tld.global.f32 %f1, [%rd1];\n" +
         body + "\n\tst.global.f32 [%rd1], %f3;\n\tret;\n}\n";
}

}  // namespace

TEST_CASE("nvcc's math idioms are lifted (precise math)") {
  ptx::module m = load("idioms.ptx");
  ptx::lift_report r = ptx::lift(m);
  auto got = lifted(m, r);
  CHECK(got["k_expf"] == "expf:exp");
  CHECK(got["k_fast_expf"] == "__expf:exp");
  CHECK(got["k_exp2f"] == "exp2f:exp2");
  CHECK(got["k_fast_logf"] == "__logf:log");
  CHECK(got["k_rsqrtf"] == "rsqrtf:rsqrt");
  CHECK(got["k_sqrtf"] == "sqrtf:sqrt");
  CHECK(got["k_tanhf"] == "tanhf:tanh");
  CHECK(got["k_div"] == "division:div");
  CHECK(got["k_fast_div"] == "__fdividef:div");
  CHECK(got["k_rcp"] == "reciprocal:rcp");
  // logf's precise sequence branches around an inf/NaN fix-up: its own recognizer lifts it, and
  // nothing of it (no branch, no bit manipulation of the float) is left.
  CHECK(got["k_logf"] == "logf:log");
  const ptx::function& lf = *m.find_function("k_logf");
  for (auto& i : lf.instructions) {
    CHECK(i.op != ptx::opcode::bra);
    CHECK(i.op != ptx::opcode::fma);
    CHECK(i.op != ptx::opcode::and_);
  }

  // expf: 12 computing instructions and 6 constant moves become one instruction, whose operands
  // are the load's destination and the result the store reads.
  const ptx::function& f = *m.find_function("k_expf");
  const ptx::lifted_idiom* e = nullptr;
  for (auto& i : r.idioms)
    if (i.name == "expf") e = &i;
  REQUIRE(e);
  CHECK(e->lines.size() == 18);
  CHECK(e->loc.line == 2);  // idioms.cu line of k_expf
  const ptx::instruction& ins = f.instructions[e->instruction];
  CHECK(ins.op == ptx::opcode::lifted);
  CHECK(ins.lifted_fn == ptx::real_function::exp);
  CHECK(ptx::print(m, ins) == "gpueq.lifted.exp.f32 \t%f17, %f1;");
  CHECK(f.instructions[e->instruction - 1].op == ptx::opcode::ld);
  CHECK(f.instructions[e->instruction + 1].op == ptx::opcode::add);
  for (auto& i : f.instructions) CHECK(i.op != ptx::opcode::ex2);
}

TEST_CASE("nvcc's math idioms are lifted (-use_fast_math)") {
  ptx::module m = load("idioms.fast.ptx");
  auto got = lifted(m, ptx::lift(m));
  CHECK(got["k_expf"] == "__expf:exp");
  CHECK(got["k_logf"] == "__logf:log");
  CHECK(got["k_sqrtf"] == "sqrtf (approx):sqrt");
  CHECK(got["k_tanhf"] == "tanhf (approx):tanh");
  CHECK(got["k_div"] == "__fdividef:div");
  CHECK(got["k_rcp"] == "reciprocal (approx):rcp");
}

TEST_CASE("lifting keeps labels and branches consistent") {
  ptx::module m = ptx::parse(lift_kernel(R"(
	setp.lt.f32 %p1, %f1, 0f00000000;
	@%p1 bra $L_end;
	mov.f32 %f4, 0f3FB8AA3B;
	mul.f32 %f2, %f1, %f4;
	ex2.approx.f32 %f3, %f2;
$L_end:)"));
  ptx::lift(m);
  const ptx::function& f = m.functions[0];
  auto end = f.target(m.names.intern("$L_end"));
  REQUIRE(end);
  CHECK(f.instructions[*end].op == ptx::opcode::st);
  CHECK(f.instructions[*end - 1].op == ptx::opcode::lifted);
  CHECK(f.instructions[3].target == *end);
}

TEST_CASE("unsafe matches are not rewritten") {
  SUBCASE("an intermediate result used elsewhere") {
    ptx::module m = ptx::parse(lift_kernel("\tmul.f32 %f2, %f1, 0f3FB8AA3B;\n\tex2.approx.f32 %f3, %f2;\n"
                                      "\tst.global.f32 [%rd1+4], %f2;"));
    auto r = ptx::lift(m);
    REQUIRE(r.idioms.size() == 1);
    CHECK(r.idioms[0].name == "exp2f");  // only the ex2 itself
  }
  SUBCASE("a guarded instruction") {
    ptx::module m = ptx::parse(lift_kernel("\tsetp.lt.f32 %p1, %f1, 0f00000000;\n\t@%p1 mul.f32 %f2, %f1, 0f3FB8AA3B;\n"
                                      "\tex2.approx.f32 %f3, %f2;"));
    auto r = ptx::lift(m);
    REQUIRE(r.idioms.size() == 1);
    CHECK(r.idioms[0].name == "exp2f");
  }
  SUBCASE("a label inside the sequence") {
    ptx::module m = ptx::parse(lift_kernel("\tmul.f32 %f2, %f1, 0f3FB8AA3B;\n$L:\n\tex2.approx.f32 %f3, %f2;\n"
                                      "\tsetp.lt.f32 %p1, %f3, 0f00000000;\n\t@%p1 bra $L;"));
    auto r = ptx::lift(m);
    REQUIRE(r.idioms.size() == 1);
    CHECK(r.idioms[0].name == "exp2f");
  }
  SUBCASE("the wrong constant") {
    ptx::module m = ptx::parse(lift_kernel("\tmul.f32 %f2, %f1, 0f3FB8AA3C;\n\tex2.approx.f32 %f3, %f2;"));
    auto r = ptx::lift(m);
    REQUIRE(r.idioms.size() == 1);
    CHECK(r.idioms[0].name == "exp2f");
  }
  SUBCASE("a constant register shared with other code keeps its mov") {
    ptx::module m = ptx::parse(lift_kernel("\tmov.f32 %f4, 0f3FB8AA3B;\n\tmul.f32 %f2, %f4, %f1;\n"
                                      "\tex2.approx.f32 %f3, %f2;\n\tst.global.f32 [%rd1+8], %f4;"));
    auto r = ptx::lift(m);
    REQUIRE(r.idioms.size() == 1);
    CHECK(r.idioms[0].name == "__expf");  // operands commute
    CHECK(m.functions[0].instructions[2].op == ptx::opcode::mov);
    CHECK(m.functions[0].instructions[3].op == ptx::opcode::lifted);
  }
}

TEST_CASE("the idiom table compiles") {
  const auto& table = ptx::idiom_table();
  CHECK(table.size() >= 15);
  CHECK(ptx::detail::compiled_idioms().size() == table.size());
}

TEST_CASE("expf sequences sharing hoisted constants are all lifted") {
  // nvcc hoists the expf constants (log2(e), the rounding bias, …) before the loop; both expf calls
  // in the loop body use the same registers. Each sequence must still be recognized as expf.
  ptx::module m = ptx::parse_file(std::string(GPUEQ_SOURCE_DIR) + "/examples/kernels/softmax/softmax_online.ptx");
  ptx::lift_report r = ptx::lift(m);
  std::map<std::string, int> by_name;
  for (auto& li : r.idioms) ++by_name[li.name];
  CHECK(by_name["expf"] == 5);
  CHECK(by_name["exp2f"] == 0);
  // And nothing of a range reduction is left: no ex2 outside a lifted op.
  for (auto& f : m.functions)
    for (auto& ins : f.instructions) CHECK(ins.op != ptx::opcode::ex2);
}
