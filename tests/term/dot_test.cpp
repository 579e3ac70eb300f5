// Long sums of products built at once (store::sum_of) and the dot node that holds their products
// without a term each: the dot means the add of its products, every reader (normal forms,
// fingerprints, evaluation, printing, import) treats it so, and equal sums meet as one id.
#include <doctest/doctest.h>

#include <gpueq/canon.hpp>
#include <gpueq/term/print.hpp>
#include <gpueq/term/store.hpp>

#include <algorithm>
#include <random>
#include <vector>

using namespace gpueq;
using term::summand;
using term::term_id;

namespace {

std::vector<summand> products(term::store& s, std::uint32_t n, std::uint32_t first = 0) {
  std::vector<summand> xs;
  for (std::uint32_t i = first; i < first + n; ++i) xs.push_back({s.input("a", {i}), s.input("b", {i})});
  return xs;
}

term_id materialized(term::store& s, std::span<const summand> xs) {
  std::vector<term_id> ts;
  for (auto x : xs) ts.push_back(x.b == term::no_term ? x.a : s.mul(x.a, x.b));
  return s.add(ts);
}

bool equal(term::store& s, term_id a, term_id b) { return canon::decide(s, a, b).kind == canon::verdict_kind::equal; }

}  // namespace

TEST_CASE("sum_of: more than flatten_limit products become a dot; fewer are an add as before") {
  term::store s;
  auto few = products(s, 16);
  term_id a = s.sum_of(few);
  CHECK(s.kind_of(a) == term::kind::add);
  CHECK(a == materialized(s, few));  // the same term, not only an equal one
  auto many = products(s, 17);
  term_id d = s.sum_of(many);
  REQUIRE(s.kind_of(d) == term::kind::dot);
  CHECK(s.dot_entries(d).size() == 17);
  term_id m = materialized(s, many);
  CHECK(d != m);
  CHECK(s.dot_as_sum(d) == m);
  CHECK(equal(s, d, m));
  CHECK(canon::decide(s, d, materialized(s, products(s, 16))).kind == canon::verdict_kind::different);
}

TEST_CASE("sum_of: the dot does not depend on the order of the summands or of the factors") {
  term::store s;
  auto xs = products(s, 200);
  term_id d = s.sum_of(xs);
  std::mt19937 rng(7);
  for (int round = 0; round < 5; ++round) {
    std::shuffle(xs.begin(), xs.end(), rng);
    for (auto& x : xs)
      if (rng() % 2) std::swap(x.a, x.b);
    CHECK(s.sum_of(xs) == d);
  }
  // A product term as a summand alone is the same entry as its two factors.
  xs[0] = {s.mul(xs[0].a, xs[0].b)};
  CHECK(s.sum_of(xs) == d);
}

TEST_CASE("sum_of: like products merge, cancelled ones go, coefficients and squares are kept") {
  term::store s;
  auto xs = products(s, 20);
  auto doubled = xs;
  doubled.insert(doubled.end(), xs.begin(), xs.end());
  CHECK(equal(s, s.sum_of(doubled), s.scale(2, s.sum_of(xs))));
  // Cancel 10 of 20: 10 remain, at most flatten_limit, so the result is the add of them.
  auto cancel = xs;
  for (std::uint32_t i = 0; i < 10; ++i) cancel.push_back({s.neg(xs[i].a), xs[i].b});
  term_id c = s.sum_of(cancel);
  CHECK(s.kind_of(c) == term::kind::add);
  CHECK(c == materialized(s, std::vector<summand>(xs.begin() + 10, xs.end())));
  // Coefficients on either factor, and a square.
  std::vector<summand> ys = products(s, 18);
  ys.push_back({s.scale(3, s.input("a", {0})), s.scale(support::rational(1, 2), s.input("b", {5}))});
  ys.push_back({s.input("q", {1}), s.input("q", {1})});
  term_id d = s.sum_of(ys);
  REQUIRE(s.kind_of(d) == term::kind::dot);
  CHECK(equal(s, d, materialized(s, ys)));
  CHECK(term::to_string(s, d).find("q[1]^2") != std::string::npos);
}

