// Laws of the smart constructors, on random expressions:
//  - soundness: the canonical term has the value of the expression it was built from (evaluated
//    directly, without the store) at random real points;
//  - order-insensitivity: shuffling the operands of sums, products, max and min gives the same id;
//  - determinism: building in a fresh store (with unrelated terms created first) prints the same.
#include <gpueq/canon/evaluate.hpp>
#include <gpueq/term.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

using namespace gpueq;
using term::rational;
using term::store;
using term::term_id;

namespace {

// A plain expression tree, independent of the store.
struct expr {
  enum op { input, constant, add, mul, inv, exp, max, min, tanh } k;
  std::uint32_t index = 0;  // input
  long long num = 0, den = 1;  // constant
  std::vector<std::shared_ptr<expr>> args;
};
using expr_ptr = std::shared_ptr<expr>;

expr_ptr random_expr(std::mt19937_64& rng, int depth) {
  auto e = std::make_shared<expr>();
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  if (depth == 0 || pick(5) == 0) {
    if (pick(3) == 0) {
      e->k = expr::constant;
      e->num = pick(7) - 3;
      e->den = pick(3) + 1;
    } else {
      e->k = expr::input;
      e->index = static_cast<std::uint32_t>(pick(4));
    }
    return e;
  }
  static const expr::op ops[] = {expr::add, expr::add, expr::mul, expr::mul, expr::inv,
                                 expr::exp, expr::max, expr::min, expr::tanh};
  e->k = ops[pick(9)];
  int n = (e->k == expr::inv || e->k == expr::exp || e->k == expr::tanh) ? 1 : 2 + pick(3);
  for (int i = 0; i < n; ++i) e->args.push_back(random_expr(rng, depth - 1));
  if (e->k == expr::exp) {  // keep values moderate: exp of a scaled argument
    auto scaled = std::make_shared<expr>();
    scaled->k = expr::mul;
    auto c = std::make_shared<expr>();
    c->k = expr::constant;
    c->num = 1;
    c->den = 4;
    scaled->args = {c, e->args[0]};
    e->args[0] = scaled;
  }
  if (e->k == expr::inv) {  // 1/(1 + a²): never a division by zero
    auto one = std::make_shared<expr>();
    one->k = expr::constant;
    one->num = 1;
    auto sq = std::make_shared<expr>();
    sq->k = expr::mul;
    sq->args = {e->args[0], e->args[0]};
    auto sum = std::make_shared<expr>();
    sum->k = expr::add;
    sum->args = {one, sq};
    e->args[0] = sum;
  }
  return e;
}

double eval(const expr& e, const std::vector<double>& x) {
  switch (e.k) {
    case expr::input: return x[e.index];
    case expr::constant: return static_cast<double>(e.num) / static_cast<double>(e.den);
    case expr::add: {
      double v = 0;
      for (auto& a : e.args) v += eval(*a, x);
      return v;
    }
    case expr::mul: {
      double v = 1;
      for (auto& a : e.args) v *= eval(*a, x);
      return v;
    }
    case expr::inv: return 1 / eval(*e.args[0], x);
    case expr::exp: return std::exp(eval(*e.args[0], x));
    case expr::max: {
      double v = -INFINITY;
      for (auto& a : e.args) v = std::max(v, eval(*a, x));
      return v;
    }
    case expr::min: {
      double v = INFINITY;
      for (auto& a : e.args) v = std::min(v, eval(*a, x));
      return v;
    }
    case expr::tanh: return std::tanh(eval(*e.args[0], x));
  }
  return 0;
}

// Builds e in s; `shuffle` permutes the operands of every n-ary node first.
term_id build(store& s, const expr& e, std::mt19937_64* shuffle) {
  std::vector<term_id> a;
  for (auto& x : e.args) a.push_back(build(s, *x, shuffle));
  if (shuffle) std::shuffle(a.begin(), a.end(), *shuffle);
  switch (e.k) {
    case expr::input: return s.input("x", {e.index});
    case expr::constant: return s.constant(rational(e.num, e.den));
    case expr::add: {
      term_id v = a[0];
      for (std::size_t i = 1; i < a.size(); ++i) v = s.add(v, a[i]);  // pairwise, as kernels do
      return v;
    }
    case expr::mul: {
      term_id v = a[0];
      for (std::size_t i = 1; i < a.size(); ++i) v = s.mul(v, a[i]);
      return v;
    }
    case expr::inv: return s.inv(a[0]);
    case expr::exp: return s.exp(a[0]);
    case expr::max: return s.max(a);
    case expr::min: return s.min(a);
    case expr::tanh: return s.apply(term::function::tanh, a[0]);
  }
  return s.zero();
}

}  // namespace

