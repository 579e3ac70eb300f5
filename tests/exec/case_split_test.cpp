// The case split over comparisons of symbolic values in the engine (exec/case_split.hpp): with a
// case_split attached to the symbolic domain, a selection or branch on an undecided comparison
// takes the prescribed outcome (else true) and records it; a comparison the path's assumptions
// decide takes that outcome without a branch point. Expected outputs by hand.
#include "harness.hpp"

using namespace exec_test;

namespace {

// out[0] = x0 > x1 ? 1 : 0 (a step: no max/min); then out[1] = x0 < x1 ? 1 : 0, which the first
// comparison's outcome decides.
constexpr std::string_view two_steps = R"(
.visible .entry two_steps(.param .u64 out_param, .param .u64 x_param)
{
  .reg .pred %p<3>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out_param];
  ld.param.u64 %rd2, [x_param];
  ld.global.f32 %f1, [%rd2];
  ld.global.f32 %f2, [%rd2+4];
  setp.gt.f32 %p1, %f1, %f2;
  selp.f32 %f3, 0f3F800000, 0f00000000, %p1;
  st.global.f32 [%rd1], %f3;
  setp.lt.f32 %p2, %f1, %f2;
  selp.f32 %f4, 0f3F800000, 0f00000000, %p2;
  st.global.f32 [%rd1+4], %f4;
  ret;
}
)";

// A branch on x0 > x1: out = the larger (as control flow, not max).
constexpr std::string_view branch_max = R"(
.visible .entry branch_max(.param .u64 out_param, .param .u64 x_param)
{
  .reg .pred %p<2>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out_param];
  ld.param.u64 %rd2, [x_param];
  ld.global.f32 %f1, [%rd2];
  ld.global.f32 %f2, [%rd2+4];
  setp.gt.f32 %p1, %f1, %f2;
  @%p1 bra BIG;
  st.global.f32 [%rd1], %f2;
  ret;
BIG:
  st.global.f32 [%rd1], %f1;
  ret;
}
)";

}  // namespace

TEST_CASE("case split: a step selection takes the prescribed outcome, then the other") {
  auto k = load(two_steps, "two_steps.ptx");
  exec::launch l = one_cta(1, {out_f32("out", 2), in_f32("x", 2)});
  fixture<exec::symbolic_domain> f(random_rationals(1));
  term::term_id x0 = f.s.input("x", {0}), x1 = f.s.input("x", {1});

  exec::case_split first;  // nothing prescribed: true at the branch point
  f.d.attach(&first);
  auto r1 = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r1.error, r1.error->message);
  CHECK(*r1.out["out"][0] == f.s.one());
  CHECK(*r1.out["out"][1] == f.s.zero());  // x0 < x1 is false under x0 > x1: no second branch point
  REQUIRE(first.taken == std::vector<bool>{true});
  REQUIRE(first.assumed.size() == 1);
  CHECK(first.assumed[0].a == x0);
  CHECK(first.assumed[0].b == x1);
  CHECK(first.assumed[0].c == exec::cmp_op::gt);
  CHECK(first.assumed[0].outcome);

  auto next = exec::next_choices(first.taken);
  REQUIRE(next);
  CHECK(*next == std::vector<bool>{false});
  exec::case_split second;
  second.prescribed = *next;
  f.d.attach(&second);
  auto r2 = run(*k, l, f.d);
  REQUIRE_MESSAGE(!r2.error, r2.error->message);
  CHECK(*r2.out["out"][0] == f.s.zero());
  // Under x1 >= x0 the strict x0 < x1 is still open: a second branch point, taken true.
  CHECK(*r2.out["out"][1] == f.s.one());
  CHECK(second.taken == std::vector<bool>{false, true});
  auto third = exec::next_choices(second.taken);
  REQUIRE(third);
  CHECK(*third == std::vector<bool>{false, false});
  CHECK_FALSE(exec::next_choices(*third));  // every outcome explored: three paths
  f.d.attach(nullptr);
}

TEST_CASE("case split: a branch on an undecided comparison follows the outcome") {
  auto k = load(branch_max, "branch_max.ptx");
  exec::launch l = one_cta(1, {out_f32("out", 1), in_f32("x", 2)});
  fixture<exec::symbolic_domain> f(random_rationals(1));
  term::term_id x0 = f.s.input("x", {0}), x1 = f.s.input("x", {1});
  for (bool outcome : {true, false}) {
    exec::case_split c;
    c.prescribed = {outcome};
    f.d.attach(&c);
    auto r = run(*k, l, f.d);
    REQUIRE_MESSAGE(!r.error, r.error->message);
    CHECK(*r.out["out"][0] == (outcome ? x0 : x1));
    CHECK(c.taken == std::vector<bool>{outcome});
  }
  f.d.attach(nullptr);
  auto e = expect_error(*k, l, f.d);  // without a case split the branch stops the run
  CHECK(e.kind == exec::error_kind::not_structured);
}

TEST_CASE("case split: an outcome's negation is the converse order") {
  term::store s;
  term::term_id a = s.input("a"), b = s.input("b");
  using implied = term::order::implied_kind;
  auto facts = [&](exec::cmp_op c, bool outcome) {
    term::order o;
    exec::assume(o, {a, b, c, outcome});
    return std::pair{o.implied(s, a, b), o.implied(s, b, a)};
  };
  CHECK(facts(exec::cmp_op::gt, true) == std::pair{implied::strict, implied::none});
  CHECK(facts(exec::cmp_op::gt, false) == std::pair{implied::none, implied::non_strict});  // b >= a
  CHECK(facts(exec::cmp_op::ge, false) == std::pair{implied::none, implied::strict});      // b > a
  CHECK(facts(exec::cmp_op::le, true) == std::pair{implied::none, implied::non_strict});
  CHECK(facts(exec::cmp_op::lt, false) == std::pair{implied::non_strict, implied::none});
  CHECK(facts(exec::cmp_op::eq, true) == std::pair{implied::non_strict, implied::non_strict});
  CHECK(facts(exec::cmp_op::ne, true) == std::pair{implied::none, implied::none});  // a != b: no order
  term::order o;
  exec::assume(o, {a, b, exec::cmp_op::gt, true});
  CHECK(exec::implied_outcome(s, o, exec::cmp_op::lt, a, b) == false);
  CHECK(exec::implied_outcome(s, o, exec::cmp_op::ne, b, a) == true);
  CHECK_FALSE(exec::implied_outcome(s, o, exec::cmp_op::gt, a, s.input("c")).has_value());
}