TEST_CASE("sum_of: what is not a product of two dot factors stays outside the dot") {
  term::store s;
  auto xs = products(s, 20);
  term_id x = s.input("x", {0}), y = s.input("y", {0});
  xs.push_back({s.exp(x), s.exp(y)});                       // e^x·e^y merges: e^(x+y)
  xs.push_back({s.add(x, s.constant(1)), y});                // a sum factor
  xs.push_back({x});                                         // a linear term
  xs.push_back({s.constant(5)});                             // a constant
  xs.push_back({s.mul(std::vector<term_id>{x, y, s.input("z", {0})})});  // three factors
  term_id r = s.sum_of(xs);
  REQUIRE(s.kind_of(r) == term::kind::add);
  std::size_t dots = 0;
  for (auto e : s.sum_entries(r)) dots += s.kind_of(e.term) == term::kind::dot;
  CHECK(dots == 1);
  CHECK(s.sum_constant(r) == 5);
  CHECK(equal(s, r, materialized(s, xs)));
  // e^x times an input is a dot entry; its product is e^x·v.
  std::vector<summand> es;
  for (std::uint32_t i = 0; i < 20; ++i) es.push_back({s.exp(s.input("x", {i})), s.input("v", {i})});
  term_id d = s.sum_of(es);
  CHECK(s.kind_of(d) == term::kind::dot);
  CHECK(equal(s, d, materialized(s, es)));
}

TEST_CASE("sum_of: a short sum among the summands gives its entries (a bias, a partial sum)") {
  term::store s;
  auto xs = products(s, 30);
  // acc = bias; acc += a[i]·b[i]: the first step is a closed sum bias + a[0]·b[0].
  term_id bias = s.input("bias");
  std::vector<summand> started{{s.add(bias, s.mul(xs[0].a, xs[0].b))}};
  started.insert(started.end(), xs.begin() + 1, xs.end());
  std::vector<summand> at_end(xs.begin(), xs.end());
  at_end.push_back({bias});
  term_id a = s.sum_of(started), b = s.sum_of(at_end);
  CHECK(a == b);  // one dot of all 30 products, plus the bias
  REQUIRE(s.kind_of(a) == term::kind::add);
  CHECK(s.sum_entries(a).size() == 2);
  // and with a coefficient on the short sum's entries: 2·(a[0]·b[0] + 3) + …
  std::vector<summand> scaled{{s.scale(2, s.add(s.mul(xs[0].a, xs[0].b), s.constant(3)))}};
  scaled.insert(scaled.end(), xs.begin() + 1, xs.end());
  term_id c = s.sum_of(scaled);
  std::vector<summand> expected(xs.begin(), xs.end());
  expected.push_back({xs[0].a, s.mul(xs[0].b, s.constant(1))});  // a second a[0]·b[0]
  expected.push_back({s.constant(6)});
  CHECK(c == s.sum_of(expected));
}

TEST_CASE("dot: fingerprints, evaluation and printing read it as the sum of its products") {
  term::store s;
  auto xs = products(s, 40);
  xs.push_back({s.scale(-2, s.input("a", {3})), s.input("c", {0})});
  term_id d = s.sum_of(xs), m = materialized(s, xs);
  REQUIRE(s.kind_of(d) == term::kind::dot);
  canon::fingerprinter fp(s, 11);
  auto fd = fp(d), fm = fp(m);
  CHECK(fd.p == fm.p);
  CHECK(std::uint64_t{fd.q} == std::uint64_t{fm.q});
  canon::evaluator<double> ev(s, [](term_id) { return support::rational(3, 7); });
  canon::evaluator<double> ev2(s, [](term_id) { return support::rational(3, 7); });
  REQUIRE(ev(d).has_value());
  CHECK(*ev(d) == doctest::Approx(*ev2(m)));
  CHECK(term::to_string(s, d) == term::to_string(s, m));
  // A dot's text parses back to the add of its products (an equal term).
  term::store fresh;
  CHECK(term::to_string(fresh, term::parse(fresh, term::to_string(s, d))) == term::to_string(s, d));
}

TEST_CASE("dot: import into a store that made the inputs in another order gives the same sum") {
  term::store a, b;
  // b makes the inputs in reverse order: its ids order the entries differently.
  for (std::uint32_t i = 60; i-- > 0;) (void)b.input("b", {i}), (void)b.input("a", {i});
  auto xs = products(a, 60);
  term_id da = a.sum_of(xs);
  std::vector<term_id> memo;
  term_id db = b.import(a, da, memo);
  REQUIRE(b.kind_of(db) == term::kind::dot);
  CHECK(db == b.sum_of(products(b, 60)));
  CHECK(term::to_string(b, db) == term::to_string(a, da));
  // and inside a larger term
  term_id outer = a.exp(a.add(da, a.input("x", {0})));
  CHECK(term::to_string(b, b.import(a, outer, memo)) == term::to_string(a, outer));
}