TEST_CASE("smart constructors are sound at random real points") {
  std::mt19937_64 rng(21);
  store s;
  int compared = 0;
  for (int round = 0; round < 500; ++round) {
    expr_ptr e = random_expr(rng, 4);
    term_id t = build(s, *e, nullptr);
    for (int p = 0; p < 3; ++p) {
      std::vector<double> x(4);
      std::vector<rational> xr(4);
      for (int i = 0; i < 4; ++i) {
        auto k = static_cast<long long>(rng() % 4097) - 2048;
        xr[static_cast<std::size_t>(i)] = rational(k, 1024);
        x[static_cast<std::size_t>(i)] = static_cast<double>(k) / 1024;
      }
      double want = eval(*e, x);
      canon::evaluator<double> ev(s, [&](term_id in) { return xr[s.input_indices(in)[0]]; });
      auto got = ev(t);
      REQUIRE(got.has_value());
      INFO("term: " << term::to_string(s, t));
      CHECK(*got == doctest::Approx(want).epsilon(1e-9).scale(1 + std::abs(want)));
      ++compared;
    }
  }
  CHECK(compared == 1500);
}

TEST_CASE("operand order never changes the canonical term; fresh stores agree") {
  std::mt19937_64 rng(22), shuffler(23);
  for (int round = 0; round < 1000; ++round) {
    expr_ptr e = random_expr(rng, 4);
    store s;
    term_id a = build(s, *e, nullptr);
    term_id b = build(s, *e, &shuffler);
    CHECK(a == b);
    store fresh;
    (void)fresh.exp(fresh.input("unrelated", {7}));  // a different creation history
    term_id c = build(fresh, *e, &shuffler);
    CHECK(term::to_string(fresh, c) == term::to_string(s, a));
    // Idempotence: rebuilding the printed canonical term gives the same term.
    CHECK(term::parse(s, term::to_string(s, a)) == a);
  }
}

TEST_CASE("a fork keeps every id; an import into another store gives the term a fresh build gives") {
  std::mt19937_64 rng(31);
  store s;
  std::vector<expr_ptr> exprs;
  std::vector<term_id> built;
  for (int round = 0; round < 300; ++round) {
    exprs.push_back(random_expr(rng, 4));
    built.push_back(build(s, *exprs.back(), nullptr));
  }
  store fork(s);
  CHECK(fork.size() == s.size());
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    // Same id in the fork, found by hash-consing (not rebuilt).
    CHECK(build(fork, *exprs[i], nullptr) == built[i]);
  }
  CHECK(fork.size() == s.size());
  // The fork grows on its own; the original is untouched.
  term_id extra = fork.exp(fork.input("only_in_fork", {1}));
  CHECK(extra >= s.size());

  store other;
  (void)other.max(other.input("unrelated", {3}), other.input("unrelated", {4}));  // another history
  std::vector<term_id> memo;
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    term_id imported = other.import(s, built[i], memo);
    CHECK(imported == build(other, *exprs[i], nullptr));
    CHECK(term::to_string(other, imported) == term::to_string(s, built[i]));
  }
  // A deep accumulation chain imports without recursion.
  term_id acc = s.zero();
  for (std::uint32_t k = 0; k < 200000; ++k) acc = s.fma(s.input("a", {k}), s.input("b", {k}), s.exp(acc));
  term_id deep = other.import(s, acc, memo);
  CHECK(other.kind_of(deep) == s.kind_of(acc));
  CHECK(other.hash_of(deep) == s.hash_of(acc));
}
