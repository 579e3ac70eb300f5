// The symbolic domain's open sums (exec/symbolic.hpp): accumulation appends to a buffer instead of
// building terms, and a sum becomes a term when something other than accumulation reads it. These
// tests hold the working form to the meaning of values: every value finishes to the term that the
// store's own arithmetic gives (or one canon proves equal), whatever happened to the buffers since.
#include <doctest/doctest.h>

#include <gpueq/canon.hpp>
#include <gpueq/exec/symbolic.hpp>

#include <vector>

using namespace gpueq;
using sym = exec::symbolic_domain;

namespace {

struct open_sum_fixture {
  term::store s;
  sym d{s};
  sym::real in(const char* name, std::uint32_t i) { return sym::of(s.input(name, {i})); }
  sym::real fma(sym::real a, sym::real b, sym::real c) {
    sym::real x[3] = {a, b, c};
    return d.arith(exec::aop::fma, x, exec::rkind::f32, {});
  }
  sym::real op(exec::aop o, sym::real a, sym::real b) {
    sym::real x[2] = {a, b};
    return d.arith(o, x, exec::rkind::f32, {});
  }
  // Σ_{i<n} a[i]·b[i] accumulated from `acc` as a kernel's loop does.
  sym::real dot(std::uint32_t first, std::uint32_t n, sym::real acc) {
    for (std::uint32_t i = first; i < first + n; ++i) acc = fma(in("a", i), in("b", i), acc);
    return acc;
  }
  // The same sum built by the store's arithmetic directly, as one flat sum.
  term::term_id expected(std::uint32_t first, std::uint32_t n) {
    std::vector<term::term_id> products;
    for (std::uint32_t i = first; i < first + n; ++i) products.push_back(s.mul(s.input("a", {i}), s.input("b", {i})));
    return s.add(products);
  }
  bool equal(term::term_id a, term::term_id b) { return canon::decide(s, a, b).kind == canon::verdict_kind::equal; }
};

}  // namespace

TEST_CASE("open sums: an accumulation stays open and finishes to the sum of its products") {
  open_sum_fixture f;
  for (std::uint32_t n : {1u, 2u, 16u, 17u, 300u}) {
    CAPTURE(n);
    sym::real acc = f.dot(0, n, sym::of(f.s.zero()));
    CHECK(acc.open() == (n >= 2));  // the first product is a term; the second starts the sum
    CHECK(f.equal(f.d.finish(acc), f.expected(0, n)));
  }
  // Short sums finish to exactly the term the store builds (same id, not only an equal value).
  f.d.end_run();
  CHECK(f.d.finish(f.dot(0, 5, sym::of(f.s.zero()))) == f.expected(0, 5));
}

TEST_CASE("open sums: values stay values when one partial sum is continued twice") {
  open_sum_fixture f;
  sym::real p = f.dot(0, 10, sym::of(f.s.zero()));
  sym::real q1 = f.fma(f.in("x", 0), f.in("y", 0), p);  // appends in place
  sym::real q2 = f.fma(f.in("x", 1), f.in("y", 1), p);  // p is no longer the buffer's end: continues from p's term
  sym::real q3 = f.fma(f.in("x", 2), f.in("y", 2), q1);
  term::term_id base = f.expected(0, 10);
  auto xy = [&](std::uint32_t i) { return f.s.mul(f.s.input("x", {i}), f.s.input("y", {i})); };
  CHECK(f.equal(f.d.finish(p), base));
  CHECK(f.equal(f.d.finish(q1), f.s.add(base, xy(0))));
  CHECK(f.equal(f.d.finish(q2), f.s.add(base, xy(1))));
  CHECK(f.equal(f.d.finish(q3), f.s.add(f.s.add(base, xy(0)), xy(2))));
  // and p itself, read again after all that, is still the ten products
  CHECK(f.d.finish(p) == f.d.finish(p));
  CHECK(f.equal(f.d.finish(p), base));
}

TEST_CASE("open sums: partial sums added together become one sum, in any order") {
  open_sum_fixture f;
  // Four interleaved partial sums (a split-K loop), then a pairwise tree over them.
  std::vector<sym::real> part(4, sym::of(f.s.zero()));
  for (std::uint32_t i = 0; i < 64; ++i) part[i % 4] = f.fma(f.in("a", i), f.in("b", i), part[i % 4]);
  sym::real tree = f.op(exec::aop::add, f.op(exec::aop::add, part[0], part[1]), f.op(exec::aop::add, part[2], part[3]));
  sym::real chain = f.dot(0, 64, sym::of(f.s.zero()));
  // The same flat sum: equal ids, no decision needed.
  CHECK(f.d.finish(tree) == f.d.finish(chain));
  // A sum added to itself, and a difference of open sums.
  sym::real twice = f.op(exec::aop::add, chain, chain);
  CHECK(f.equal(f.d.finish(twice), f.s.scale(2, f.expected(0, 64))));
  sym::real low = f.dot(0, 20, sym::of(f.s.zero())), high = f.dot(20, 44, sym::of(f.s.zero()));
  CHECK(f.equal(f.d.finish(f.op(exec::aop::sub, chain, high)), f.expected(0, 20)));
  CHECK(f.equal(f.d.finish(f.op(exec::aop::sub, chain, low)), f.expected(20, 44)));
}