TEST_CASE("dot: unit dots import whole, in part over factors imported before, and in kept order") {
  // store::import's unit-dot path: it maps and builds a dot in one pass when every factor is
  // mapped already, and otherwise imports the missing factors first.
  term::store a, b;
  // b makes some of the inputs first, interleaved and in reverse, so its ids order them differently;
  // a[60..90) and b[60..90) it meets only through the second import.
  for (std::uint32_t i = 60; i-- > 0;) (void)b.input(i % 2 ? "a" : "b", {i}), (void)b.input(i % 2 ? "b" : "a", {i});
  term_id d1 = a.sum_of(products(a, 60)), d2 = a.sum_of(products(a, 60, 30));
  std::vector<term_id> memo;
  term_id i1 = b.import(a, d1, memo);
  term_id i2 = b.import(a, d2, memo);  // a[30..60), b[30..60) mapped already, the rest not
  REQUIRE(b.kind_of(i2) == term::kind::dot);
  CHECK(i1 == b.sum_of(products(b, 60)));
  CHECK(i2 == b.sum_of(products(b, 60, 30)));
  CHECK(b.import(a, d2, memo) == i2);  // memoized
  // Into a store whose ids order the factors as a's do (a fresh store importing a's inputs in
  // a's order): the pairs keep their order, and the result is still the dot b builds.
  term::store c;
  std::vector<term_id> memo_c;
  term_id ci = c.import(a, d1, memo_c);
  CHECK(ci == c.sum_of(products(c, 60)));
  CHECK(term::to_string(c, ci) == term::to_string(a, d1));
  // The hash the import passes on is the structural one (make() checks it with invariants on).
  CHECK(c.hash_of(ci) == a.hash_of(d1));
}

TEST_CASE("dot: import from a fork keeps the ids both stores share and maps the rest") {
  term::store s;
  auto shared = products(s, 40);  // a[0..40), b[0..40) exist before the fork
  term_id before = s.sum_of(shared);
  term::store fork(s);
  // The origin grows after the fork: ids it makes now mean other terms in the fork.
  term_id later = s.exp(s.input("later", {7}));
  // The fork builds a dot over shared inputs and inputs of its own, with a new constant and a new
  // tensor name, and a term that existed at the fork.
  auto xs = products(fork, 40, 20);  // a[20..60): half shared, half new in the fork
  xs.push_back({fork.constant(support::rational(3, 5)), fork.input("only_in_fork", {1})});
  term_id d = fork.sum_of(xs);
  term_id e = fork.exp(fork.add(d, fork.input("later", {7})));
  std::vector<term_id> memo;
  CHECK(s.import(fork, before, memo) == before);  // existed at the fork: itself, nothing made
  const std::size_t size = s.size();
  term_id di = s.import(fork, d, memo);
  term_id ei = s.import(fork, e, memo);
  CHECK(s.size() > size);
  // The same terms as building them in the origin (hash-consing finds them again).
  auto ys = products(s, 40, 20);
  ys.push_back({s.constant(support::rational(3, 5)), s.input("only_in_fork", {1})});
  CHECK(di == s.sum_of(ys));
  CHECK(ei == s.exp(s.add(s.sum_of(ys), s.input("later", {7}))));
  CHECK(s.kind_of(s.arg(later)) == term::kind::input);
  CHECK(term::to_string(s, ei) == term::to_string(fork, e));
  // A dot the fork made over shared inputs only (its slots are the origin's own): made here from
  // them as they are, and found again by building it here.
  term_id only_shared = fork.sum_of(products(fork, 30, 5));
  term_id osi = s.import(fork, only_shared, memo);
  REQUIRE(s.kind_of(osi) == term::kind::dot);
  CHECK(osi == s.sum_of(products(s, 30, 5)));
  CHECK(term::to_string(s, osi) == term::to_string(fork, only_shared));
}

