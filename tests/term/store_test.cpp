// The smart constructors: every rewrite rule of the canonical form, and hash-consing.
#include <gpueq/term.hpp>

#include <doctest/doctest.h>

#include <vector>

using namespace gpueq;
using term::kind;
using term::rational;
using term::store;
using term::term_id;

namespace {
term_id P(store& s, std::string_view text) { return term::parse(s, text); }
}  // namespace

TEST_CASE("hash-consing: equal structure gives equal ids") {
  store s;
  term_id a = s.input("x", {3}), b = s.input("x", {3}), c = s.input("x", {4});
  CHECK(a == b);
  CHECK(a != c);
  CHECK(s.input("q", {2, 5}) == s.input("q", {2, 5}));
  CHECK(s.input("q", {2, 5}) != s.input("q", {5, 2}));
  CHECK(s.input("x") != s.input("x", {0}));
  CHECK(s.exp(a) == s.exp(b));
  std::size_t before = s.size();
  term_id ea = s.exp(a);
  CHECK(s.add(ea, c) == s.add(c, ea));
  CHECK(s.size() == before + 1);  // one new sum node, shared by both orders
}

TEST_CASE("constants fold exactly") {
  store s;
  CHECK(s.add(s.constant(2), s.constant(3)) == s.constant(5));
  CHECK(s.mul(s.constant(2), s.constant(3)) == s.constant(6));
  CHECK(s.div(s.constant(1), s.constant(3)) == s.constant(rational(1, 3)));
  CHECK(s.pow(s.constant(rational(2, 3)), -2) == s.constant(rational(9, 4)));
  CHECK(s.sqrt(s.constant(rational(9, 4))) == s.constant(rational(3, 2)));
  CHECK(s.kind_of(s.sqrt(s.constant(2))) == kind::sqrt);
  CHECK(s.exp(s.zero()) == s.one());
  CHECK(s.log(s.one()) == s.zero());
  CHECK(s.log(s.zero()) == s.infinity(true));
  CHECK(s.apply(term::function::abs, s.constant(-3)) == s.constant(3));
  CHECK(s.apply(term::function::cos, s.zero()) == s.one());
}

TEST_CASE("constant powers are bounded: the exponent, and the bits of the result") {
  store s;
  // 2^4096 has 4097 bits: folded exactly, and (2^64)^64 is the same constant.
  const term_id big = s.pow(s.constant(2), 4096);
  REQUIRE(s.is_constant(big));
  CHECK(s.value_of(big) == support::pow_int(rational(2), 4096));
  CHECK(s.pow(s.pow(s.constant(2), 64), 64) == big);
  // An exponent past 4096 at once, or a nested power whose result would pass 2^22 bits
  // ((2^4096)^4096 has 16,777,217 bits), is a term_error, before any number is built.
  CHECK_THROWS_AS(s.pow(s.constant(2), 4097), term::term_error);
  CHECK_THROWS_WITH_AS(s.pow(big, 4096), doctest::Contains("over the limit of 2^22"), term::term_error);
  // A power of a product's coefficient is bounded the same way: (2^4096 · x)^4096.
  const term_id x = s.input("x");
  CHECK_THROWS_AS(s.pow(s.mul(big, x), 4096), term::term_error);
  // Well inside the bound: (3^1000)^4 = 3^4000.
  CHECK(s.pow(s.pow(s.constant(3), 1000), 4) == s.pow(s.constant(3), 4000));
}

TEST_CASE("sums: flatten, sort, merge like terms, drop zeros") {
  store s;
  term_id x = s.input("x"), y = s.input("y");
  CHECK(s.add(x, s.neg(x)) == s.zero());
  CHECK(s.add(x, x) == s.scale(rational(2), x));
  CHECK(s.add(s.add(x, y), s.neg(y)) == x);
  CHECK(s.add(x, s.zero()) == x);
  CHECK(s.scale(rational(0), x) == s.zero());
  CHECK(s.scale(rational(1), x) == x);
  // Order of operands never matters.
  term_id a = s.add(s.add(x, y), s.constant(1)), b = s.add(s.constant(1), s.add(y, x));
  CHECK(a == b);
  CHECK(s.kind_of(a) == kind::add);
  CHECK(s.sum_constant(a) == rational(1));
  CHECK(s.sum_entries(a).size() == 2);
  // 3x + 2y − 3x = 2y (the coefficient lives in the product, not the sum).
  CHECK(s.add(s.add(s.scale(rational(3), x), s.scale(rational(2), y)), s.scale(rational(-3), x)) ==
        s.scale(rational(2), y));
}

