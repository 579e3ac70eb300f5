// Evaluation order of normal forms (issue 8): products of sums expanded over their shared parts,
// applications keyed by their arguments' forms, and running quotients. Each changes how much work
// a form costs, never which form comes out: the tests check the verdicts, the work, and that both
// orders give the same ids.
#include <gpueq/canon.hpp>
#include <gpueq/term.hpp>

#include "../common/term_families.hpp"

#include <doctest/doctest.h>

#include <random>
#include <vector>

using namespace gpueq;
using canon::verdict_kind;
using term::rational;
using term::store;
using term::term_id;

TEST_CASE("the variance identity at n = 256: two-pass against one-pass, by parts") {
  store s;
  term_id two = families::variance_two_pass(s, 256), one = families::variance_one_pass(s, 256);
  canon::decider d(s);
  auto v = d(two, one);
  CHECK(v.kind == verdict_kind::equal);
  CHECK(v.method == "normal form");
  // Multiplied out square by square, Σᵢ (xᵢ − m)² built 256 squares of 257 terms (8.4M terms);
  // by parts it is one m² and one (Σ xᵢ)·m, about the size of the result (33k terms).
  INFO("terms built: " << d.forms().terms_built());
  CHECK(d.forms().terms_built() < 1'000'000);
  // A mean divided by 255 instead of 256 is caught, with an input that separates the sides.
  term_id wrong = families::variance_one_pass(s, 256, 255);
  auto w = d(two, wrong);
  CHECK(w.kind == verdict_kind::different);
  CHECK(w.witness.has_value());
  // Dropping one square is caught too.
  term_id short_two = s.sub(two, s.scale(rational(1, 256), s.pow(s.sub(s.input("x", {7}), s.scale(rational(1, 256), families::block_sum(s, [&] {
    std::vector<term_id> xs;
    for (std::uint32_t i = 0; i < 256; ++i) xs.push_back(s.input("x", {i}));
    return xs;
  }()))), 2)));
  CHECK(d(short_two, one).kind == verdict_kind::different);
}

TEST_CASE("LayerNorm outputs: two-pass against one-pass share one sqrt atom") {
  store s;
  auto a = families::layernorm(s, 64, true), b = families::layernorm(s, 64, false);
  canon::decider d(s);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(d(a[i], b[i]).kind == verdict_kind::equal);
  // y₀ of one against y₁ of the other differ.
  CHECK(d(a[0], b[1]).kind == verdict_kind::different);
}

namespace {

// Random polynomials with large shared sums under products: Σᵢ cᵢ·(xᵢ + a·S + b·T)^e·u + S²·…,
// with S, T sums of 20 inputs each (parts), nested sums, constants and exponentials mixed in.
std::vector<term_id> products_of_shared_sums(store& s, std::mt19937_64& rng) {
  auto input = [&](std::uint32_t i) { return s.input("x", {i}); };
  auto shared = [&] {
    std::vector<term_id> xs;
    for (int j = 0; j < 20; ++j) xs.push_back(s.scale(rational(static_cast<long>(rng() % 5) + 1, 4), input(static_cast<std::uint32_t>(rng() % 40))));
    return families::block_sum(s, xs, 4);
  };
  term_id S = shared(), T = shared(), U = s.add(shared(), s.one());
  std::vector<term_id> roots;
  for (int r = 0; r < 6; ++r) {
    std::vector<term_id> summands;
    for (std::uint32_t i = 0; i < 24; ++i) {
      term_id f = s.add(std::vector<term_id>{input(static_cast<std::uint32_t>(rng() % 40)),
                                             s.scale(rational(static_cast<long>(rng() % 7) - 3, 8), S),
                                             rng() % 2 ? s.scale(rational(1, 3), T) : s.zero()});
      std::vector<term_id> factors{s.pow(f, 1 + static_cast<std::int64_t>(rng() % 2))};
      if (rng() % 2) factors.push_back(input(100 + static_cast<std::uint32_t>(rng() % 4)));
      if (rng() % 3 == 0) factors.push_back(U);
      if (rng() % 4 == 0) factors.push_back(s.exp(input(200)));
      if (rng() % 5 == 0) factors.push_back(s.pow(s.max(input(1), input(2)), -1));
      summands.push_back(s.scale(rational(static_cast<long>(rng() % 9) - 4, 2), s.mul(factors)));
    }
    summands.push_back(s.pow(S, 2));
    summands.push_back(s.mul(S, T));
    roots.push_back(families::block_sum(s, summands, 8));
  }
  return roots;
}

}  // namespace