TEST_CASE("dot: import_all gives each root the term import gives, with the lookups on two threads") {
  // A multi-worker check's import (store::import_all): a fork makes its inputs in its own order
  // after the fork, and builds long unit dots, one the origin has too, one it does not, under a
  // larger term, beside a short sum and an input alone.
  term::store s;
  term::store w(s);
  for (std::uint32_t i = 0; i < 40; ++i) (void)s.input("a", {i}), (void)s.input("b", {i});
  term_id in_both = s.sum_of(products(s, 40));
  for (std::uint32_t i = 50; i-- > 0;) (void)w.input(i % 3 ? "b" : "a", {i}), (void)w.input(i % 3 ? "a" : "b", {i});
  const term_id x = w.input("x", {0});
  std::vector<term_id> roots = {
      w.sum_of(products(w, 40)),                                 // in_both
      w.add(w.sum_of(products(w, 30, 20)), x),                   // a dot s lacks, in a sum
      w.exp(w.sum_of(products(w, 25, 10))),                      // another, under exp
      w.sum_of(products(w, 3)),                                  // short: an add
      w.input("a", {45}),                                        // a leaf only the fork has
      w.sum_of(products(w, 40)),                                 // a root twice
  };
  REQUIRE(w.kind_of(roots[0]) == term::kind::dot);
  const std::vector<term_id> from_w = roots;
  std::vector<term_id> memo;
  s.import_all(w, roots, memo, 2);
  CHECK(roots[0] == in_both);
  CHECK(roots[5] == in_both);
  // The same terms as building them here (hash-consing finds them again) ...
  CHECK(roots[1] == s.add(s.sum_of(products(s, 30, 20)), s.input("x", {0})));
  CHECK(roots[2] == s.exp(s.sum_of(products(s, 25, 10))));
  CHECK(roots[3] == s.sum_of(products(s, 3)));
  CHECK(roots[4] == s.input("a", {45}));
  // ... and as import one by one, with a memo of its own.
  std::vector<term_id> one_by_one;
  for (std::size_t i = 0; i < roots.size(); ++i) {
    CAPTURE(i);
    CHECK(s.import(w, from_w[i], one_by_one) == roots[i]);
    CHECK(term::to_string(s, roots[i]) == term::to_string(w, from_w[i]));
  }
  // Nothing to import: the roots stay.
  std::vector<term_id> none;
  s.import_all(w, std::span<term_id>(none), memo, 2);
  CHECK(none.empty());
}

TEST_CASE("dot: normal forms read its products in every position a dot can take") {
  // The normal forms fold each product of a dot into one term of the accumulator that reads it
  // (no term is made for it): at the root, as an entry of a sum, under exp, as a factor, with
  // exponential and squared factors, and with a factor whose form is not one term.
  term::store s;
  auto xs = products(s, 24);
  term_id x = s.input("x", {0}), y = s.input("y", {0});
  xs.push_back({s.exp(x), s.input("v", {0})});
  xs.push_back({s.input("a", {1}), s.input("a", {1})});       // a[1]²
  // max(P, P') of two equal polynomials written apart: a dot factor whose form is P, not one term
  term_id one = s.constant(1);
  term_id p1 = s.mul(s.add(x, one), s.add(y, one)), p2 = s.add(std::vector<term_id>{s.mul(x, y), x, y, one});
  REQUIRE(p1 != p2);
  xs.push_back({s.max(p1, p2), s.input("w", {0})});
  term_id d = s.sum_of(xs), m = materialized(s, xs);
  REQUIRE(s.kind_of(d) == term::kind::dot);
  term_id b = s.input("bias");
  const std::pair<term_id, term_id> uses[] = {
      {d, m},
      {s.add(d, b), s.add(m, b)},
      {s.exp(s.scale(support::rational(1, 8), d)), s.exp(s.scale(support::rational(1, 8), m))},
      {s.mul(d, s.add(x, b)), s.mul(m, s.add(x, b))},
      {s.div(b, d), s.div(b, m)},
      {s.add(s.mul(d, d), s.exp(x)), s.add(s.mul(m, m), s.exp(x))},
  };
  for (auto [with_dot, with_sum] : uses) {
    CAPTURE(term::to_string(s, with_sum).substr(0, 80));
    CHECK(equal(s, with_dot, with_sum));
    CHECK(canon::decide(s, with_dot, s.add(with_sum, s.mul(x, y))).kind == canon::verdict_kind::different);
  }
  // Fresh normal forms per side: a dot met first and a sum met first give the same form.
  canon::normal_forms nf1(s), nf2(s);
  CHECK(nf1.to_term(nf1.of(d)) == nf2.to_term(nf2.of(m)));
}