TEST_CASE("products: merge exponents, coefficients, exponentials") {
  store s;
  term_id x = s.input("x"), y = s.input("y");
  CHECK(s.mul(x, s.inv(x)) == s.one());
  CHECK(s.mul(x, x) == s.pow(x, 2));
  CHECK(s.mul(s.pow(x, 2), s.pow(x, -2)) == s.one());
  CHECK(s.mul(x, s.zero()) == s.zero());
  CHECK(s.mul(x, s.one()) == x);
  CHECK(s.pow(x, 0) == s.one());
  CHECK(s.pow(s.pow(x, 2), 3) == s.pow(x, 6));
  CHECK(s.mul(s.scale(rational(2), x), s.scale(rational(3), y)) == s.scale(rational(6), s.mul(x, y)));
  // eᵃ·eᵇ = eᵃ⁺ᵇ and (eᵃ)ⁿ = eⁿᵃ
  CHECK(s.mul(s.exp(x), s.exp(y)) == s.exp(s.add(x, y)));
  CHECK(s.pow(s.exp(x), 3) == s.exp(s.scale(rational(3), x)));
  CHECK(s.mul(s.exp(x), s.exp(s.neg(x))) == s.one());
  CHECK(s.div(s.exp(x), s.exp(x)) == s.one());
}

TEST_CASE("exp and log cancel; infinities") {
  store s;
  term_id x = s.input("x");
  CHECK(s.log(s.exp(x)) == x);
  CHECK(s.exp(s.log(x)) == x);
  CHECK(s.exp(s.infinity(true)) == s.zero());
  CHECK(s.exp(s.infinity()) == s.infinity());
  CHECK(s.add(s.infinity(), x) == s.infinity());
  CHECK(s.add(s.infinity(true), s.constant(3)) == s.infinity(true));
  CHECK(s.scale(rational(-2), s.infinity()) == s.infinity(true));
  CHECK(s.mul(s.constant(3), s.inv(s.infinity())) == s.zero());
  CHECK_THROWS_AS(s.add(s.infinity(), s.infinity(true)), term::term_error);
  CHECK_THROWS_AS(s.mul(s.zero(), s.infinity()), term::term_error);
  CHECK_THROWS_AS(s.div(x, s.zero()), term::term_error);
  CHECK_THROWS_AS(s.log(s.constant(-1)), term::term_error);
  CHECK_THROWS_AS(s.sqrt(s.constant(-4)), term::term_error);
  // exp(x − ∞) = 0: the −∞ initial value of a running max.
  CHECK(s.exp(s.sub(x, s.infinity())) == s.zero());
}

