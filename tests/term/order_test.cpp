// term::order: what a path's order assumptions imply, when they contradict each other, and terms
// rewritten under them (max/min resolved, equal terms merged). Expected values by hand.
#include <gpueq/term.hpp>
#include <gpueq/term/order.hpp>

#include <doctest/doctest.h>

using namespace gpueq;
using term::order;
using term::store;
using term::term_id;
using implied = term::order::implied_kind;

namespace {
term_id P(store& s, std::string_view text) { return term::parse(s, text); }
}  // namespace

TEST_CASE("order: facts imply their orders transitively, strictly when one link is strict") {
  store s;
  term_id x = P(s, "x"), y = P(s, "y"), z = P(s, "z"), w = P(s, "w");
  order o;
  o.assume(x, y, true);   // x > y
  o.assume(y, z, false);  // y >= z
  CHECK(o.implied(s, x, y) == implied::strict);
  CHECK(o.implied(s, y, z) == implied::non_strict);
  CHECK(o.implied(s, x, z) == implied::strict);  // x > y >= z
  CHECK(o.implied(s, z, x) == implied::none);
  CHECK(o.implied(s, x, w) == implied::none);
  CHECK(o.implied(s, w, w) == implied::non_strict);
  CHECK(o.consistent(s));
}

TEST_CASE("order: constants and infinities order by value, also inside chains") {
  store s;
  term_id x = P(s, "x"), y = P(s, "y");
  order o;
  o.assume(x, s.constant(1), false);  // x >= 1
  o.assume(s.constant(0), y, true);   // 0 > y
  CHECK(o.implied(s, x, y) == implied::strict);  // x >= 1 > 0 > y
  CHECK(o.implied(s, s.constant(2), s.constant(1)) == implied::strict);
  CHECK(o.implied(s, x, s.infinity(true)) == implied::strict);
  CHECK(o.implied(s, s.infinity(false), y) == implied::strict);
  CHECK(o.implied(s, s.constant(5), y) == implied::strict);  // 5 > 0 > y, 5 named by no fact
  CHECK(o.implied(s, y, x) == implied::none);
}

TEST_CASE("order: contradictory assumptions are inconsistent") {
  store s;
  term_id x = P(s, "x"), y = P(s, "y"), z = P(s, "z");
  {
    order o;  // x > y, y >= x
    o.assume(x, y, true);
    o.assume(y, x, false);
    CHECK_FALSE(o.consistent(s));
  }
  {
    order o;  // x > y > z > x
    o.assume(x, y, true);
    o.assume(y, z, true);
    o.assume(z, x, true);
    CHECK_FALSE(o.consistent(s));
  }
  {
    order o;  // x >= y >= x: consistent (x = y)
    o.assume(x, y, false);
    o.assume(y, x, false);
    CHECK(o.consistent(s));
  }
  {
    order o;  // x >= 2, 1 >= x
    o.assume(x, s.constant(2), false);
    o.assume(s.constant(1), x, false);
    CHECK_FALSE(o.consistent(s));
  }
  {
    order o;  // x != x
    o.assume_distinct(x, x);
    CHECK_FALSE(o.consistent(s));
  }
}

TEST_CASE("order: max/min resolve where the facts decide them") {
  store s;
  term_id x = P(s, "x"), y = P(s, "y"), z = P(s, "z");
  order o;
  o.assume(x, y, true);  // x > y
  CHECK(o.resolve(s, s.max(x, y)) == x);
  CHECK(o.resolve(s, s.min(x, y)) == y);
  // Only the dominated argument goes: max(x, y, z) = max(x, z).
  term_id xyz[] = {x, y, z};
  CHECK(o.resolve(s, s.max(xyz)) == s.max(x, z));
  // Inside other terms: exp(y - max(x, y)) * 2 + max(y, x) = 2 exp(y - x) + x.
  term_id t = P(s, "2*exp(y - max(x, y)) + max(y, x)");
  CHECK(o.resolve(s, t) == P(s, "2*exp(y - x) + x"));
  // Undecided stays: max(y, z).
  CHECK(o.resolve(s, s.max(y, z)) == s.max(y, z));
}

TEST_CASE("order: terms the facts make equal become one, the least id") {
  store s;
  term_id x = P(s, "x"), y = P(s, "y");
  order o;
  o.assume(x, y, false);
  o.assume(y, x, false);  // x = y
  term_id rep = std::min(x, y), other = std::max(x, y);
  CHECK(o.resolve(s, other) == rep);
  CHECK(o.resolve(s, s.sub(x, y)) == s.zero());
  CHECK(o.resolve(s, s.max(x, y)) == rep);
  CHECK(o.resolve(s, s.exp(s.sub(other, s.max(x, y)))) == s.one());
}

TEST_CASE("order: settle rewrites facts so that facts about a max count") {
  store s;
  term_id x = P(s, "x"), y = P(s, "y"), z = P(s, "z"), w = P(s, "w");
  order o;
  o.assume(x, y, true);                  // x > y
  o.assume(z, w, true);                  // z > w
  o.assume(s.max(z, w), s.max(x, y), true);  // max(z, w) > max(x, y), i.e. z > x
  CHECK(o.implied(s, z, x) == implied::none);  // not before settling
  o.settle(s);
  CHECK(o.implied(s, z, x) == implied::strict);
  term_id all[] = {x, y, z, w};
  CHECK(o.resolve(s, s.max(all)) == z);
  CHECK(o.consistent(s));
}