TEST_CASE("dot: coefficients all 1 are stored as (x, y) pairs, others as triples; one term either way") {
  term::store s;
  auto xs = products(s, 40);
  term_id unit = s.sum_of(xs);
  REQUIRE(s.kind_of(unit) == term::kind::dot);
  CHECK(s.slots(unit).size() == 2 * 40);  // two words a product
  CHECK(s.dot_entries(unit).size() == 40);
  for (auto e : s.dot_entries(unit)) CHECK(e.coefficient == term::store::one_index);
  // One coefficient 2 (2·a[0]·b[0]): three words a product, the 2 read back.
  auto ys = xs;
  ys[0] = {s.scale(support::rational(2), ys[0].a), ys[0].b};
  term_id general = s.sum_of(ys);
  REQUIRE(s.kind_of(general) == term::kind::dot);
  CHECK(s.slots(general).size() == 3 * 40);
  std::size_t twos = 0;
  for (auto e : s.dot_entries(general)) twos += s.constant_value(e.coefficient) == support::rational(2);
  CHECK(twos == 1);
  CHECK(general != unit);
  CHECK(equal(s, general, s.add(unit, s.mul(xs[0].a, xs[0].b))));
  // Entries that merge back to coefficient 1 (a·b + a·b − a·b) give the unit dot itself.
  auto zs = xs;
  zs.push_back(xs[0]);
  zs.push_back({s.scale(support::rational(-1), xs[0].a), xs[0].b});
  CHECK(s.sum_of(zs) == unit);
  // The children (x then y of each entry) and the evaluation read both representations alike.
  CHECK(s.child_count(unit) == 80);
  CHECK(s.child(unit, 1) == std::max(xs[0].a, xs[0].b));
  CHECK(s.child_count(general) == 80);
  CHECK(equal(s, unit, materialized(s, xs)));
  CHECK(equal(s, general, materialized(s, ys)));
  // Imported into another store: the same representation, the same text.
  term::store t;
  std::vector<term_id> memo;
  term_id ui = t.import(s, unit, memo), gi = t.import(s, general, memo);
  CHECK(t.slots(ui).size() == 80);
  CHECK(t.slots(gi).size() == 120);
  CHECK(term::to_string(t, gi) == term::to_string(s, general));
}

// The plain tail of sum_of (exec/symbolic.hpp notes it at append): summands known to be plain pairs,
// with their pair hashes summed by the caller, give the very term the plain sum_of gives, since
// make() looks the node up by that hash (and, with invariants on, as the tests run, checks it
// against the structural one). A tail with a repeated pair merges, so its sum is not the dot's
// hash and must not be used.
TEST_CASE("sum_of with a plain tail: the same term as without it; merged entries ignore the hint") {
  auto hash_of = [](const term::store& s, std::span<const summand> xs) {
    std::uint64_t h = 0;
    for (auto x : xs) h += s.pair_hash(x.a, x.b);
    return h;
  };
  term::store s;
  auto xs = products(s, 200);
  CHECK(s.plain_pair(xs[0].a, xs[0].b));
  term_id hinted = s.sum_of(xs, 0, hash_of(s, xs));
  REQUIRE(s.kind_of(hinted) == term::kind::dot);
  CHECK(hinted == s.sum_of(xs));
  // A first entry alone (a product term, as an accumulation started from a·b is), then the tail.
  std::vector<summand> started = products(s, 100, 300);
  started.insert(started.begin(), summand{s.mul(s.input("a", {299}), s.input("b", {299})), term::no_term});
  term_id with_prefix = s.sum_of(started, 1, hash_of(s, std::span<const summand>(started).subspan(1)));
  CHECK(with_prefix == s.sum_of(started));
  CHECK(s.dot_entries(with_prefix).size() == 101);
  // A repeated pair: 2·a5·b5 in the dot, whose hash is not the tail's sum.
  std::vector<summand> repeated = products(s, 50, 500);
  repeated.push_back(repeated[5]);
  term_id merged = s.sum_of(repeated, 0, hash_of(s, repeated));
  CHECK(merged == s.sum_of(repeated));
  CHECK(s.dot_entries(merged).size() == 50);
  // Two exponentials are no plain pair (they merge into one exponential).
  term_id e1 = s.exp(s.input("a", {0})), e2 = s.exp(s.input("b", {0}));
  CHECK_FALSE(s.plain_pair(e1, e2));
  CHECK(s.plain_pair(e1, s.input("b", {0})));
}