TEST_CASE("extended reals: each rule, with the value worked out by hand") {
  store s;
  const term_id x = s.input("x"), y = s.input("y");
  const term_id pinf = s.infinity(), minf = s.infinity(true);
  const term_id ln2 = s.log(s.constant(2));
  // Sums: −∞ + finite = −∞, finite − (−∞) = +∞, also for a symbolic finite term.
  CHECK(s.add(minf, s.add(x, y)) == minf);
  CHECK(s.sub(x, minf) == pinf);
  CHECK(s.sub(minf, s.max(x, y)) == minf);  // m_i − m_ij with m_i = −∞
  // exp and exp2 (exp2(t) is exp(t · log 2) in the symbolic domain): exp(−∞) = 0, exp(+∞) = +∞.
  CHECK(s.exp(minf) == s.zero());
  CHECK(s.exp(s.mul(minf, ln2)) == s.zero());       // exp2(−∞) = 0
  CHECK(s.exp(s.mul(pinf, ln2)) == pinf);           // exp2(+∞) = +∞
  CHECK(s.exp(s.mul(s.sub(minf, x), ln2)) == s.zero());  // exp2(−∞ − x) = 0
  // log2(+∞) = log(∞) / log 2 = +∞: ∞ times 1/log 2 > 0.
  CHECK(s.div(s.log(pinf), ln2) == pinf);
  // max and min with −∞ / +∞.
  CHECK(s.max(minf, x) == x);
  CHECK(s.min(minf, x) == minf);
  CHECK(s.max(pinf, x) == pinf);
  CHECK(s.min(pinf, x) == x);
  // ∞ times a constant: the constant's sign.
  CHECK(s.mul(s.constant(-3), pinf) == minf);
  CHECK(s.mul(s.constant(rational(1, 8)), minf) == minf);
  // ∞ times a symbolic value whose sign holds for every input.
  CHECK(s.mul(pinf, s.exp(x)) == pinf);                              // e^x > 0
  CHECK(s.mul(minf, s.exp(x)) == minf);
  CHECK(s.mul(pinf, s.neg(s.exp(x))) == minf);                       // −e^x < 0
  CHECK(s.mul(pinf, ln2) == pinf);                                   // log 2 > 0
  CHECK(s.mul(pinf, s.log(s.constant(rational(1, 2)))) == minf);     // log ½ < 0
  CHECK(s.mul(minf, s.add(s.one(), s.exp(x))) == minf);              // 1 + e^x > 0
  CHECK(s.mul(pinf, s.sub(s.constant(-1), s.exp(x))) == minf);      // −1 − e^x < 0
  CHECK(s.mul(pinf, s.pow(s.exp(x), -1)) == pinf);                   // 1/e^x = e^−x > 0
  CHECK(s.mul(pinf, s.sqrt(s.exp(x))) == pinf);                      // √(e^x) > 0
  CHECK(s.mul(pinf, s.max(x, s.one())) == pinf);                     // max(x, 1) ≥ 1
  CHECK(s.mul(pinf, s.min(x, s.constant(-1))) == minf);              // min(x, −1) ≤ −1
  CHECK(s.mul(pinf, s.apply(term::function::tanh, s.exp(x))) == pinf);
  CHECK(s.mul(pinf, s.pow(s.sub(s.constant(-2), s.exp(x)), 2)) == pinf);  // a square of a value < 0
  CHECK(s.mul(minf, s.mul(s.exp(x), s.constant(-2))) == pinf);       // −∞ · (−2e^x)
  // Not determined: ∞ − ∞, 0·∞, and ∞ times a value that may be zero or change sign.
  CHECK_THROWS_AS(s.add(pinf, minf), term::term_error);
  CHECK_THROWS_AS(s.mul(s.zero(), minf), term::term_error);
  CHECK_THROWS_AS(s.mul(pinf, s.inv(pinf)), term::term_error);       // ∞/∞ = ∞ · 0
  CHECK_THROWS_AS(s.mul(pinf, x), term::term_error);
  CHECK_THROWS_AS(s.mul(minf, s.sub(x, y)), term::term_error);
  CHECK_THROWS_AS(s.mul(pinf, s.pow(x, 2)), term::term_error);       // x² is 0 at x = 0
  CHECK_THROWS_AS(s.mul(pinf, s.sqrt(x)), term::term_error);         // √x is 0 at x = 0
  CHECK_THROWS_AS(s.mul(pinf, s.apply(term::function::abs, x)), term::term_error);
  CHECK_THROWS_AS(s.mul(pinf, s.max(x, s.zero())), term::term_error);  // max(x, 0) may be 0
  CHECK_THROWS_AS(s.mul(pinf, s.sub(s.exp(x), s.one())), term::term_error);  // e^x − 1 changes sign
  CHECK_THROWS_AS(s.mul(pinf, s.apply(term::function::sin, s.exp(x))), term::term_error);
  CHECK_THROWS_AS(s.exp(s.mul(s.sub(minf, x), y)), term::term_error);  // exp((−∞)·y): y of either sign
  try {
    s.mul(pinf, x);
  } catch (const term::term_error& e) {
    CHECK(std::string(e.what()).find("unknown sign") != std::string::npos);
  }
  // The signs themselves.
  CHECK(s.strict_sign(s.exp(x)) == 1);
  CHECK(s.strict_sign(x) == 0);
  CHECK(s.strict_sign(s.constant(-5)) == -1);
  CHECK(s.strict_sign(s.zero()) == 0);
  CHECK(s.strict_sign(s.add(s.exp(x), s.exp(y))) == 1);
  CHECK(s.strict_sign(s.sub(s.exp(x), s.exp(y))) == 0);
  CHECK(s.strict_sign(s.mul(s.exp(x), s.constant(-1))) == -1);
}