TEST_CASE("open sums: constants, cancellation and infinities keep their meaning") {
  open_sum_fixture f;
  sym::real x = f.in("x", 0), y = f.in("x", 1);
  sym::real s = f.op(exec::aop::add, x, y);  // open
  REQUIRE(s.open());
  sym::real z = f.op(exec::aop::sub, f.op(exec::aop::sub, s, x), y);  // x + y − x − y
  CHECK(f.d.integer(z) == 0);
  CHECK(f.d.compare(exec::cmp_op::eq, z, sym::of(f.s.zero()), exec::rkind::f32) == true);
  CHECK(f.d.float_bits(z, exec::rkind::f32) == 0u);
  // An open sum is not a constant: comparisons stay undecided, conversions to integers fail.
  CHECK(!f.d.compare(exec::cmp_op::lt, s, sym::of(f.s.zero()), exec::rkind::f32).has_value());
  CHECK_THROWS_AS(f.d.convert(s, exec::rkind::f32, exec::rkind::integer, {}), exec::domain_error);
  // −∞ absorbs a sum; ∞ − ∞ fails at the operation that forms it, not when the sum is read.
  sym::real minf = sym::of(f.s.infinity(true)), pinf = sym::of(f.s.infinity(false));
  sym::real m = f.op(exec::aop::add, s, minf);
  CHECK(f.d.finish(m) == f.s.infinity(true));
  CHECK_THROWS(f.op(exec::aop::add, m, pinf));
  CHECK_THROWS(f.fma(pinf, x, s));  // ∞ times a symbolic value has no known sign
  // Online softmax in base 2 (Triton, FlashAttention): alpha = exp2(m_i − m_ij) with m_i = −∞ and
  // m_ij a finite symbolic running max is 0, and exp2(+∞) = +∞; exp2(−∞ · y) for a y of
  // unknown sign stays an error.
  sym::real running = f.op(exec::aop::max, minf, x);
  CHECK(f.d.finish(running) == f.d.finish(x));
  sym::real diff[1] = {f.op(exec::aop::sub, minf, running)};
  CHECK(f.d.finish(f.d.arith(exec::aop::exp2, diff, exec::rkind::f32, {})) == f.s.zero());
  sym::real up[1] = {f.op(exec::aop::sub, x, minf)};
  CHECK(f.d.finish(f.d.arith(exec::aop::exp2, up, exec::rkind::f32, {})) == f.s.infinity());
  sym::real twice[1] = {f.op(exec::aop::add, diff[0], diff[0])};
  CHECK(f.d.finish(f.d.arith(exec::aop::exp, twice, exec::rkind::f32, {})) == f.s.zero());
  CHECK_THROWS(f.op(exec::aop::mul, diff[0], y));
  // Max and exp read an open sum as its term.
  sym::real e = sym::of(f.s.exp(f.d.finish(s)));
  sym::real e2[1] = {s};
  CHECK(f.d.finish(f.d.arith(exec::aop::exp, e2, exec::rkind::f32, {})) == f.d.finish(e));
}

TEST_CASE("open sums: equal values have equal identities, open or closed") {
  open_sum_fixture f;
  sym::real acc = f.dot(0, 40, sym::of(f.s.zero()));
  term::term_id t = f.d.finish(acc);
  CHECK(f.d.identity(acc) == f.d.identity(sym::of(t)));
  CHECK(f.d.same(acc, sym::of(t)));
  CHECK(f.d.show(acc) == term::to_string(f.s, t));
}

TEST_CASE("open sums: reading a growing sum after every step costs the steps, not their square") {
  // A shared-memory accumulator whose every store the race context identifies: read (closed)
  // after each of n appends. Each close continues from the previous one, so the store grows by a
  // bounded number of terms per step; the value is the whole sum.
  open_sum_fixture f;
  const std::uint32_t n = 3000;
  sym::real acc = sym::of(f.s.zero());
  std::size_t before = f.s.size();
  for (std::uint32_t i = 0; i < n; ++i) {
    acc = f.fma(f.in("a", i), f.in("b", i), acc);
    (void)f.d.identity(acc);
  }
  std::size_t per_step = (f.s.size() - before) / n;
  CHECK(per_step <= 6);  // inputs a[i], b[i], the product, and a bounded number of sums
  CHECK(f.equal(f.d.finish(acc), f.expected(0, n)));
}

TEST_CASE("open sums: values finished before end_run stay terms after it; buffers are reused") {
  open_sum_fixture f;
  term::term_id first = f.d.finish(f.dot(0, 50, sym::of(f.s.zero())));
  f.d.end_run();
  sym::real again = f.dot(0, 50, sym::of(f.s.zero()));
  CHECK(again.t == 0);  // buffer 0 again: the pool gave its storage back
  CHECK(f.d.finish(again) == first);
  CHECK(f.equal(first, f.expected(0, 50)));
}
