// The operation vocabulary (support/operations.hpp, issue 18 item 4) walked row by row: every
// operation has a spelling that finds it again, a term builder whose term evaluates to what the C
// library computes (an independent model of the real function), a float32-domain implementation
// that agrees, and, where the term syntax spells it as a function, a parse that builds the same
// term. A row added without its builder or its float32 case fails here.
#include <gpueq/canon/evaluate.hpp>
#include <gpueq/exec/float32.hpp>
#include <gpueq/support/operations.hpp>
#include <gpueq/term/operations.hpp>
#include <gpueq/term/parse.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using namespace gpueq;
using support::real_op;

// The real function of each operation at (a, b, c), from the C library: the model the table's
// implementations are held to. Written out per operation on purpose (not from the table).
double model(real_op o, double a, double b, double c) {
  switch (o) {
    case real_op::add: return a + b;
    case real_op::sub: return a - b;
    case real_op::mul: return a * b;
    case real_op::fma: return a * b + c;
    case real_op::neg: return -a;
    case real_op::div: return a / b;
    case real_op::rcp: return 1 / a;
    case real_op::min: return std::fmin(a, b);
    case real_op::max: return std::fmax(a, b);
    case real_op::exp: return std::exp(a);
    case real_op::exp2: return std::exp2(a);
    case real_op::log: return std::log(a);
    case real_op::log2: return std::log2(a);
    case real_op::pow: return std::pow(a, b);
    case real_op::sqrt: return std::sqrt(a);
    case real_op::rsqrt: return 1 / std::sqrt(a);
    case real_op::tanh: return std::tanh(a);
    case real_op::erf: return std::erf(a);
    case real_op::abs: return std::fabs(a);
    case real_op::sin: return std::sin(a);
    case real_op::cos: return std::cos(a);
  }
  FAIL("an operation without a model: " << support::name(o));
  return 0;
}

}  // namespace

TEST_CASE("every real operation: spelling, term builder, float32 implementation and term syntax agree") {
  term::store s;
  const term::term_id x = s.input("x"), y = s.input("y"), z = s.input("z");
  // Inputs where every operation is defined and the operands differ (min and max tell apart).
  const double xa = 0.75, ya = 1.625, za = -0.5;
  const support::rational xr(3, 4), yr(13, 8), zr(-1, 2);
  canon::evaluator<double> eval(s, [&](term::term_id in) {
    return in == x ? xr : in == y ? yr : zr;
  });
  exec::float32_domain f32([](const exec::input_ref&) { return 0.0; });

  for (std::size_t i = 0; i < support::real_op_count; ++i) {
    const auto o = static_cast<real_op>(i);
    CAPTURE(support::name(o));
    REQUIRE(support::find_real_op(support::name(o)) == o);
    const unsigned n = support::arity(o);
    const term::term_id args[3] = {x, y, z};
    const double want = model(o, xa, ya, za);

    auto t = term::build(s, o, std::span<const term::term_id>(args, n));
    auto got = eval(t);
    REQUIRE(got.has_value());
    CHECK(*got == doctest::Approx(want).epsilon(1e-12));

    const double in[3] = {xa, ya, za};
    double f = f32.arith(o, std::span<const double>(in, n), exec::rkind::f64, {});
    CHECK(f == doctest::Approx(want).epsilon(1e-12));

    if (support::callable(o)) {
      std::string text = std::string(support::name(o)) + "(x" + (n > 1 ? ", y" : "") + (n > 2 ? ", z" : "") + ")";
      CAPTURE(text);
      CHECK(term::parse(s, text) == t);
    }
  }
}

TEST_CASE("term::function is the apply rows of the table, in order") {
  CHECK(term::name_of(term::function::tanh) == "tanh");
  CHECK(term::name_of(term::function::erf) == "erf");
  CHECK(term::name_of(term::function::cos) == "cos");
  for (std::size_t i = 0; i < support::real_op_count; ++i) {
    const auto o = static_cast<real_op>(i);
    CAPTURE(support::name(o));
    auto f = term::function_of_op(o);
    CHECK(f.has_value() == (support::form(o) == support::term_form::apply));
    if (f) CHECK(term::op_of(*f) == o);
  }
}

TEST_CASE("term::build checks the number of operands; add, mul, max and min take more") {
  term::store s;
  const term::term_id x = s.input("x"), y = s.input("y"), z = s.input("z");
  CHECK_THROWS_AS(term::build(s, real_op::exp, {x, y}), term::term_error);
  CHECK_THROWS_AS(term::build(s, real_op::div, {x}), term::term_error);
  CHECK(term::build(s, real_op::max, {x, y, z}) == s.max(std::vector<term::term_id>{x, y, z}));
  CHECK(term::build(s, real_op::add, {x, y, z}) == s.add(s.add(x, y), z));
  // exp2 and log2 meet exp and log through ln 2.
  CHECK(term::build(s, real_op::exp2, {x}) == s.exp(s.mul(x, s.log(s.constant(2)))));
  CHECK(term::parse(s, "log2(x)") == s.div(s.log(x), s.log(s.constant(2))));
}