TEST_CASE("max and min: identity elements, idempotence, flattening, constants") {
  store s;
  term_id x = s.input("x"), y = s.input("y"), z = s.input("z");
  CHECK(s.max(s.infinity(true), x) == x);
  CHECK(s.min(s.infinity(), x) == x);
  CHECK(s.max(s.infinity(), x) == s.infinity());
  CHECK(s.min(s.infinity(true), x) == s.infinity(true));
  CHECK(s.max(x, x) == x);
  CHECK(s.max(x, y) == s.max(y, x));
  CHECK(s.max(s.max(x, y), z) == s.max(x, s.max(y, z)));
  CHECK(s.max(s.max(x, y), x) == s.max(x, y));
  CHECK(s.args(s.max(s.max(x, y), z)).size() == 3);
  CHECK(s.max(s.constant(1), s.constant(3)) == s.constant(3));
  CHECK(s.min(s.constant(1), s.constant(3)) == s.constant(1));
  CHECK(s.max(s.max(x, s.constant(1)), s.constant(3)) == s.max(x, s.constant(3)));
  CHECK(s.max(x, y) != s.min(x, y));
  // A running max started at −∞, the way kernels compute it.
  term_id m = s.infinity(true);
  for (term_id v : {x, y, z, y}) m = s.max(m, v);
  CHECK(m == s.max(std::vector<term_id>{z, y, x}));
}

TEST_CASE("max and min: a max merged into another's list is the node of the flat list") {
  // extremum merges the other arguments into the longest nested max's sorted list instead of
  // sorting everything again: the node must be the one a flat list gives.
  store s;
  std::vector<term_id> xs;
  for (std::uint32_t i = 0; i < 40; ++i) xs.push_back(i % 3 == 0 ? s.exp(s.input("x", {i})) : s.input("x", {i}));
  for (bool is_max : {true, false}) {
    auto ext = [&](std::vector<term_id> v) { return is_max ? s.max(v) : s.min(v); };
    std::vector<term_id> all = xs;
    all.push_back(s.constant(is_max ? 2 : -2));
    const term_id flat = ext(all);
    // Two running extrema over the even and the odd elements (the odd one holding a constant,
    // which sorts first), met with an element again and the constant that wins.
    term_id even = s.infinity(is_max), odd = s.constant(is_max ? 1 : -1);
    for (std::uint32_t i = 40; i-- > 0;)
      if (i % 2 == 0) even = ext({even, xs[i]});
    for (std::uint32_t i = 0; i < 40; ++i)
      if (i % 2 == 1) odd = ext({odd, xs[i]});
    CHECK(s.args(even).size() == 20);
    CHECK(s.args(odd).size() == 21);
    CHECK(ext({xs[5], even, s.constant(is_max ? 2 : -2), odd}) == flat);
    CHECK(ext({odd, xs[6], even}) == ext({even, odd, xs[6]}));
    auto a = s.args(flat);
    REQUIRE(a.size() == 41);
    CHECK(a[0] == s.constant(is_max ? 2 : -2));
    for (std::size_t k = 1; k < a.size(); ++k) CHECK(s.before(a[k - 1], a[k]));
  }
}

TEST_CASE("opaque functions are atoms over canonical arguments") {
  store s;
  term_id x = s.input("x"), y = s.input("y");
  CHECK(s.apply(term::function::tanh, s.add(x, y)) == s.apply(term::function::tanh, s.add(y, x)));
  term_id ax = s.apply(term::function::abs, x);
  CHECK(s.apply(term::function::abs, ax) == ax);
  CHECK(s.apply(term::function::tanh, s.infinity()) == s.one());
  CHECK(s.apply(term::function::erf, s.infinity(true)) == s.minus_one());
  CHECK_THROWS_AS(s.apply(term::function::sin, s.infinity()), term::term_error);
}

TEST_CASE("large chains stay shared and shallow to build") {
  store s;
  term_id acc = s.zero();
  for (std::uint32_t i = 0; i < 20000; ++i) acc = s.fma(s.input("a", {i}), s.input("b", {i}), acc);
  store t;
  term_id acc2 = t.zero();
  for (std::uint32_t i = 20000; i-- > 0;) acc2 = t.fma(t.input("a", {i}), t.input("b", {i}), acc2);
  // Different build orders give structurally different chunkings, but every node is canonical.
  CHECK(s.kind_of(acc) == kind::add);
  CHECK(t.kind_of(acc2) == kind::add);
}

TEST_CASE("the parser builds through the smart constructors") {
  store s;
  CHECK(P(s, "x + y - x") == s.input("y"));
  CHECK(P(s, "exp(a)*exp(b)") == P(s, "exp(b + a)"));
  CHECK(P(s, "max(x, -inf)") == s.input("x"));
  CHECK(P(s, "rsqrt(x)") == s.inv(s.sqrt(s.input("x"))));
  CHECK(P(s, "q[2][5]") == s.input("q", {2, 5}));
}