TEST_CASE("forms by parts are the same polynomials, under the same ids, as multiplied out") {
  std::mt19937_64 rng(8);
  for (int round = 0; round < 4; ++round) {
    store s;
    std::vector<term_id> roots = products_of_shared_sums(s, rng);
    for (term_id y : families::layernorm(s, 32, true)) roots.push_back(y);
    for (term_id y : families::layernorm(s, 32, false)) roots.push_back(y);
    roots.push_back(families::variance_two_pass(s, 48));
    for (term_id y : families::softmax_online(s, 8)) roots.push_back(y);
    term_id scale = s.constant(rational(1, 8));
    for (term_id y : families::attention_online_normalized(s, 24, 4, scale, 8)) roots.push_back(y);
    for (term_id y : families::attention_online(s, 24, 4, scale, 8)) roots.push_back(y);
    // One order, then the other, in one set of ids (round 0 and 2 by parts first).
    canon::normal_form_options first, second;
    first.expand_by_parts = round % 2 == 0;
    second.expand_by_parts = !first.expand_by_parts;
    canon::normal_forms nf(s, first);
    std::vector<canon::fraction> a;
    for (term_id r : roots) a.push_back(nf.of(r));
    nf.forget_terms(second);
    for (std::size_t i = 0; i < roots.size(); ++i) {
      INFO("round " << round << ", root " << i);
      CHECK(nf.of(roots[i]) == a[i]);
    }
  }
}

TEST_CASE("applications are keyed by the forms of their arguments") {
  store s;
  auto decide = [&](const char* f, const char* g) { return canon::decide_text(s, f, g).kind; };
  CHECK(decide("sqrt((x + 1)^2)", "sqrt(x^2 + 2*x + 1)") == verdict_kind::equal);
  CHECK(decide("log((a + b)*c) + tanh(a*c + b*c)", "log(a*c + b*c) + tanh((a + b)*c)") == verdict_kind::equal);
  CHECK(decide("max((a + b)*c, d + e)", "max(d + e, a*c + b*c)") == verdict_kind::equal);
  CHECK(decide("max((a + b)*c, a*c + b*c, d + e)", "max(a*c + b*c, e + d)") == verdict_kind::equal);
  CHECK(decide("max((a + b)*c, a*c + b*c)", "a*c + b*c") == verdict_kind::equal);  // max(p, p) = p
  CHECK(decide("sqrt(x^2 + 2*x + 1)", "sqrt(x^2 + 2*x + 2)") == verdict_kind::different);
  CHECK(decide("max(a + b, c + d)", "min(a + b, c + d)") == verdict_kind::different);
}

TEST_CASE("a running normalized quotient (FlashAttention-1) against naive attention") {
  // o = N/l kept normalized after every tile: each step cancels l_old against o's denominator
  // (a unit quotient) and multiplies its unit factors together before the running numerator.
  store s;
  term_id scale = s.constant(rational(1, 8));
  const std::uint32_t n = 96, d = 3, tile = 16;
  auto naive = families::attention_naive(s, n, d, scale);
  auto online = families::attention_online_normalized(s, n, d, scale, tile);
  canon::decider dd(s);
  for (std::uint32_t c = 0; c < d; ++c) CHECK(dd(naive[c], online[c]).kind == verdict_kind::equal);
  CHECK(dd(naive[0], online[1]).kind == verdict_kind::different);
  // Forgetting the rescale factor on the running output is caught.
  auto buggy = families::attention_online(s, n, d, scale, tile, false);
  CHECK(dd(naive[0], buggy[0]).kind == verdict_kind::different);
}
